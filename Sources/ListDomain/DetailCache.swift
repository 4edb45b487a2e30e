import Synchronization

/// A bounded LRU cache of item details in front of the slow store, coalescing concurrent misses.
///
/// A store fetch is a value and a latency (``SlowStore/begin(_:in:)``): the detail is known at once, and it is
/// *ready* when the latency has passed on the store's clock. The cache keeps that timeline instead of a task
/// per fetch:
/// - A hit answers at once and marks the entry most recently used (O(1), no allocation).
/// - A miss begins one store fetch for the id and is answered when the fetch is ready. Further misses for the
///   same id while it is in flight join it: the same detail, ready at the same moment, with no fetch of their own.
/// - When a fetch is ready its detail lands in the cache (evicting the least recently used entry when full).
/// - ``lookUp(_:in:bypassCache:)`` says what the answer is and how long until it may be given; the caller
///   waits that long however it likes. The server holds the response on a libevent timer, so nothing at all
///   (no task, no continuation) stays alive per waiting request; ``detail(for:in:bypassCache:)`` sleeps on the
///   store's clock instead. Either way a waiter that gives up changes nothing for the others, and the fetch
///   still lands.
/// - The catalog can change (a live catalog grows and is reset): each lookup names the catalog it was validated
///   against. Only lookups for the current catalog's seed use the cache; ``reset(to:)`` switches catalogs.
///
/// Every operation is synchronous, under a mutex held for O(1) work (a lookup, a landing, an eviction; a reset
/// drops the table): the loops ask it inline, and a hit is answered in the request's own callback. It was an
/// actor: each detail then needed a task, a pending-request entry and an executor switch, which made a cached
/// detail cost 30 µs of CPU against the C baseline's 23 (one loop, 64 connections; the baseline keeps its
/// table under a mutex too) (issue 32).
public final class DetailCache: Sendable {
    /// A fetch in flight that misses for its id join.
    private struct Flight {
        let detail: ItemDetail
        /// When it is ready, on the store's timeline.
        let readyAt: Duration
        let latency: Duration
    }

    /// A fetch whose detail enters the cache when it is ready; ordered by that moment, then by start.
    private struct Landing: Comparable {
        let readyAt: Duration
        let sequence: UInt64
        let detail: ItemDetail

        static func < (lhs: Landing, rhs: Landing) -> Bool {
            (lhs.readyAt, lhs.sequence) < (rhs.readyAt, rhs.sequence)
        }

        static func == (lhs: Landing, rhs: Landing) -> Bool { lhs.sequence == rhs.sequence }
    }

    /// Everything the mutex guards.
    private struct State {
        /// The catalog the cached details belong to: every entry was computed with its seed.
        var catalog: Catalog
        var entries: LRUTable<UInt64, ItemDetail>
        /// The fetch misses for an id join, by id; a reset forgets them.
        var flights: [UInt64: Flight] = [:]
        /// Every cacheable fetch in flight, earliest ready first; a reset drops them.
        var landings = MinHeap<Landing>()
        var nextSequence: UInt64 = 0
        var counters: DetailCacheStatistics

        /// Counts a hit on `detail` and answers it.
        mutating func hit(_ detail: ItemDetail) -> PendingLookup {
            counters.hits += 1
            return PendingLookup(lookup: DetailLookup(detail: detail, result: .hit), readyIn: .zero)
        }

        /// Caches the detail of every fetch ready by `now` (in the order they became ready) and ends their flights.
        mutating func land(upTo now: Duration) {
            while let landing = landings.min, landing.readyAt <= now {
                landings.removeMin()
                let id = landing.detail.id
                if entries.setValue(landing.detail, forKey: id) != nil {
                    counters.evictions += 1
                }
                if let flight = flights[id], flight.readyAt <= now {
                    flights[id] = nil
                }
            }
        }
    }

    /// The store this cache is in front of.
    public let store: SlowStore
    private let state: Mutex<State>

    /// Creates an empty cache in front of `store`.
    ///
    /// - Parameters:
    ///   - store: Where misses are fetched from.
    ///   - capacity: The most details kept, at least 1 (a precondition). Memory grows
    ///     with use, not with the capacity.
    public init(store: SlowStore, capacity: Int) {
        precondition(capacity >= 1, "DetailCache capacity must be at least 1")
        self.store = store
        state = Mutex(
            State(
                catalog: store.catalog, entries: LRUTable(capacity: capacity),
                counters: DetailCacheStatistics(capacity: capacity)))
    }

