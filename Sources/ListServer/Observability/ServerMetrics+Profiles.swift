import ListDomain
import Metrics
import Prometheus
import Synchronization

/// The profiles' series, brought up to date from ``ProfileRegistry/Statistics`` at every scrape:
/// `listserver_profiles_datasets` (datasets with a profile now) and `listserver_profiles_requests_total{cause}`, the
/// requests a profile acted on (`outage`, `scripted`).
final class ProfileSeries: Sendable {
    private let profiles: Meter
    private let outages: Metrics.Counter
    private let scripted: Metrics.Counter
    /// What was added to the counters so far.
    private let added = Mutex((outages: UInt64(0), scripted: UInt64(0)))

    init(registry: PrometheusCollectorRegistry, factory: PrometheusMetricsFactory) {
        profiles = ServerMetrics.meter(
            registry, factory,
            ServerMetrics.descriptor(
                "profiles", "datasets", help: "Datasets with a profile now (PUT /admin/datasets/<name>/profile)."))
        let answers = ServerMetrics.descriptor(
            "profiles", "requests", unit: "total", help: "Requests a dataset's profile acted on, by cause.")
        func counter(_ cause: String) -> Metrics.Counter {
            let labels = [("cause", cause)]
            return Metrics.Counter(
                label: answers.name, dimensions: labels,
                handler: registry.makeCounter(descriptor: answers, labels: labels),
                factory: factory)
        }
        outages = counter("outage")
        scripted = counter("scripted")
    }

    /// Sets the gauge, and adds what each count grew by since the last update.
    func update(_ statistics: ProfileRegistry.Statistics) {
        profiles.set(statistics.profiles)
        added.withLock { added in
            CacheSeries.advance(outages, from: &added.outages, to: statistics.outages)
            CacheSeries.advance(scripted, from: &added.scripted, to: statistics.scripted)
        }
    }
}
