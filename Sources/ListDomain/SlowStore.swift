import Synchronization

/// A slow backing store for item details: every fetch takes a latency drawn from a distribution.
///
/// It stands for the database or remote service a real list backend would call. ``begin(_:in:)`` draws a
/// fetch's latency without waiting (the detail cache keeps when each fetch is ready, and the server holds the
/// answer on a loop timer); ``timedFetch(_:in:)`` and ``wait(_:)`` wait with `clock.sleep(for:)` on an injected
/// clock. Nothing blocks a thread, and tests drive the clock by hand instead of real time.
public struct SlowStore: Sendable {
    /// The catalog the details come from.
    public let catalog: Catalog
    /// The distribution each fetch's latency is drawn from.
    public let latency: LatencyDistribution
    /// The clock the store sleeps on and measures with.
    public let clock: any Clock<Duration>
    /// The generator latencies are drawn from, shared by all copies of this store.
    let random: LockedRandomNumberGenerator
    /// Reads the time passed on `clock` since the store was created.
    private let stopwatch: @Sendable () -> Duration

    /// Creates a store over `catalog`.
    ///
    /// - Parameters:
    ///   - catalog: Where the details come from.
    ///   - latency: The latency of every fetch.
    ///   - clock: The clock to sleep on; tests inject a manual clock.
    ///   - random: The generator latencies are drawn from (behind a lock: fetches run concurrently); inject a
    ///     seeded ``SplitMix64`` for reproducible latencies.
    public init(
        catalog: Catalog,
        latency: LatencyDistribution,
        clock: any Clock<Duration> = ContinuousClock(),
        random: any RandomNumberGenerator & Sendable = SystemRandomNumberGenerator()
    ) {
        self.catalog = catalog
        self.latency = latency
        self.clock = clock
        self.random = LockedRandomNumberGenerator(random)
        stopwatch = Self.stopwatch(on: clock)
    }

    /// Waits a latency drawn from the distribution (clock.sleep: never blocks a thread), then returns the detail.
    ///
    /// - Throws: ``StoreError/itemNotFound(_:)`` at once when `id >= catalog.count` (no wait);
    ///   `CancellationError` when the calling task is cancelled while waiting.
    public func fetch(_ id: UInt64) async throws -> ItemDetail {
        try await timedFetch(id).detail
    }

    /// Like ``fetch(_:)``, and also reports how long the fetch took on the store's clock.
    public func timedFetch(_ id: UInt64) async throws -> (detail: ItemDetail, duration: Duration) {
        try await timedFetch(id, in: catalog)
    }

    /// Like ``timedFetch(_:)``, for the item of another catalog (a later snapshot of a live catalog, say): its
    /// seed and count are used instead of the store's own; the latency is drawn as for any fetch.
    ///
    /// - Throws: ``StoreError/itemNotFound(_:)`` at once when `id >= catalog.count` (no wait);
    ///   `CancellationError` when the calling task is cancelled while waiting.
    public func timedFetch(
        _ id: UInt64, in catalog: Catalog
    ) async throws -> (detail: ItemDetail, duration: Duration) {
        let (detail, latency) = try begin(id, in: catalog)
        let start = elapsed()
        try await wait(latency)
        return (detail, elapsed() - start)
    }

    /// Begins a fetch of item `id` of `catalog` without waiting: checks the id and draws the latency. The
    /// detail is ready `latency` from now; the caller waits (``wait(_:)``, or a timer of its own).
    ///
    /// The detail cache fetches this way: it keeps when each fetch is ready, so no task has to wait per fetch.
    /// - Throws: ``StoreError/itemNotFound(_:)`` when `id >= catalog.count`.
    public func begin(_ id: UInt64, in catalog: Catalog) throws(StoreError) -> (detail: ItemDetail, latency: Duration) {
        guard id < catalog.count else {
            throw StoreError.itemNotFound(id)
        }
        return (ItemDetail(id: id, amount: catalog.amount(for: id)), drawLatency())
    }

    /// Waits `duration` on the store's clock.
    ///
    /// - Throws: `CancellationError` when the calling task is cancelled while waiting.
    public func wait(_ duration: Duration) async throws {
        try await clock.sleep(for: duration)
    }

    /// The time passed on the store's clock since the store was created: the timeline fetches are ready on.
    public func elapsed() -> Duration {
        stopwatch()
    }

    /// Draws the next latency from the shared generator.
    func drawLatency() -> Duration {
        random.withLock { generator in latency.sample(using: &generator) }
    }

    /// A function that reads the time passed on `clock` since now.
    static func stopwatch<C: Clock<Duration>>(on clock: C) -> @Sendable () -> Duration {
        // The server's clock, read on every detail miss: read it without the generic indirection.
        if clock is ContinuousClock {
            let origin = ContinuousClock.now
            return { origin.duration(to: .now) }
        }
        let origin = clock.now
        return { origin.duration(to: clock.now) }
    }
}

/// Why the store could not answer. Domain errors say what happened, not how a transport reports it.
public enum StoreError: Error, Sendable, Equatable {
    /// The id is not in the catalog (`id >= count`).
    case itemNotFound(UInt64)
}

/// A random number generator behind a `Mutex`, so concurrent fetches can share it.
final class LockedRandomNumberGenerator: Sendable {
    private let state: Mutex<any RandomNumberGenerator & Sendable>

    init(_ generator: any RandomNumberGenerator & Sendable) {
        state = Mutex(generator)
    }

    /// Runs `body` with exclusive access to the generator.
    func withLock<Result>(_ body: (inout any RandomNumberGenerator & Sendable) -> Result) -> Result {
        state.withLock { generator in body(&generator) }
    }
}
