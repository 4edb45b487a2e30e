/// A bounded LRU cache of item details in front of the slow store, coalescing concurrent misses.
///
/// - A hit answers at once and marks the entry most recently used (O(1), no allocation).
/// - A miss starts one store fetch for the id; further misses for the same id while it is in flight wait on
///   that same fetch instead of starting their own. The fetch runs in its own unstructured task: cancelling a
///   waiter does not cancel it, the others still get the value, and it still lands in the cache. (A cancelled
///   waiter itself keeps waiting and receives the shared result too: the fetch is already paid for.)
/// - If the fetch throws, nothing is cached, every waiter gets the error, and the next lookup fetches again.
/// - When full, the least recently used entry is evicted.
/// - The catalog can change (a live catalog grows and is reset): each lookup names the catalog it was validated
///   against. Only lookups for the current catalog's seed use the cache; ``reset(to:)`` switches catalogs.
public actor DetailCache {
    /// A store fetch and what it measured.
    private struct Fetched: Sendable {
        let detail: ItemDetail
        let duration: Duration
    }

    /// A store fetch in flight that misses for its id can join.
    private struct InFlight {
        /// Identifies this fetch, so a finished fetch only unregisters itself.
        let token: UInt64
        let task: Task<Fetched, any Error>
    }

    private let store: SlowStore
    /// The catalog the cached details belong to: every entry was computed with its seed.
    private var catalog: Catalog
    /// One more per reset: fetches started before a reset do not write into the cache.
    private var generation: UInt64 = 0
    private var entries: LRUTable<UInt64, ItemDetail>
    private var inFlight: [UInt64: InFlight] = [:]
    private var nextToken: UInt64 = 0
    private var counters: DetailCacheStatistics

    /// Creates an empty cache in front of `store`.
    ///
    /// - Parameters:
    ///   - store: Where misses are fetched from.
    ///   - capacity: The most details kept, at least 1 (a precondition); from `cache.capacity`. Memory grows
    ///     with use, not with the capacity.
    public init(store: SlowStore, capacity: Int) {
        precondition(capacity >= 1, "DetailCache capacity must be at least 1")
        self.store = store
        catalog = store.catalog
        entries = LRUTable(capacity: capacity)
        counters = DetailCacheStatistics(capacity: capacity)
    }

    /// Hit: answers at once. Miss: one store fetch per id however many callers wait (coalesced),
    /// then cached. bypassCache: always a fresh store fetch (not coalesced with a cached value), result cached.
    ///
    /// Looks the id up in the cache's current catalog (the store's, until ``reset(to:)``).
    ///
    /// - Throws: whatever the store fetch threw (``StoreError/itemNotFound(_:)``, for instance), to every
    ///   caller waiting on that fetch.
    public func detail(for id: UInt64, bypassCache: Bool = false) async throws -> DetailLookup {
        try await detail(for: id, in: catalog, bypassCache: bypassCache)
    }

    /// Like ``detail(for:bypassCache:)``, for item `id` of `catalog`: the snapshot the request was validated
    /// against.
    ///
    /// A lookup whose catalog has the cache's current seed behaves as described there. Any other (a request
    /// validated just before a reset, say) is always a miss: a store fetch in `catalog`, neither joined nor
    /// cached, so a detail is never served for a seed other than the one it was computed with. An id at or past
    /// `catalog.count` goes to the store too, which throws.
    ///
    /// - Parameters:
    ///   - id: The item's id.
    ///   - catalog: The catalog whose item is wanted; the store fetch uses its seed and count.
    ///   - bypassCache: Whether to skip the cache and fetch afresh (the result is still cached).
    /// - Throws: whatever the store fetch threw (``StoreError/itemNotFound(_:)``, for instance), to every
    ///   caller waiting on that fetch.
    public func detail(
        for id: UInt64, in catalog: Catalog, bypassCache: Bool = false
    ) async throws -> DetailLookup {
        let cacheable = catalog.seed == self.catalog.seed && id < catalog.count
        let task: Task<Fetched, any Error>
        if bypassCache || !cacheable {
            counters.misses += 1
            if bypassCache {
                counters.bypasses += 1
            }
            // Later misses may join this fetch, unless another is already registered for the id.
            task = startFetch(id, in: catalog, cacheable: cacheable, register: cacheable && inFlight[id] == nil)
        } else if let detail = entries.value(forKey: id) {
            counters.hits += 1
            return DetailLookup(detail: detail, result: .hit)
        } else if let flight = inFlight[id] {
            counters.misses += 1
            counters.coalescedWaits += 1
            task = flight.task
        } else {
            counters.misses += 1
            task = startFetch(id, in: catalog, cacheable: true, register: true)
        }
        // Awaiting a task's value does not forward this caller's cancellation to the task.
        let fetched = try await task.value
        return DetailLookup(detail: fetched.detail, result: .miss(storeDuration: fetched.duration))
    }

    /// The counters so far, with the current entry count.
    public var statistics: DetailCacheStatistics {
        var snapshot = counters
        snapshot.count = entries.count
        return snapshot
    }

    /// Forgets the cached detail for `id`, if any; the next lookup fetches it again.
    ///
    /// A fetch already in flight for the id is not affected and caches its value when it ends.
    /// - Returns: Whether a detail was cached.
    @discardableResult
    public func invalidate(_ id: UInt64) -> Bool {
        entries.removeValue(forKey: id) != nil
    }

    /// Starts the cache over for `catalog`: drops every cached detail and forgets the fetches in flight.
    ///
    /// Fetches in flight still answer their waiters but no longer write into the cache, nor can later lookups
    /// join them. The statistics keep counting (they are monotonic, for metrics).
    /// - Parameter catalog: The catalog lookups are for from now on (``detail(for:bypassCache:)`` uses it).
    /// - Returns: How many cached details were dropped.
    @discardableResult
    public func reset(to catalog: Catalog) -> Int {
        let dropped = entries.count
        entries = LRUTable(capacity: entries.capacity)
        inFlight.removeAll()
        generation &+= 1
        self.catalog = catalog
        return dropped
    }

    /// Starts a store fetch for `id` of `catalog` in its own task; with `register`, misses for the id join it
    /// until it ends; with `cacheable`, its value is cached unless the cache is reset meanwhile.
    private func startFetch(
        _ id: UInt64, in catalog: Catalog, cacheable: Bool, register: Bool
    ) -> Task<Fetched, any Error> {
        counters.storeFetches += 1
        let token = nextToken
        nextToken &+= 1
        let generation = cacheable ? self.generation : nil
        let task = Task { try await self.runFetch(id, in: catalog, token: token, generation: generation) }
        if register {
            inFlight[id] = InFlight(token: token, task: task)
        }
        return task
    }

    /// The body of a fetch task: fetch, then cache the value (or count the failure) and unregister.
    ///
    /// The value is cached only when `generation` is the cache's current one (`nil`: never).
    /// Runs on the actor except for the store call, so the cache is updated before any waiter resumes.
    private func runFetch(
        _ id: UInt64, in catalog: Catalog, token: UInt64, generation: UInt64?
    ) async throws -> Fetched {
        defer {
            if inFlight[id]?.token == token {
                inFlight[id] = nil
            }
        }
        do {
            let (detail, duration) = try await store.timedFetch(id, in: catalog)
            if generation == self.generation, entries.setValue(detail, forKey: id) != nil {
                counters.evictions += 1
            }
            return Fetched(detail: detail, duration: duration)
        } catch {
            counters.storeFailures += 1
            throw error
        }
    }
}
