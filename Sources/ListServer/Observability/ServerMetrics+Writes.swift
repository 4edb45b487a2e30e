import Metrics
import Prometheus

/// The write path's series: `listserver_writes_total{method,outcome}` (answers to POST, PATCH and DELETE of items,
/// by status class: `created`, `ok`, `replayed`, `rejected`, `failed`) and `listserver_store_commit_duration_seconds`
/// (one observation per group commit, with `listserver_store_commit_writes_total` counting the writes carried).
extension ServerMetrics {
    /// The upper bounds of the commit histogram's buckets: 50 µs to 1 s (an fsync on this kind of disk takes
    /// about a millisecond; a busy one, more).
    static let commitBuckets: [Duration] = [
        .microseconds(50), .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1),
        .microseconds(2500), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
        .milliseconds(100), .milliseconds(250), .seconds(1),
    ]

    /// Counts one write's answer.
    func recordWrite(method: String, status: Int, replayed: Bool) {
        let outcome: String
        switch status {
        case _ where replayed: outcome = "replayed"
        case 201: outcome = "created"
        case 200..<300: outcome = "ok"
        case 500..<600: outcome = "failed"
        default: outcome = "rejected"
        }
        let name = Self.descriptor(
            "", "writes", unit: "total", help: "Answers to item writes (POST, PATCH, DELETE), by method and outcome.")
        let labels = [("method", method), ("outcome", outcome)]
        registry.makeCounter(descriptor: name, labels: labels).increment()
    }

    /// Records one group commit.
    func recordCommit(_ duration: Duration, writes: Int) {
        let name = Self.descriptor(
            "store", "commit_duration", unit: "seconds", help: "Time a group commit of writes took in the store.")
        registry.makeDurationHistogram(descriptor: name, labels: [], buckets: Self.commitBuckets).record(duration)
        let count = Self.descriptor(
            "store", "commit_writes", unit: "total", help: "Writes carried by group commits (divide by the commit "
                + "count for the group size).")
        registry.makeCounter(descriptor: count, labels: []).increment(by: Int64(writes))
    }
}
