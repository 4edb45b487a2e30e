/// A bounded LRU cache of item details in front of the slow store, coalescing concurrent misses.
///
/// - A hit answers at once and marks the entry most recently used (O(1), no allocation).
/// - A miss starts one store fetch for the id; further misses for the same id while it is in flight wait on
///   that same fetch instead of starting their own. Cancelling a waiter, even the one whose task runs the fetch,
///   does not cancel it: the others still get the value, and it still lands in the cache. (A cancelled waiter
///   itself keeps waiting and receives the shared result too: the fetch is already paid for.)
/// - The fetch runs in the task of the lookup that started it, not in a task of its own: with thousands of
///   lookups waiting on the slow store at once, a second task each would cost about 1.4 kB more per lookup
///   (its object and its first allocator slab; BENCHMARKS.md, "Memory per waiting request").
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

    /// A lookup waiting on a fetch another lookup runs.
    private typealias Waiter = CheckedContinuation<Fetched, any Error>

    private let store: SlowStore
    /// The catalog the cached details belong to: every entry was computed with its seed.
    private var catalog: Catalog
    /// One more per reset: fetches started before a reset do not write into the cache.
    private var generation: UInt64 = 0
    private var entries: LRUTable<UInt64, ItemDetail>
    /// The fetch in flight that misses for an id join (its token), by id. A reset forgets them all.
    private var joinable: [UInt64: UInt64] = [:]
    /// The lookups waiting on a fetch, by the fetch's token; only fetches that someone joined have an entry.
    /// A reset keeps them: they are answered when their fetch ends.
    private var waiters: [UInt64: [Waiter]] = [:]
    /// Identifies fetches, so a finished fetch only unregisters itself.
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
        if bypassCache || !cacheable {
            counters.misses += 1
            if bypassCache {
                counters.bypasses += 1
            }
            // Later misses may join this fetch, unless another is already registered for the id.
            return try await fetch(id, in: catalog, cacheable: cacheable, joinable: cacheable && joinable[id] == nil)
        } else if let detail = entries.value(forKey: id) {
            counters.hits += 1
            return DetailLookup(detail: detail, result: .hit)
        } else if let token = joinable[id] {
            counters.misses += 1
            counters.coalescedWaits += 1
            // Resumed by the fetch's own lookup when it ends; a cancelled waiter keeps waiting for it.
            let fetched = try await withCheckedThrowingContinuation { (waiter: Waiter) in
                waiters[token, default: []].append(waiter)
            }
            return DetailLookup(detail: fetched.detail, result: .miss(storeDuration: fetched.duration))
        } else {
            counters.misses += 1
            return try await fetch(id, in: catalog, cacheable: true, joinable: true)
        }
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
        joinable.removeAll()
        generation &+= 1
        self.catalog = catalog
        return dropped
    }

    /// Fetches `id` of `catalog` from the store in the calling task, then answers the lookups that joined it.
    ///
    /// With `joinable`, misses for the id join this fetch until it ends; with `cacheable`, its value is cached
    /// unless the cache is reset meanwhile. The actor is left only for the store call, so the cache is updated
    /// before any waiter resumes. The store call runs to its end even if this task is cancelled.
    private func fetch(
        _ id: UInt64, in catalog: Catalog, cacheable: Bool, joinable isJoinable: Bool
    ) async throws -> DetailLookup {
        counters.storeFetches += 1
        let token = nextToken
        nextToken &+= 1
        let generation = cacheable ? self.generation : nil
        if isJoinable {
            joinable[id] = token
        }
        let result: Result<Fetched, any Error>
        do {
            let (detail, duration) = try await store.timedFetchIgnoringCancellation(id, in: catalog)
            if generation == self.generation, entries.setValue(detail, forKey: id) != nil {
                counters.evictions += 1
            }
            result = .success(Fetched(detail: detail, duration: duration))
        } catch {
            counters.storeFailures += 1
            result = .failure(error)
        }
        if joinable[id] == token {
            joinable[id] = nil
        }
        for waiter in waiters.removeValue(forKey: token) ?? [] {
            waiter.resume(with: result)
        }
        let fetched = try result.get()
        return DetailLookup(detail: fetched.detail, result: .miss(storeDuration: fetched.duration))
    }
}
