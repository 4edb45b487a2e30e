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
public actor DetailCache {
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

    /// The store this cache is in front of.
    public nonisolated let store: SlowStore
    /// The catalog the cached details belong to: every entry was computed with its seed.
    private var catalog: Catalog
    private var entries: LRUTable<UInt64, ItemDetail>
    /// The fetch misses for an id join, by id; a reset forgets them.
    private var flights: [UInt64: Flight] = [:]
    /// Every cacheable fetch in flight, earliest ready first; a reset drops them.
    private var landings = MinHeap<Landing>()
    private var nextSequence: UInt64 = 0
    private var counters: DetailCacheStatistics

    /// Creates an empty cache in front of `store`.
    ///
    /// - Parameters:
    ///   - store: Where misses are fetched from.
    ///   - capacity: The most details kept, at least 1 (a precondition). Memory grows
    ///     with use, not with the capacity.
    public init(store: SlowStore, capacity: Int) {
        precondition(capacity >= 1, "DetailCache capacity must be at least 1")
        self.store = store
        catalog = store.catalog
        entries = LRUTable(capacity: capacity)
        counters = DetailCacheStatistics(capacity: capacity)
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
        let cacheable = catalog.seed == self.catalog.seed && id < catalog.count
        let usesCache = cacheable && !bypassCache
        // With no fetch in flight nothing can land, and a hit needs no clock.
        if usesCache, landings.isEmpty, let detail = entries.value(forKey: id) {
            return hit(detail)
        }
        let now = store.elapsed()
        land(upTo: now)
        if usesCache {
            if let detail = entries.value(forKey: id) {
                return hit(detail)
            }
            if let flight = flights[id] {
                counters.misses += 1
                counters.coalescedWaits += 1
                let lookup = DetailLookup(detail: flight.detail, result: .miss(storeDuration: flight.latency))
                return PendingLookup(lookup: lookup, readyIn: flight.readyAt - now)
            }
        }
        counters.misses += 1
        if bypassCache {
            counters.bypasses += 1
        }
        counters.storeFetches += 1
        let fetch: (detail: ItemDetail, latency: Duration)
        do {
            fetch = try store.begin(id, in: catalog)
        } catch {
            counters.storeFailures += 1
            throw error
        }
        if cacheable {  // bypassing or not
            let readyAt = now + fetch.latency
            if flights[id] == nil {
                flights[id] = Flight(detail: fetch.detail, readyAt: readyAt, latency: fetch.latency)
            }
            landings.insert(Landing(readyAt: readyAt, sequence: nextSequence, detail: fetch.detail))
            nextSequence &+= 1
        }
        let lookup = DetailLookup(detail: fetch.detail, result: .miss(storeDuration: fetch.latency))
        return PendingLookup(lookup: lookup, readyIn: fetch.latency)
    }

    /// ``lookUp(_:in:bypassCache:)`` in the cache's current catalog (the store's, until ``reset(to:)``).
    public func lookUp(_ id: UInt64, bypassCache: Bool = false) throws(StoreError) -> PendingLookup {
        try lookUp(id, in: catalog, bypassCache: bypassCache)
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
        land(upTo: store.elapsed())
        var snapshot = counters
        snapshot.count = entries.count
        return snapshot
    }

    /// Forgets the cached detail for `id`, if any; the next lookup fetches it again.
    ///
    /// A fetch in flight for the id is not affected and caches its detail when it is ready.
    /// - Returns: Whether a detail was cached.
    @discardableResult
    public func invalidate(_ id: UInt64) -> Bool {
        land(upTo: store.elapsed())
        return entries.removeValue(forKey: id) != nil
    }

    /// Starts the cache over for `catalog`: drops every cached detail and forgets the fetches in flight.
    ///
    /// Lookups already answered keep their answers, but their fetches no longer land in the cache, nor can later
    /// lookups join them. The statistics keep counting (they are monotonic, for metrics).
    /// - Parameter catalog: The catalog lookups are for from now on (``lookUp(_:bypassCache:)`` uses it).
    /// - Returns: How many cached details were dropped (fetches that were ready by now included).
    @discardableResult
    public func reset(to catalog: Catalog) -> Int {
        land(upTo: store.elapsed())
        let dropped = entries.count
        entries = LRUTable(capacity: entries.capacity)
        flights.removeAll()
        landings.removeAll()
        self.catalog = catalog
        return dropped
    }

    /// Counts a hit on `detail` and answers it.
    private func hit(_ detail: ItemDetail) -> PendingLookup {
        counters.hits += 1
        return PendingLookup(lookup: DetailLookup(detail: detail, result: .hit), readyIn: .zero)
    }

    /// Caches the detail of every fetch ready by `now` (in the order they became ready) and ends their flights.
    private func land(upTo now: Duration) {
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
