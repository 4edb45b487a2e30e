import Metrics
import Prometheus
import Synchronization

/// The series of the request journal, brought up to date at every scrape: `listserver_journal_entries`,
/// `…_datasets`, `…_memory_bytes`, `…_memory_budget_bytes` (gauges) and `listserver_journal_dropped_total` (entries
/// written over or dropped for the bounds).
final class JournalSeries: Sendable {
    private let entries: Meter
    private let datasets: Meter
    private let bytes: Meter
    private let budget: Meter
    private let dropped: Metrics.Counter
    /// What was added to the counter so far.
    private let added = Mutex<UInt64>(0)
    /// The journal whose usage the series show, once one is observed.
    private let journal = Mutex<Journal?>(nil)

    init(registry: PrometheusCollectorRegistry, factory: PrometheusMetricsFactory) {
        func gauge(_ name: String, unit: String = "", _ help: String) -> Meter {
            ServerMetrics.meter(registry, factory, ServerMetrics.descriptor("journal", name, unit: unit, help: help))
        }
        entries = gauge("entries", "Requests the journal holds now, every dataset's together.")
        datasets = gauge("datasets", "Datasets with a journal now.")
        bytes = gauge("memory", unit: "bytes", "Memory the journal's entries take, every dataset's together.")
        budget = gauge(
            "memory_budget", unit: "bytes", "The memory the journal may take (\(SettingKey.journalMaxBytes.name)).")
        dropped = ServerMetrics.counter(
            registry, factory,
            ServerMetrics.descriptor(
                "journal", "dropped", unit: "total",
                help: "Journal entries written over or dropped to stay within the journal's bounds."))
    }

    /// Shows `journal`'s usage from now on.
    func observe(_ journal: Journal) {
        self.journal.withLock { $0 = journal }
    }

    /// Sets the gauges, and adds what the dropped entries grew by since the last update.
    func update() {
        guard let journal = journal.withLock({ $0 }) else { return }
        let usage = journal.usage
        entries.set(usage.entries)
        datasets.set(usage.datasets)
        bytes.set(usage.bytes)
        budget.set(journal.settings.maxBytes)
        added.withLock { CacheSeries.advance(dropped, from: &$0, to: UInt64(usage.dropped)) }
    }
}
