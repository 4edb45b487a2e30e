/// The rules of the ``ReportCard``: for each kind, the requests that broke it, oldest first.
///
/// Every rule but `overfetch`'s first half reads one client's requests at a time (a client is its `X-Client-Id`, or
/// one connection of a client that sends none), in the order they started. Times are the entries' microseconds.
struct ReportRules {
    /// Within this of the same page's last fetch, fetching it again is a duplicate.
    static let duplicateWindow: Int64 = 10_000_000
    /// More than ``stormAttempts`` attempts at one URL within ``stormWindow`` after failures is a storm.
    static let stormWindow: Int64 = 10_000_000
    static let stormAttempts = 5
    /// Three retries in a row, each within this of the failure before it, whose later gaps both stay under half
    /// again the first, have no backoff.
    static let backoffGap: Int64 = 1_000_000
    /// Two POSTs of the same body within this are a retry.
    static let postWindow: Int64 = 30_000_000

    /// The routes of list pages, and of per-item extras (details and images).
    static let pageRoutes: Set<String> = ["/items", "/v2/list"]
    static let extraRoutes: Set<String> = ["/items/{id}/detail", "/items/{id}/image", "/items/{id}/image.{format}"]

    let entries: [JournalEntry]
    let maxInFlight: Int
    /// Each client's entries, by when they started.
    private let byClient: [[JournalEntry]]

    init(entries: [JournalEntry], maxInFlight: Int) {
        self.entries = entries
        self.maxInFlight = maxInFlight
        var groups: [String: [JournalEntry]] = [:]
        var order: [String] = []
        for entry in entries {
            if groups[entry.client] == nil { order.append(entry.client) }
            groups[entry.client, default: []].append(entry)
        }
        byClient = order.map { groups[$0]!.sorted { ($0.start, $0.seq) < ($1.start, $1.seq) } }
    }

    /// The requests that broke `kind`'s rule, by `seq`.
    func flagged(_ kind: ReportCard.Kind) -> [JournalEntry] {
        let found: [JournalEntry] =
            switch kind {
            case .duplicatePage: byClient.flatMap(Self.duplicatePages)
            case .noRevalidation: byClient.flatMap(Self.unrevalidated)
            case .retryBeforeRetryAfter: byClient.flatMap(Self.earlyRetries)
            case .retryStorm: byClient.flatMap(Self.storms)
            case .postRetryWithoutIdempotencyKey: byClient.flatMap(Self.keylessPostRetries)
            case .lostUpdateRisk: byClient.flatMap(Self.unconditionalEdits)
            case .aborted: entries.filter(\.aborted)
            case .overfetch: overfetched()
            case .ignoredNext: byClient.flatMap(Self.pastTheEnd)
            }
        return found.sorted { $0.seq < $1.seq }
    }

    /// A method and target: what a retry repeats.
    private static func key(_ entry: JournalEntry) -> String { entry.method.name + " " + entry.target }

    /// Whether the answer was a failure a client may retry: no answer, a 5xx, a 429, or an injected wire fault.
    static func failed(_ entry: JournalEntry) -> Bool {
        entry.status == 0 || entry.status >= 500 || entry.status == 429
            || (entry.fault.map { ["reset", "truncated", "hang"].contains($0) } ?? false)
    }

    // MARK: Rules

    /// A page fetched again within 10 s, unconditionally, and answered with the same ETag.
    static func duplicatePages(_ requests: [JournalEntry]) -> [JournalEntry] {
        var last: [String: JournalEntry] = [:]
        var found: [JournalEntry] = []
        for entry in requests where entry.method == .get && pageRoutes.contains(entry.route) && entry.status == 200 {
            if let previous = last[entry.target], entry.ifNoneMatch == nil, let tag = entry.etag, previous.etag == tag,
                entry.start - previous.start <= duplicateWindow
            {
                found.append(entry)
            }
            last[entry.target] = entry
        }
        return found
    }

