/// A scraped Prometheus text exposition, read back into numbers for tests.
struct PrometheusText {
    /// Every sample by its series as written, `name{label="value",…}`.
    let samples: [String: Double]
    /// The `# TYPE` of every metric family.
    let types: [String: String]
    /// The `# HELP` of every metric family.
    let helps: [String: String]

    /// Parses `text`; a malformed line is a thrown ``TestFailure``.
    init(_ text: String) throws {
        var samples: [String: Double] = [:]
        var types: [String: String] = [:]
        var helps: [String: String] = [:]
        for line in text.split(separator: "\n") {
            if line.hasPrefix("# TYPE ") || line.hasPrefix("# HELP ") {
                let parts = line.dropFirst(7).split(separator: " ", maxSplits: 1)
                guard parts.count == 2 else { throw TestFailure("bad comment line: \(line)") }
                if line.hasPrefix("# TYPE ") {
                    types[String(parts[0])] = String(parts[1])
                } else {
                    helps[String(parts[0])] = String(parts[1])
                }
                continue
            }
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else {
                throw TestFailure("bad sample line: \(line)")
            }
            guard samples.updateValue(value, forKey: String(line[..<space])) == nil else {
                throw TestFailure("series twice: \(line)")
            }
        }
        self.samples = samples
        self.types = types
        self.helps = helps
    }

    /// The value of `series` (`name` or `name{a="b"}`), or 0 when it is not there.
    subscript(series: String) -> Double {
        samples[series] ?? 0
    }

    /// `listserver_http_requests_total` for one route template and status.
    func requests(_ route: String, _ status: Int) -> Double {
        self[#"listserver_http_requests_total{route="\#(route)",status="\#(status)"}"#]
    }

    /// The count of the duration histogram for one route template.
    func durationCount(_ route: String) -> Double {
        self[#"listserver_http_request_duration_seconds_count{route="\#(route)"}"#]
    }

    /// One bucket of the duration histogram: requests on `route` that took at most `le` seconds.
    func durationBucket(_ route: String, le: String) -> Double {
        self[#"listserver_http_request_duration_seconds_bucket{route="\#(route)",le="\#(le)"}"#]
    }
}

extension PrometheusText: CustomStringConvertible {
    /// Every sample but the histogram buckets, one `series value` a line in series order, for failure messages.
    var description: String {
        samples.filter { !$0.key.contains("_bucket{") }.sorted { $0.key < $1.key }
            .map { "\($0.key) \($0.value)" }.joined(separator: "\n")
    }
}
