import ListDomain
import Metrics
import Prometheus
import Synchronization

/// The series of the lists in memory, brought up to date from ``ListMemoryStatistics`` at every scrape:
/// `listserver_datasets_in_memory`, `…_out_of_memory`, `…_memory_bytes`, `…_memory_budget_bytes` (gauges) and
/// `listserver_datasets_evictions_total` (lists that left memory for ``SettingKey/maxMemoryBytes``).
final class DatasetSeries: Sendable {
    private let inMemory: Meter
    private let outOfMemory: Meter
    private let bytes: Meter
    private let budget: Meter
    private let evictions: Metrics.Counter
    /// What was added to the counter so far.
    private let added = Mutex<UInt64>(0)

    init(registry: PrometheusCollectorRegistry, factory: PrometheusMetricsFactory) {
        func gauge(_ name: String, unit: String = "", _ help: String) -> Meter {
            ServerMetrics.meter(registry, factory, ServerMetrics.descriptor("datasets", name, unit: unit, help: help))
        }
        inMemory = gauge("in_memory", "Lists in memory now (the default list among them once written to).")
        outOfMemory = gauge("out_of_memory", "Stored datasets not in memory now: read again on their next use.")
        bytes = gauge("memory", unit: "bytes", "Memory the lists in memory take, both copies counted.")
        budget = gauge(
            "memory_budget", unit: "bytes", "The memory the lists may take (\(SettingKey.maxMemoryBytes.name)).")
        evictions = ServerMetrics.counter(
            registry, factory,
            ServerMetrics.descriptor(
                "datasets", "evictions", unit: "total", help: "Datasets taken out of memory to stay in the budget."))
    }

    /// Sets the gauges, and adds what the evictions grew by since the last update.
    func update(_ statistics: ListMemoryStatistics) {
        inMemory.set(statistics.inMemory)
        outOfMemory.set(statistics.outOfMemory)
        bytes.set(statistics.bytes)
        budget.set(statistics.budget == .max ? 0 : statistics.budget)
        added.withLock { CacheSeries.advance(evictions, from: &$0, to: UInt64(statistics.evictions)) }
    }
}
