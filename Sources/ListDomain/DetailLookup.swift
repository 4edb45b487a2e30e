/// What ``DetailCache/detail(for:bypassCache:)`` answers: the detail and where it came from.
public struct DetailLookup: Sendable, Equatable {
    /// The item detail.
    public let detail: ItemDetail
    /// Whether the cache had it or the store was asked.
    public let result: CacheResult

    /// Creates a lookup result.
    public init(detail: ItemDetail, result: CacheResult) {
        self.detail = detail
        self.result = result
    }
}

/// Where a detail came from.
public enum CacheResult: Sendable, Equatable {
    /// The cache held it; no waiting.
    case hit
    /// The store was asked; `storeDuration` is that fetch's latency. Callers that joined a fetch already in flight
    /// (coalesced waiters) get the shared fetch's latency.
    case miss(storeDuration: Duration)
}

/// Counters of a ``DetailCache`` since it was created.
///
/// Every lookup is either a hit or a miss, so `hits + misses` is the number of lookups; every miss either
/// started a store fetch or joined one in flight, so `storeFetches == misses - coalescedWaits`.
public struct DetailCacheStatistics: Sendable, Equatable {
    /// Lookups answered from the cache.
    public var hits: UInt64
    /// Lookups answered by a store fetch (started or joined), bypassing lookups included.
    public var misses: UInt64
    /// Misses that joined a fetch already in flight for the same id instead of starting one.
    public var coalescedWaits: UInt64
    /// Entries dropped because the cache was full.
    public var evictions: UInt64
    /// Store fetches started, successful or not.
    public var storeFetches: UInt64
    /// Lookups with `bypassCache: true` (also counted in `misses`).
    public var bypasses: UInt64
    /// Store fetches the store refused (an id past the end of the catalog); nothing is cached for them.
    public var storeFailures: UInt64
    /// Entries in the cache now.
    public var count: Int
    /// The most entries the cache holds.
    public var capacity: Int

    /// Creates a statistics value; the counters default to zero.
    public init(
        hits: UInt64 = 0,
        misses: UInt64 = 0,
        coalescedWaits: UInt64 = 0,
        evictions: UInt64 = 0,
        storeFetches: UInt64 = 0,
        bypasses: UInt64 = 0,
        storeFailures: UInt64 = 0,
        count: Int = 0,
        capacity: Int
    ) {
        self.hits = hits
        self.misses = misses
        self.coalescedWaits = coalescedWaits
        self.evictions = evictions
        self.storeFetches = storeFetches
        self.bypasses = bypasses
        self.storeFailures = storeFailures
        self.count = count
        self.capacity = capacity
    }
}
