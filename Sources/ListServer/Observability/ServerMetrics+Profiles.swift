import ListDomain
import Metrics
import Prometheus
import Synchronization

/// The profiles' series, brought up to date from ``ProfileRegistry/Statistics`` at every scrape:
/// `listserver_profiles_datasets` (datasets with a profile now) and `listserver_profiles_requests_total{cause}`, the
/// requests a profile acted on: `outage`, `scripted`, `rate_limited`, `unauthorized`, and `throttled` (sent at its
/// bandwidth).
final class ProfileSeries: Sendable {
    /// The causes, in the order of ``counts(_:)``.
    private static let causes = ["outage", "scripted", "rate_limited", "unauthorized", "throttled"]
    private let profiles: Meter
    private let counters: [Metrics.Counter]
    /// What was added to each counter so far.
    private let added = Mutex([UInt64](repeating: 0, count: causes.count))

    init(registry: PrometheusCollectorRegistry, factory: PrometheusMetricsFactory) {
        profiles = ServerMetrics.meter(
            registry, factory,
            ServerMetrics.descriptor(
                "profiles", "datasets", help: "Datasets with a profile now (PUT /admin/datasets/<name>/profile)."))
        let answers = ServerMetrics.descriptor(
            "profiles", "requests", unit: "total", help: "Requests a dataset's profile acted on, by cause.")
        counters = Self.causes.map { cause in
            let labels = [("cause", cause)]
            return Metrics.Counter(
                label: answers.name, dimensions: labels,
                handler: registry.makeCounter(descriptor: answers, labels: labels),
                factory: factory)
        }
    }

    /// The counts of `statistics`, in the order of ``causes``.
    private static func counts(_ statistics: ProfileRegistry.Statistics) -> [UInt64] {
        [
            statistics.outages, statistics.scripted, statistics.rateLimited, statistics.unauthorized,
            statistics.throttled,
        ]
    }

    /// Sets the gauge, and adds what each count grew by since the last update.
    func update(_ statistics: ProfileRegistry.Statistics) {
        profiles.set(statistics.profiles)
        added.withLock { added in
            for (index, count) in Self.counts(statistics).enumerated() {
                CacheSeries.advance(counters[index], from: &added[index], to: count)
            }
        }
    }
}
