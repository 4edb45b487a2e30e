import ListDomain
import Metrics
import Prometheus
import Synchronization

/// The image cache's series, brought up to date from ``ImageCacheStatistics`` at every scrape (as ``CacheSeries``
/// does for details: counts grow by what they grew since the last scrape, gauges are set).
final class ImageSeries: Sendable {
    private let hits: Metrics.Counter
    private let misses: Metrics.Counter
    private let coalescedWaits: Metrics.Counter
    private let bypasses: Metrics.Counter
    private let encodes: Metrics.Counter
    private let failures: Metrics.Counter
    private let evictions: Metrics.Counter
    private let entries: Meter
    private let bytes: Meter
    private let capacity: Meter
    /// The values added to the counters so far.
    private let added = Mutex(ImageCacheStatistics(capacityBytes: 0))

    init(registry: PrometheusCollectorRegistry, factory: PrometheusMetricsFactory) {
        func counter(_ name: String, _ help: String) -> Metrics.Counter {
            ServerMetrics.counter(registry, factory, ServerMetrics.descriptor("image", name, unit: "total", help: help))
        }
        func gauge(_ name: String, _ help: String) -> Meter {
            ServerMetrics.meter(registry, factory, ServerMetrics.descriptor("image", name, help: help))
        }
        hits = counter("cache_hits", "Image lookups answered from the cache.")
        misses = counter("cache_misses", "Image lookups that waited for the store and an encode (started or joined).")
        coalescedWaits = counter("cache_coalesced_waits", "Misses that joined an encode already in flight.")
        bypasses = counter("cache_bypasses", "Image lookups with Cache-Control: no-cache (each encodes afresh).")
        encodes = counter("encodes", "Images drawn and encoded.")
        failures = counter("encode_failures", "Encodes refused: the workers were busy, or a codec failed.")
        evictions = counter("cache_evictions", "Images evicted to stay within \(SettingKey.imageCacheBytes.name).")
        entries = gauge("cache_entries", "Encoded images in the cache now.")
        bytes = gauge("cache_bytes", "Bytes of encoded images in the cache now.")
        capacity = gauge(
            "cache_capacity_bytes", "The most bytes the image cache keeps (\(SettingKey.imageCacheBytes.name)).")
    }

    /// Adds what each count grew by since the last update, and sets the gauges.
    func update(_ statistics: ImageCacheStatistics) {
        added.withLock { added in
            CacheSeries.advance(hits, from: &added.hits, to: statistics.hits)
            CacheSeries.advance(misses, from: &added.misses, to: statistics.misses)
            CacheSeries.advance(coalescedWaits, from: &added.coalescedWaits, to: statistics.coalescedWaits)
            CacheSeries.advance(bypasses, from: &added.bypasses, to: statistics.bypasses)
            CacheSeries.advance(encodes, from: &added.encodes, to: statistics.encodes)
            CacheSeries.advance(failures, from: &added.failures, to: statistics.failures)
            CacheSeries.advance(evictions, from: &added.evictions, to: statistics.evictions)
        }
        entries.set(statistics.entries)
        bytes.set(statistics.bytes)
        capacity.set(statistics.capacityBytes)
    }
}
