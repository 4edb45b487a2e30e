import Metrics
import Prometheus

/// The write path's series: `listserver_writes_total{method,outcome}` (answers to POST, PATCH and DELETE of items
/// and PUT of an item's image, by status class: `created`, `ok`, `replayed`, `rejected`, `failed`) and `listserver_store_commit_duration_seconds`
/// (one observation per group commit, with `listserver_store_commit_writes_total` counting the writes carried).
///
/// Every series is made once, at start (all at 0), and kept: made through the registry at each write, as at first,
/// each answer paid for building the descriptor, sanitizing its help text and a locked lookup.
final class WriteSeries: Sendable {
    /// The methods and outcomes of `listserver_writes_total`, in the order of ``answers``.
    static let methods = ["POST", "PUT", "PATCH", "DELETE"]
    static let outcomes = ["created", "ok", "replayed", "rejected", "failed"]

    /// The upper bounds of the commit histogram's buckets: 50 µs to 1 s (an fsync on this kind of disk takes
    /// about a millisecond; a busy one, more).
    static let commitBuckets: [Duration] = [
        .microseconds(50), .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1),
        .microseconds(2500), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
        .milliseconds(100), .milliseconds(250), .seconds(1),
    ]

    /// `listserver_writes_total`, method by method, outcome by outcome.
    private let answers: [Prometheus.Counter]
    private let commitDuration: Prometheus.DurationHistogram
    private let commitWrites: Prometheus.Counter

    init(registry: PrometheusCollectorRegistry) {
        let name = ServerMetrics.descriptor(
            "", "writes", unit: "total",
            help: "Answers to writes (POST, PATCH, DELETE of items, PUT of images), by method and outcome.")
        answers = Self.methods.flatMap { method in
            Self.outcomes.map { outcome in
                registry.makeCounter(descriptor: name, labels: [("method", method), ("outcome", outcome)])
            }
        }
        commitDuration = registry.makeDurationHistogram(
            descriptor: ServerMetrics.descriptor(
                "store", "commit_duration", unit: "seconds", help: "Time a group commit of writes took in the store."),
            labels: [], buckets: Self.commitBuckets)
        commitWrites = registry.makeCounter(
            descriptor: ServerMetrics.descriptor(
                "store", "commit_writes", unit: "total",
                help: "Writes carried by group commits (divide by the commit count for the group size)."),
            labels: [])
    }

    /// Counts one write's answer.
    func recordWrite(method: String, status: Int, replayed: Bool) {
        guard let methodIndex = Self.methods.firstIndex(of: method) else { return }
        let outcome =
            switch status {
            case _ where replayed: 2
            case 201: 0
            case 200..<300: 1
            case 500..<600: 4
            default: 3
            }
        answers[methodIndex * Self.outcomes.count + outcome].increment()
    }

    /// Records one group commit.
    func recordCommit(_ duration: Duration, writes: Int) {
        commitDuration.record(duration)
        commitWrites.increment(by: Int64(writes))
    }
}