    /// The third and later unconditional fetches of a URL that came with an ETag.
    static func unrevalidated(_ requests: [JournalEntry]) -> [JournalEntry] {
        var counts: [String: Int] = [:]
        var found: [JournalEntry] = []
        for entry in requests where entry.method == .get && entry.status == 200 && entry.etag != nil {
            guard entry.ifNoneMatch == nil else { continue }
            counts[entry.target, default: 0] += 1
            if counts[entry.target]! >= 3 { found.append(entry) }
        }
        return found
    }

    /// A request repeated after a 429 or 503 sooner than its Retry-After.
    static func earlyRetries(_ requests: [JournalEntry]) -> [JournalEntry] {
        var waits: [String: (until: Int64, answered: Int64)] = [:]
        var found: [JournalEntry] = []
        for entry in requests {
            let key = key(entry)
            if let wait = waits[key], entry.start >= wait.answered, entry.start < wait.until {
                found.append(entry)
            }
            if entry.status == 429 || entry.status == 503, let seconds = entry.retryAfter {
                waits[key] = (entry.end + Int64(seconds) * 1_000_000, entry.end)
            } else if entry.start >= (waits[key]?.answered ?? .max) {
                waits[key] = nil
            }
        }
        return found
    }

    /// Retries of one URL after failures: more than five attempts within 10 s, or three quick retries in a row that
    /// do not space out, after failures that gave no Retry-After.
    static func storms(_ requests: [JournalEntry]) -> [JournalEntry] {
        var flagged = Set<UInt64>()
        var found: [JournalEntry] = []
        func flag(_ entry: JournalEntry) {
            if flagged.insert(entry.seq).inserted { found.append(entry) }
        }
        for attempts in Dictionary(grouping: requests, by: key).values {
            // (the retry, the failure before it)
            var retries: [(retry: JournalEntry, after: JournalEntry)] = []
            for (previous, entry) in zip(attempts, attempts.dropFirst()) where failed(previous) {
                if entry.start >= previous.end { retries.append((entry, previous)) }
            }
            // More than five attempts (a failure and five retries) within the window.
            var first = 0
            var flaggedUpTo = -1  // each retry flagged once, however many windows hold it
            for last in retries.indices {
                while first < last && retries[last].retry.start - retries[first].after.start > stormWindow {
                    first += 1
                }
                if last - first + 1 >= stormAttempts {
                    for index in max(first, flaggedUpTo + 1)...last { flag(retries[index].retry) }
                    flaggedUpTo = last
                }
            }
            // No backoff: three quick retries in a row, each after the failure of the one before, whose later gaps
            // do not grow past half again the first (backoff doubles them; jitter rarely keeps both that short).
            for index in retries.indices.dropFirst(2) {
                let run = retries[(index - 2)...index]
                let chained = zip(run, run.dropFirst()).allSatisfy { $1.after.seq == $0.retry.seq }
                let gaps = run.map { $0.retry.start - $0.after.end }
                let quick = run.allSatisfy { $0.after.retryAfter == nil } && gaps.allSatisfy { $0 < backoffGap }
                let limit = max(gaps[0], 1) * 3 / 2
                if chained && quick && gaps[1] < limit && gaps[2] < limit {
                    for (retry, _) in run { flag(retry) }
                }
            }
        }
        return found
    }

    /// A POST of a body this client POSTed to the same URL within 30 s, without an Idempotency-Key.
    static func keylessPostRetries(_ requests: [JournalEntry]) -> [JournalEntry] {
        var sent: [String: Int64] = [:]
        var found: [JournalEntry] = []
        for entry in requests where entry.method == .post && entry.route == "/items" {
            guard let hash = entry.bodyHash else { continue }
            let key = "\(hash) \(entry.target)"
            if let earlier = sent[key], entry.start - earlier <= postWindow, entry.idempotencyKey == nil {
                found.append(entry)
            }
            sent[key] = entry.start
        }
        return found
    }

    /// A PATCH or DELETE without If-Match of an item this client read with an ETag.
    static func unconditionalEdits(_ requests: [JournalEntry]) -> [JournalEntry] {
        var read = Set<UInt64>()
        var found: [JournalEntry] = []
        for entry in requests where entry.route == "/items/{id}" {
            guard let id = itemID(entry.target) else { continue }
            switch entry.method {
            case .get, .head:
                if entry.status == 200 && entry.etag != nil { read.insert(id) }
            case .patch, .delete:
                if entry.ifMatch == nil && read.contains(id) { found.append(entry) }
            default:
                break
            }
        }
        return found
    }

