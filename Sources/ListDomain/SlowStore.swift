import Synchronization

/// A slow backing store for item details: every fetch waits a latency drawn from a distribution.
///
/// It stands for the database or remote service a real list backend would call. The wait is
/// `clock.sleep(for:)` on an injected clock, so it never blocks a thread, and tests drive it with a manual
/// clock instead of real time.
public struct SlowStore: Sendable {
    /// The catalog the details come from.
    public let catalog: Catalog
    /// The distribution each fetch's latency is drawn from.
    public let latency: LatencyDistribution
    /// The clock the store sleeps on and measures with.
    let clock: any Clock<Duration>
    /// The generator latencies are drawn from, shared by all copies of this store.
    let random: LockedRandomNumberGenerator

    /// Creates a store over `catalog`.
    ///
    /// - Parameters:
    ///   - catalog: Where the details come from.
    ///   - latency: The latency of every fetch; from `store.latency.min_ms` and `store.latency.max_ms`.
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
        guard id < catalog.count else {
            throw StoreError.itemNotFound(id)
        }
        let delay = drawLatency()
        let duration = try await Self.sleep(on: clock, for: delay)
        return (ItemDetail(id: id, amount: catalog.amount(for: id)), duration)
    }

    /// Like ``timedFetch(_:in:)``, but once begun the fetch runs to its end even if the calling task is
    /// cancelled, as a query sent to a database does. The detail cache runs one fetch for every lookup that
    /// misses on an id, in the task of the first: that lookup giving up must not fail the others.
    ///
    /// Costs nothing extra unless the task is cancelled while waiting; then the rest of the wait, to the same
    /// deadline, runs in a task of its own.
    /// - Throws: ``StoreError/itemNotFound(_:)`` at once when `id >= catalog.count` (no wait); whatever the
    ///   clock's sleep throws other than a cancellation of this task.
    func timedFetchIgnoringCancellation(
        _ id: UInt64, in catalog: Catalog
    ) async throws -> (detail: ItemDetail, duration: Duration) {
        guard id < catalog.count else {
            throw StoreError.itemNotFound(id)
        }
        let duration = try await Self.sleepIgnoringCancellation(on: clock, for: drawLatency())
        return (ItemDetail(id: id, amount: catalog.amount(for: id)), duration)
    }

    /// Draws the next latency from the shared generator.
    func drawLatency() -> Duration {
        random.withLock { generator in latency.sample(using: &generator) }
    }

    /// Sleeps `delay` on `clock` whether or not this task is cancelled, and returns the time that passed on it.
    private static func sleepIgnoringCancellation<C: Clock<Duration>>(
        on clock: C, for delay: Duration
    ) async throws -> Duration {
        let start = clock.now
        let deadline = start.advanced(by: delay)
        do {
            try await clock.sleep(until: deadline, tolerance: nil)
        } catch is CancellationError where Task.isCancelled {
            // An unstructured task does not inherit the cancellation.
            try await Task { try await clock.sleep(until: deadline, tolerance: nil) }.value
        }
        return start.duration(to: clock.now)
    }

    /// Sleeps `delay` on `clock` and returns the time that actually passed on it.
    private static func sleep(on clock: some Clock<Duration>, for delay: Duration) async throws -> Duration {
        let start = clock.now
        try await clock.sleep(for: delay)
        return start.duration(to: clock.now)
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
