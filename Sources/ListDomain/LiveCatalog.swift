import Synchronization

/// The catalog a server serves right now: it may grow at the end over time and be reset.
///
/// Every list request takes one ``snapshot()`` and answers from it, so a response is always consistent with
/// one catalog and one version. The list grows like a chat: new items get the next ids, at the end.
///
/// With growth off (`growEvery` zero) a snapshot takes one uncontended lock and reads no clock.
public final class LiveCatalog: Sendable {
    /// What a reset changes.
    private struct State {
        var seed: UInt64
        var version: UInt64
        /// The time since creation at which growth last (re)started.
        var growthOrigin: Duration
    }

    /// The count at creation and after every reset.
    public let baseCount: UInt64
    /// One new item per this interval; zero (or negative) for none.
    public let growEvery: Duration
    /// The time on the clock since this catalog was created; `nil` when it never grows, so no clock is read.
    private let elapsed: (@Sendable () -> Duration)?
    private let state: Mutex<State>

    /// Creates a live catalog, version 1.
    ///
    /// - Parameters:
    ///   - seed: The seed of the items.
    ///   - count: The count at creation and after each reset, at most ``Catalog/maximumCount`` (a precondition).
    ///   - growEvery: With a positive interval, one item is added at the end per interval that passes on `clock`
    ///     (up to ``Catalog/maximumCount``); zero (the default) for a catalog that never grows.
    ///   - clock: The clock growth is measured on; tests inject a manual clock. Not read when `growEvery` is zero.
    public init(
        seed: UInt64,
        count: UInt64,
        growEvery: Duration = .zero,
        clock: any Clock<Duration> = ContinuousClock()
    ) {
        precondition(count <= Catalog.maximumCount, "Catalog count \(count) exceeds 2^53")
        baseCount = count
        self.growEvery = growEvery
        elapsed = growEvery > .zero ? Self.timeSinceNow(on: clock) : nil
        state = Mutex(State(seed: seed, version: 1, growthOrigin: .zero))
    }

    /// The catalog and its version as of now.
    public func snapshot() -> CatalogSnapshot {
        guard let elapsed else {
            return state.withLock { state in
                CatalogSnapshot(catalog: Catalog(seed: state.seed, count: baseCount), version: state.version)
            }
        }
        // Read before the lock: a reset in between makes the growth negative, counted as none.
        let now = elapsed()
        return state.withLock { state in
            CatalogSnapshot(
                catalog: Catalog(seed: state.seed, count: count(grownFor: now - state.growthOrigin)),
                version: state.version)
        }
    }

    /// Starts the catalog over: the next version, the base count, growth restarting from now.
    ///
    /// - Parameter seed: The new seed; `nil` (the default) keeps the current one.
    /// - Returns: The snapshot right after the reset.
    @discardableResult
    public func reset(seed: UInt64? = nil) -> CatalogSnapshot {
        let now = elapsed?() ?? .zero
        return state.withLock { state in
            state.version &+= 1
            if let seed {
                state.seed = seed
            }
            state.growthOrigin = now
            return CatalogSnapshot(catalog: Catalog(seed: state.seed, count: baseCount), version: state.version)
        }
    }

    /// `min(maximumCount, baseCount + floor(growth / growEvery))`, exact (in attoseconds), never trapping.
    private func count(grownFor growth: Duration) -> UInt64 {
        guard growth > .zero else { return baseCount }
        let added = growth.attoseconds / growEvery.attoseconds
        let room = Catalog.maximumCount - baseCount
        return added >= Int128(room) ? Catalog.maximumCount : baseCount + UInt64(added)
    }

    /// A closure measuring the time on `clock` since this call (opens the clock existential once).
    private static func timeSinceNow<C: Clock<Duration>>(on clock: C) -> @Sendable () -> Duration {
        let start = clock.now
        return { start.duration(to: clock.now) }
    }
}

/// A catalog and the version of the ``LiveCatalog`` it was taken from.
///
/// The version changes on every reset (not when the catalog grows), so a client seeing a new version knows the
/// items it holds are stale.
public struct CatalogSnapshot: Sendable, Equatable {
    /// The catalog as of the snapshot.
    public let catalog: Catalog
    /// The live catalog's version: 1 at creation, one more per reset.
    public let version: UInt64

    /// Creates a snapshot value.
    public init(catalog: Catalog, version: UInt64) {
        self.catalog = catalog
        self.version = version
    }
}