    /// Details and images of ids no page of the dataset had listed when they were asked for (once a page had been
    /// loaded at all: an app opened on one item, or a journal that no longer holds the pages, says nothing), and
    /// those a client asked for while more than ``maxInFlight`` others of its own were in flight.
    func overfetched() -> [JournalEntry] {
        var found: [JournalEntry] = []
        var listed = IDRanges()
        let byStart = entries.sorted { ($0.start, $0.seq) < ($1.start, $1.seq) }
        // Pages count from when they were answered: a row is on screen once its page is.
        // Pages, and what else gives a client ids: an item, a created one, the change feed.
        let pages = byStart.filter { $0.listed != nil && ((200...299).contains($0.status) || $0.status == 304) }
            .sorted { $0.end < $1.end }
        var nextPage = 0
        var pageLoaded = false  // a list page, not only an item, a write or the feed
        for entry in byStart where Self.extraRoutes.contains(entry.route) && entry.method == .get {
            while nextPage < pages.count, pages[nextPage].end <= entry.start {
                let source = pages[nextPage]
                if let ids = source.listed, ids.count > 0 { listed.insert(ids.lowest...ids.highest) }
                if source.method == .get, Self.pageRoutes.contains(source.route) { pageLoaded = true }
                nextPage += 1
            }
            if pageLoaded, let id = Self.itemID(entry.target), !listed.contains(id) { found.append(entry) }
        }
        for requests in byClient {
            var inFlight: [Int64] = []  // the ends of the extras in flight, as a min-heap would hold them
            for entry in requests where Self.extraRoutes.contains(entry.route) {
                inFlight.removeAll { $0 <= entry.start }
                inFlight.append(entry.end)
                if inFlight.count > maxInFlight { found.append(entry) }
            }
        }
        var seen = Set<UInt64>()
        return found.filter { seen.insert($0.seq).inserted }
    }

    /// Pages past the end: a page number after the one that said `next_page: null`, or a `before` cursor at or
    /// below the oldest id of a page that said `has_more: false` (same path, limit and order).
    static func pastTheEnd(_ requests: [JournalEntry]) -> [JournalEntry] {
        var lastPage: [String: UInt64] = [:]
        var oldest: [String: UInt64] = [:]
        var found: [JournalEntry] = []
        for entry in requests where entry.method == .get && entry.route == "/items" {
            guard let query = PageQueryShape(entry.target) else { continue }
            if let page = query.page, let last = lastPage[query.key], page > last {
                found.append(entry)
            } else if let before = query.before, let bottom = oldest[query.key], before <= bottom {
                found.append(entry)
            }
            guard entry.status == 200 || entry.status == 304, let ids = entry.listed else { continue }
            guard ids.last else {
                // The list grew: the page said last before is not the last any more.
                if let page = query.page, let last = lastPage[query.key], page <= last { lastPage[query.key] = nil }
                continue
            }
            if query.after == nil && query.before == nil {
                lastPage[query.key] = query.page ?? 1  // the latest: a list that grew has more pages now
            }
            if query.before != nil || query.order == "desc" {
                oldest[query.key] = ids.count > 0 ? ids.lowest : (query.before ?? 0)
            }
        }
        return found
    }

    /// The item id of `/items/<id>…` (under a `/d/<name>` base too).
    static func itemID(_ target: String) -> UInt64? {
        var path = target.utf8.prefix { $0 != UInt8(ascii: "?") }[...]
        if path.starts(with: "/d/".utf8) {
            path = path.dropFirst(3).drop { $0 != UInt8(ascii: "/") }
        }
        guard path.starts(with: "/items/".utf8) else { return nil }
        let digits = path.dropFirst(7).prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        guard !digits.isEmpty, digits.count <= 19 else { return nil }
        return digits.reduce(0) { $0 * 10 + UInt64($1 - UInt8(ascii: "0")) }
    }
}
