/// A bounded LRU cache of item details in front of the slow store, coalescing concurrent misses.
///
/// - A hit answers at once and marks the entry most recently used (O(1), no allocation).
/// - A miss starts one store fetch for the id; further misses for the same id while it is in flight wait on
///   that same fetch instead of starting their own. The fetch runs in its own unstructured task: cancelling a
///   waiter does not cancel it, the others still get the value, and it still lands in the cache. (A cancelled
///   waiter itself keeps waiting and receives the shared result too: the fetch is already paid for.)
/// - If the fetch throws, nothing is cached, every waiter gets the error, and the next lookup fetches again.
/// - When full, the least recently used entry is evicted.
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
        entries = LRUTable(capacity: capacity)
        counters = DetailCacheStatistics(capacity: capacity)
    }

    /// Hit: answers at once. Miss: one store fetch per id however many callers wait (coalesced),
    /// then cached. bypassCache: always a fresh store fetch (not coalesced with a cached value), result cached.
    ///
    /// - Throws: whatever the store fetch threw (``StoreError/itemNotFound(_:)``, for instance), to every
    ///   caller waiting on that fetch.
    public func detail(for id: UInt64, bypassCache: Bool = false) async throws -> DetailLookup {
        let task: Task<Fetched, any Error>
        if bypassCache {
            counters.misses += 1
            counters.bypasses += 1
            // Later misses may join this fetch, unless another is already registered for the id.
            task = startFetch(id, register: inFlight[id] == nil)
        } else if let detail = entries.value(forKey: id) {
            counters.hits += 1
            return DetailLookup(detail: detail, result: .hit)
        } else if let flight = inFlight[id] {
            counters.misses += 1
            counters.coalescedWaits += 1
            task = flight.task
        } else {
            counters.misses += 1
            task = startFetch(id, register: true)
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

    /// Starts a store fetch for `id` in its own task; with `register`, misses for the id join it until it ends.
    private func startFetch(_ id: UInt64, register: Bool) -> Task<Fetched, any Error> {
        counters.storeFetches += 1
        let token = nextToken
        nextToken &+= 1
        let task = Task { try await self.runFetch(id, token: token) }
        if register {
            inFlight[id] = InFlight(token: token, task: task)
        }
        return task
    }

    /// The body of a fetch task: fetch, then cache the value (or count the failure) and unregister.
    ///
    /// Runs on the actor except for the store call, so the cache is updated before any waiter resumes.
    private func runFetch(_ id: UInt64, token: UInt64) async throws -> Fetched {
        defer {
            if inFlight[id]?.token == token {
                inFlight[id] = nil
            }
        }
        do {
            let (detail, duration) = try await store.timedFetch(id)
            if entries.setValue(detail, forKey: id) != nil {
                counters.evictions += 1
            }
            return Fetched(detail: detail, duration: duration)
        } catch {
            counters.storeFailures += 1
            throw error
        }
    }
}
