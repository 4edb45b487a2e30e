/// What a list client did wrong, read from a dataset's journal: `GET /admin/report`.
///
/// Each ``Kind`` is a rule about what a good list client does (`ReportCard+Rules.swift`); a finding counts the
/// requests that broke it, names some of them (their `seq`) and says what to do instead. `aborted` is for
/// information: a photo list should cancel the images of rows that scrolled away, and a finding shows it did.
/// Pure: made from entries, tested without a server.
struct ReportCard: Sendable {
    /// The kinds of finding; their names are the contract.
    enum Kind: String, CaseIterable, Sendable {
        case duplicatePage = "duplicate_page"
        case noRevalidation = "no_revalidation"
        case retryBeforeRetryAfter = "retry_before_retry_after"
        case retryStorm = "retry_storm"
        case postRetryWithoutIdempotencyKey = "post_retry_without_idempotency_key"
        case lostUpdateRisk = "lost_update_risk"
        case aborted
        case overfetch
        case ignoredNext = "ignored_next"

        /// What a good client does instead, in one sentence.
        var advice: String {
            switch self {
            case .duplicatePage:
                "Keep the pages you have and revalidate with If-None-Match (or wait for the change feed) instead of "
                    + "fetching the same page again while nothing changed."
            case .noRevalidation:
                "Send the ETag you got back as If-None-Match: a 304 costs no body."
            case .retryBeforeRetryAfter:
                "Wait at least the Retry-After of a 429 or 503 before asking again."
            case .retryStorm:
                "Retry a few times at most, with exponential backoff and jitter, then show the error and a Retry "
                    + "button."
            case .postRetryWithoutIdempotencyKey:
                "Send an Idempotency-Key with every POST and the same key when you resend it, so a retry cannot "
                    + "create a duplicate."
            case .lostUpdateRisk:
                "Send the item's ETag as If-Match with a PATCH or DELETE, so an edit cannot overwrite one you have "
                    + "not seen (412 tells you to reload)."
            case .aborted:
                "For information: requests the client gave up on; cancelling the details and images of rows that "
                    + "scrolled away is right, cancelling pages you then fetch again is not."
            case .overfetch:
                "Load details and images for the rows on screen (and a few ahead), and keep only a handful in flight "
                    + "at once."
            case .ignoredNext:
                "Stop paging when next_page is null or has_more is false."
            }
        }
    }

    /// Where the README explains the report card.
    static let readme = "README.md#the-report-card"

    /// The most `seq`s a finding names.
    static let exampleLimit = 10

    /// One kind of mistake, with the requests that made it.
    struct Finding: Sendable, Equatable {
        let kind: Kind
        /// The requests that made it (for `aborted`, the requests the client abandoned).
        let count: Int
        /// The `seq` of the first of them, at most ``ReportCard/exampleLimit``.
        let examples: [UInt64]
        /// For `aborted`: by route, how many and the bytes their answers would have sent but did not.
        var byRoute: [(route: String, count: Int, wastedBytes: Int)] = []

        static func == (lhs: Finding, rhs: Finding) -> Bool {
            lhs.kind == rhs.kind && lhs.count == rhs.count && lhs.examples == rhs.examples
        }
    }

    /// The findings, in ``Kind``'s order; a kind nothing broke is left out.
    let findings: [Finding]
    /// How many entries were read, and the clients they came from.
    let entryCount: Int
    let clients: [String]

    /// Reads `entries` (one dataset's, oldest first); `maxInFlight` is ``SettingKey/journalMaxInFlightHint``.
    init(_ entries: [JournalEntry], maxInFlight: Int) {
        let rules = ReportRules(entries: entries, maxInFlight: maxInFlight)
        var findings: [Finding] = []
        for kind in Kind.allCases {
            let flagged = rules.flagged(kind)
            guard !flagged.isEmpty else { continue }
            var finding = Finding(
                kind: kind, count: flagged.count, examples: Array(flagged.prefix(Self.exampleLimit)).map(\.seq))
            if kind == .aborted { finding.byRoute = Self.byRoute(flagged) }
            findings.append(finding)
        }
        self.findings = findings
        entryCount = entries.count
        var seen = Set<String>()
        clients = entries.compactMap { seen.insert($0.client).inserted ? $0.client : nil }
    }

    /// Aborted requests by route, with the bytes their answers did not send.
    private static func byRoute(_ aborted: [JournalEntry]) -> [(route: String, count: Int, wastedBytes: Int)] {
        var order: [String] = []
        var sums: [String: (count: Int, wasted: Int)] = [:]
        for entry in aborted {
            if sums[entry.route] == nil { order.append(entry.route) }
            let wasted = max(0, entry.bytes - (entry.abandonedAt ?? 0))
            sums[entry.route, default: (0, 0)].count += 1
            sums[entry.route, default: (0, 0)].wasted += wasted
        }
        return order.map { (route: $0, count: sums[$0]!.count, wastedBytes: sums[$0]!.wasted) }
    }

    /// The JSON of `GET /admin/report`.
    func write(into json: inout JSONWriter, dataset: String, client: String?) {
        json.append(raw: "{\"dataset\":")
        json.append(string: dataset)
        json.append(raw: ",\"client\":")
        if let client { json.append(string: client) } else { json.appendNull() }
        json.append(raw: ",\"entries\":")
        json.append(integer: entryCount)
        json.append(raw: ",\"clients\":[")
        for (index, client) in clients.enumerated() {
            if index > 0 { json.append(raw: ",") }
            json.append(string: client)
        }
        json.append(raw: "],\"findings\":[")
        for (index, finding) in findings.enumerated() {
            if index > 0 { json.append(raw: ",") }
            json.append(raw: "{\"kind\":")
            json.append(string: finding.kind.rawValue)
            json.append(raw: ",\"count\":")
            json.append(integer: finding.count)
            json.append(raw: ",\"examples\":[")
            for (position, seq) in finding.examples.enumerated() {
                if position > 0 { json.append(raw: ",") }
                json.append(integer: seq)
            }
            json.append(raw: "],\"advice\":")
            json.append(string: finding.kind.advice)
            json.append(raw: ",\"readme\":")
            json.append(string: Self.readme)
            if finding.kind == .aborted {
                json.append(raw: ",\"by_route\":[")
                for (position, row) in finding.byRoute.enumerated() {
                    if position > 0 { json.append(raw: ",") }
                    json.append(raw: "{\"route\":")
                    json.append(string: row.route)
                    json.append(raw: ",\"count\":")
                    json.append(integer: row.count)
                    json.append(raw: ",\"wasted_bytes\":")
                    json.append(integer: row.wastedBytes)
                    json.append(raw: "}")
                }
                json.append(raw: "]")
            }
            json.append(raw: "}")
        }
        json.append(raw: "]}")
    }
}