    /// Looks item `id` of `catalog` (the snapshot the request was validated against) up, without waiting.
    ///
    /// Hit: ready now. Miss: one store fetch per id however many lookups miss on it meanwhile (coalesced), ready
    /// when its latency has passed, then cached. `bypassCache`: always a fresh store fetch (not coalesced with a
    /// cached value, nor with a fetch in flight), cached when ready; later misses join it unless another fetch
    /// for the id is already in flight.
    ///
    /// A lookup whose catalog has another seed than the cache's current one (a request validated just before a
    /// reset, say) is always a miss: a store fetch in `catalog`, neither joined nor cached, so a detail is never
    /// served for a seed other than the one it was computed with.
    ///
    /// - Returns: The answer, and how long from now it is ready: zero for a hit, the fetch's latency for a miss
    ///   that fetched, what is left of it for one that joined.
    /// - Throws: ``StoreError/itemNotFound(_:)`` when `id >= catalog.count`.
    public func lookUp(_ id: UInt64, in catalog: Catalog, bypassCache: Bool = false) throws(StoreError)
        -> PendingLookup
    {
        let store = self.store
        return try state.withLock { (state: inout State) throws(StoreError) -> PendingLookup in
            let cacheable = catalog.seed == state.catalog.seed && id < catalog.count
            let usesCache = cacheable && !bypassCache
            // With no fetch in flight nothing can land, and a hit needs no clock.
            if usesCache, state.landings.isEmpty, let detail = state.entries.value(forKey: id) {
                return state.hit(detail)
            }
            let now = store.elapsed()
            state.land(upTo: now)
            if usesCache {
                if let detail = state.entries.value(forKey: id) {
                    return state.hit(detail)
                }
                if let flight = state.flights[id] {
                    state.counters.misses += 1
                    state.counters.coalescedWaits += 1
                    let lookup = DetailLookup(detail: flight.detail, result: .miss(storeDuration: flight.latency))
                    return PendingLookup(lookup: lookup, readyIn: flight.readyAt - now)
                }
            }
            state.counters.misses += 1
            if bypassCache {
                state.counters.bypasses += 1
            }
            state.counters.storeFetches += 1
            let fetch: (detail: ItemDetail, latency: Duration)
            do throws(StoreError) {
                fetch = try store.begin(id, in: catalog)
            } catch {
                state.counters.storeFailures += 1
                throw error
            }
            if cacheable {  // bypassing or not
                let readyAt = now + fetch.latency
                if state.flights[id] == nil {
                    state.flights[id] = Flight(detail: fetch.detail, readyAt: readyAt, latency: fetch.latency)
                }
                state.landings.insert(Landing(readyAt: readyAt, sequence: state.nextSequence, detail: fetch.detail))
                state.nextSequence &+= 1
            }
            let lookup = DetailLookup(detail: fetch.detail, result: .miss(storeDuration: fetch.latency))
            return PendingLookup(lookup: lookup, readyIn: fetch.latency)
        }
    }

    /// ``lookUp(_:in:bypassCache:)`` in the cache's current catalog (the store's, until ``reset(to:)``).
    public func lookUp(_ id: UInt64, bypassCache: Bool = false) throws(StoreError) -> PendingLookup {
        try lookUp(id, in: catalog, bypassCache: bypassCache)
    }

    /// The catalog lookups without one of their own are for.
    public var catalog: Catalog {
        state.withLock { $0.catalog }
    }

    /// ``lookUp(_:in:bypassCache:)``, then waits on the store's clock until the answer is ready.
    ///
    /// - Throws: ``StoreError/itemNotFound(_:)`` at once when `id >= catalog.count`; `CancellationError` when
    ///   this task is cancelled while waiting (the fetch goes on, and lands in the cache).
    public func detail(for id: UInt64, in catalog: Catalog, bypassCache: Bool = false) async throws -> DetailLookup {
        let pending = try lookUp(id, in: catalog, bypassCache: bypassCache)
        if pending.readyIn > .zero {
            try await store.wait(pending.readyIn)
        }
        return pending.lookup
    }

    /// ``detail(for:in:bypassCache:)`` in the cache's current catalog.
    public func detail(for id: UInt64, bypassCache: Bool = false) async throws -> DetailLookup {
        try await detail(for: id, in: catalog, bypassCache: bypassCache)
    }

    /// The counters so far, with the current entry count (fetches that are ready by now included).
    public var statistics: DetailCacheStatistics {
        let now = store.elapsed()
        return state.withLock { state in
            state.land(upTo: now)
            var snapshot = state.counters
            snapshot.count = state.entries.count
            return snapshot
        }
    }

    /// Forgets the cached detail for `id`, if any; the next lookup fetches it again.
    ///
    /// A fetch in flight for the id is not affected and caches its detail when it is ready.
    /// - Returns: Whether a detail was cached.
    @discardableResult
    public func invalidate(_ id: UInt64) -> Bool {
        let now = store.elapsed()
        return state.withLock { state in
            state.land(upTo: now)
            return state.entries.removeValue(forKey: id) != nil
        }
    }

    /// Starts the cache over for `catalog`: drops every cached detail and forgets the fetches in flight.
    ///
    /// Lookups already answered keep their answers, but their fetches no longer land in the cache, nor can later
    /// lookups join them. The statistics keep counting (they are monotonic, for metrics).
    /// - Parameter catalog: The catalog lookups are for from now on (``lookUp(_:bypassCache:)`` uses it).
    /// - Returns: How many cached details were dropped (fetches that were ready by now included).
    @discardableResult
    public func reset(to catalog: Catalog) -> Int {
        let now = store.elapsed()
        // The old table leaves the lock whole and is freed after it, by this thread: freeing up to `capacity`
        // entries under the lock would hold every loop's lookups meanwhile.
        let old = state.withLock { state in
            state.land(upTo: now)
            let old = state.entries
            state.entries = LRUTable(capacity: old.capacity)
            state.flights.removeAll()
            state.landings.removeAll()
            state.catalog = catalog
            return old
        }
        return old.count
    }
}
