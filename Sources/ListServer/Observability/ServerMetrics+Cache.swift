import ListDomain
import Metrics
import Prometheus
import Synchronization

/// The detail cache's series, brought up to date from ``DetailCacheStatistics`` at every scrape.
///
/// The cache counts for itself (it is an actor, and ListDomain knows nothing of metrics), so its counts become
/// Prometheus counters by adding, at each scrape, what they grew by since the last one. Two scrapes may race: each
/// adds only what goes beyond the highest value already added, so a counter never goes backwards or counts twice.
final class CacheSeries: Sendable {
    private let hits: Metrics.Counter
    private let misses: Metrics.Counter
    private let coalescedWaits: Metrics.Counter
    private let evictions: Metrics.Counter
    private let storeFetches: Metrics.Counter
    private let storeFailures: Metrics.Counter
    private let bypasses: Metrics.Counter
    private let entries: Meter
    private let capacity: Meter
    /// The values added to the counters so far.
    private let added = Mutex(DetailCacheStatistics(capacity: 0))

    init(registry: PrometheusCollectorRegistry, factory: PrometheusMetricsFactory) {
        func counter(_ name: String, _ help: String) -> Metrics.Counter {
            ServerMetrics.counter(
                registry, factory, ServerMetrics.descriptor("detail", name, unit: "total", help: help))
        }
        func gauge(_ name: String, _ help: String) -> Meter {
            ServerMetrics.meter(registry, factory, ServerMetrics.descriptor("detail", name, help: help))
        }
        hits = counter("cache_hits", "Detail lookups answered from the cache.")
        misses = counter("cache_misses", "Detail lookups that waited for the slow store (started or joined a fetch).")
        coalescedWaits = counter(
            "cache_coalesced_waits", "Misses that joined a store fetch already in flight for the same id.")
        evictions = counter("cache_evictions", "Details evicted because the cache was full (least recently used).")
        storeFetches = counter("store_fetches", "Fetches from the slow store started.")
        storeFailures = counter("store_failures", "Fetches the slow store refused (ids past the end of the catalog).")
        bypasses = counter("cache_bypasses", "Lookups with Cache-Control: no-cache (also counted as misses).")
        entries = gauge("cache_entries", "Details in the cache now.")
        capacity = gauge("cache_capacity", "The most details the cache holds (\(SettingKey.cacheCapacity.name)).")
    }

    /// Adds what each count grew by since the last update, and sets the gauges.
    func update(_ statistics: DetailCacheStatistics) {
        added.withLock { added in
            Self.advance(hits, from: &added.hits, to: statistics.hits)
            Self.advance(misses, from: &added.misses, to: statistics.misses)
            Self.advance(coalescedWaits, from: &added.coalescedWaits, to: statistics.coalescedWaits)
            Self.advance(evictions, from: &added.evictions, to: statistics.evictions)
            Self.advance(storeFetches, from: &added.storeFetches, to: statistics.storeFetches)
            Self.advance(storeFailures, from: &added.storeFailures, to: statistics.storeFailures)
            Self.advance(bypasses, from: &added.bypasses, to: statistics.bypasses)
        }
        entries.set(statistics.count)
        capacity.set(statistics.capacity)
    }

    /// Increments `counter` by how far `value` is past `added`, and remembers the new high mark (shared with
    /// ``ImageSeries``).
    static func advance(_ counter: Metrics.Counter, from added: inout UInt64, to value: UInt64) {
        guard value > added else { return }
        counter.increment(by: Int64(clamping: value - added))
        added = value
    }
}
