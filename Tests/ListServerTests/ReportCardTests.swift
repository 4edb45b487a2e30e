import Testing

@testable import ListServer

/// The report card's rules on entries made by hand: each kind found where a client breaks it, and not where a
/// client does what the advice says.
@Suite("Report card: the rules")
struct ReportCardTests {
    /// An entry of client `a` at `ms` milliseconds, taking `took` ms.
    static func entry(
        _ seq: UInt64, _ target: String, method: HTTPMethod = .get, route: String, status: Int = 200,
        at ms: Double, took: Double = 1, client: String = "a", etag: String? = nil, ifNoneMatch: String? = nil,
        retryAfter: Int? = nil, ifMatch: String? = nil, key: String? = nil, bodyHash: Int? = nil,
        listed: JournalEntry.ListedIDs? = nil, abandonedAt: Int? = nil, bytes: Int = 100, fault: String? = nil
    ) -> JournalEntry {
        var entry = JournalEntry(
            seq: seq, start: Int64(ms * 1000), duration: Int64(took * 1000), client: client, method: method,
            target: target, route: route, status: status, bytes: bytes)
        entry.etag = etag
        entry.ifNoneMatch = ifNoneMatch
        entry.retryAfter = retryAfter
        entry.ifMatch = ifMatch
        entry.idempotencyKey = key
        entry.bodyHash = bodyHash
        entry.listed = listed
        entry.abandonedAt = abandonedAt
        entry.fault = fault
        return entry
    }

    static func findings(_ entries: [JournalEntry], maxInFlight: Int = 16) -> [String: ReportCard.Finding] {
        let card = ReportCard(entries, maxInFlight: maxInFlight)
        return Dictionary(uniqueKeysWithValues: card.findings.map { ($0.kind.rawValue, $0) })
    }

    static let page1 = JournalEntry.ListedIDs(lowest: 0, highest: 19, count: 20, last: false)

    @Test("duplicate_page: the same page again within 10 s, unconditionally, with the same ETag")
    func duplicatePage() {
        let twice = [
            Self.entry(1, "/items?page=1", route: "/items", at: 0, etag: "\"e1\"", listed: Self.page1),
            Self.entry(2, "/items?page=1", route: "/items", at: 2000, etag: "\"e1\"", listed: Self.page1),
        ]
        #expect(Self.findings(twice)["duplicate_page"]?.examples == [2])
        var revalidated = twice
        revalidated[1].ifNoneMatch = "\"e1\""
        #expect(Self.findings(revalidated)["duplicate_page"] == nil)
        var changed = twice
        changed[1].etag = "\"e2\""  // something changed: fetching again was right
        #expect(Self.findings(changed)["duplicate_page"] == nil)
        var later = twice
        later[1].start = 10_001_000
        #expect(Self.findings(later)["duplicate_page"] == nil)
        var otherClient = twice
        otherClient[1].client = "b"
        #expect(Self.findings(otherClient).isEmpty)
    }

    @Test("no_revalidation: the third unconditional fetch of a URL that came with an ETag, and each after it")
    func noRevalidation() {
        let image = (0..<4).map {
            Self.entry(
                UInt64($0 + 1), "/items/2/image", route: "/items/{id}/image", at: Double($0) * 20_000, etag: "\"i\"")
        }
        #expect(Self.findings(Array(image.prefix(2)))["no_revalidation"] == nil)
        #expect(Self.findings(image)["no_revalidation"]?.examples == [3, 4])
        var conditional = image
        conditional[2].ifNoneMatch = "\"i\""
        conditional[3].ifNoneMatch = "\"i\""
        #expect(Self.findings(conditional)["no_revalidation"] == nil)
    }

    @Test("retry_before_retry_after: asking again sooner than the 503's Retry-After, not after it")
    func retryBeforeRetryAfter() {
        let failed = Self.entry(1, "/items/3/detail", route: "/items/{id}/detail", status: 503, at: 0, retryAfter: 1)
        let early = Self.entry(2, "/items/3/detail", route: "/items/{id}/detail", at: 500)
        let patient = Self.entry(2, "/items/3/detail", route: "/items/{id}/detail", at: 1200)
        #expect(Self.findings([failed, early])["retry_before_retry_after"]?.examples == [2])
        #expect(Self.findings([failed, patient]).isEmpty)
        // A request sent before the 503 came back is no retry of it.
        let concurrent = Self.entry(2, "/items/3/detail", route: "/items/{id}/detail", at: 0.5)
        #expect(Self.findings([failed, concurrent]).isEmpty)
    }

    @Test("retry_storm: quick retries that do not back off, or more than five attempts in 10 s; backoff is fine")
    func retryStorm() {
        func attempts(_ gaps: [Double], status: Int = 500, retryAfter: Int? = nil) -> [JournalEntry] {
            var time = 0.0
            var entries: [JournalEntry] = []
            for (index, gap) in ([0] + gaps).enumerated() {
                time += gap
                let last = index == gaps.count
                entries.append(
                    Self.entry(
                        UInt64(index + 1), "/items/4/detail", route: "/items/{id}/detail", status: last ? 200 : status,
                        at: time, took: 1, retryAfter: last ? nil : retryAfter))
                time += 1
            }
            return entries
        }
        // Three retries 50 ms after each failure: no backoff.
        #expect(Self.findings(attempts([50, 50, 50]))["retry_storm"]?.examples == [2, 3, 4])
        // Exponential backoff: 100, 200, 400 ms; linear: 100, 200, 300 ms.
        #expect(Self.findings(attempts([100, 200, 400])).isEmpty)
        #expect(Self.findings(attempts([100, 200, 300])).isEmpty)
        // A steady 100 ms with some jitter is still none; full jitter on a doubling base is backoff.
        #expect(Self.findings(attempts([100, 140, 110]))["retry_storm"]?.count == 3)
        #expect(Self.findings(attempts([80, 40, 150])).isEmpty)
        // One patient retry, 11 s after its failure (the window's start passes it: the card once crashed here).
        #expect(Self.findings(attempts([11_000], status: 503, retryAfter: 1)).isEmpty)
        #expect(Self.findings(attempts([11_000, 11_000, 11_000], status: 500)).isEmpty)
        // Two quick retries: not yet a storm.
        #expect(Self.findings(attempts([50, 50])).isEmpty)
        // Retry-After honoured each time, but six attempts within 10 s.
        let patient = attempts([1100, 1100, 1100, 1100, 1100], status: 503, retryAfter: 1)
        #expect(Self.findings(patient)["retry_storm"]?.count == 5)
        #expect(Self.findings(patient)["retry_before_retry_after"] == nil)
        #expect(Self.findings(Array(patient.prefix(5))).isEmpty, "five attempts are allowed")
    }

    @Test("post_retry_without_idempotency_key: the same body POSTed again within 30 s without a key")
    func postRetry() {
        let first = Self.entry(1, "/items", method: .post, route: "/items", status: 201, at: 0, bodyHash: 7)
        let again = Self.entry(2, "/items", method: .post, route: "/items", status: 201, at: 3000, bodyHash: 7)
        #expect(Self.findings([first, again])["post_retry_without_idempotency_key"]?.examples == [2])
        var keyed = again
        keyed.idempotencyKey = "k1"
        #expect(Self.findings([first, keyed]).isEmpty)
        var other = again
        other.bodyHash = 8
        #expect(Self.findings([first, other]).isEmpty)
        var later = again
        later.start = 31_000_000
        #expect(Self.findings([first, later]).isEmpty)
    }

    @Test("lost_update_risk: a PATCH or DELETE without If-Match of an item read with an ETag")
    func lostUpdate() {
        let read = Self.entry(1, "/d/x/items/5", route: "/items/{id}", at: 0, etag: "\"r1\"")
        let patch = Self.entry(2, "/d/x/items/5", method: .patch, route: "/items/{id}", at: 10)
        let delete = Self.entry(3, "/d/x/items/5?x=1", method: .delete, route: "/items/{id}", at: 20)
        #expect(Self.findings([read, patch, delete])["lost_update_risk"]?.examples == [2, 3])
        var guarded = patch
        guarded.ifMatch = "\"r1\""
        #expect(Self.findings([read, guarded]).isEmpty)
        let unread = Self.entry(2, "/items/6", method: .patch, route: "/items/{id}", at: 10)
        #expect(Self.findings([read, unread]).isEmpty)
    }

    @Test("aborted: counted by route with the bytes not sent")
    func aborted() throws {
        let entries = [
            Self.entry(1, "/items/1/image", route: "/items/{id}/image", at: 0, abandonedAt: 0, bytes: 5000),
            Self.entry(2, "/items/2/image", route: "/items/{id}/image", at: 1, abandonedAt: 1000, bytes: 5000),
            Self.entry(3, "/items/3/detail", route: "/items/{id}/detail", at: 2, abandonedAt: 0, bytes: 40),
            Self.entry(4, "/items/4/detail", route: "/items/{id}/detail", at: 3),
        ]
        let finding = try #require(Self.findings(entries)["aborted"])
        #expect(finding.count == 3 && finding.examples == [1, 2, 3])
        #expect(finding.byRoute.map(\.route) == ["/items/{id}/image", "/items/{id}/detail"])
        #expect(finding.byRoute.map(\.count) == [2, 1])
        #expect(finding.byRoute.map(\.wastedBytes) == [9000, 40])
    }

    @Test("overfetch: extras of ids no page had listed yet, and more than the hint in flight from one client")
    func overfetch() {
        let page = Self.entry(1, "/items?page=1&limit=20", route: "/items", at: 0, took: 5, listed: Self.page1)
        let onPage = Self.entry(2, "/items/5/detail", route: "/items/{id}/detail", at: 10)
        let farAhead = Self.entry(3, "/items/500/detail", route: "/items/{id}/detail", at: 10)
        let tooSoon = Self.entry(4, "/items/6/image", route: "/items/{id}/image", at: 1)  // before the page came
        #expect(Self.findings([page, onPage, farAhead])["overfetch"]?.examples == [3])
        #expect(Self.findings([page, onPage, tooSoon]).isEmpty, "no page loaded yet: an app opened on one item")
        let secondPage = Self.entry(5, "/items?page=2&limit=20", route: "/items", at: 0, took: 5, listed: Self.page1)
        #expect(Self.findings([page, secondPage, farAhead])["overfetch"]?.examples == [3])
        // Another client's page counts: the dataset is one app (`<img>` requests come from connections of their own).
        var imageConnection = onPage
        imageConnection.client = "peer:127.0.0.1:5000"
        #expect(Self.findings([page, imageConnection]).isEmpty)
        // Ids learned from a POST's 201, an item, or the change feed are listed too; a failed POST lists nothing.
        let mine = JournalEntry.ListedIDs(lowest: 500, highest: 500, count: 1, last: false)
        let created = Self.entry(
            6, "/items", method: .post, route: "/items", status: 201, at: 0, took: 5, listed: mine)
        #expect(Self.findings([page, created, farAhead]).isEmpty)
        let fed = Self.entry(6, "/items/changes?since=0", route: "/items/changes", at: 0, took: 5, listed: mine)
        #expect(Self.findings([page, fed, farAhead]).isEmpty)
        var refused = created
        refused.status = 503
        #expect(Self.findings([page, refused, farAhead])["overfetch"]?.examples == [3])
        // A client that only posted, or opened one item (a deep link), has loaded no page: nothing to judge by.
        let elsewhere = Self.entry(7, "/items/700/detail", route: "/items/{id}/detail", at: 10)
        #expect(Self.findings([created, elsewhere]).isEmpty)
        #expect(Self.findings([page, created, elsewhere])["overfetch"]?.examples == [7])
        // 17 details in flight at once with a hint of 16: the one that made 17.
        let burst = (0..<17).map {
            Self.entry(
                UInt64(10 + $0), "/items/\($0)/detail", route: "/items/{id}/detail", at: 10 + Double($0), took: 300)
        }
        #expect(Self.findings([page] + burst)["overfetch"]?.examples == [26])
        #expect(Self.findings([page] + burst, maxInFlight: 17).isEmpty)
        // The same 17, one after another.
        let sequential = (0..<17).map {
            Self.entry(UInt64(10 + $0), "/items/\($0)/detail", route: "/items/{id}/detail", at: 10 + Double($0) * 2)
        }
        #expect(Self.findings([page] + sequential).isEmpty)
    }

    @Test("ignored_next: a page number after the last, or a before cursor below the oldest; polling after is fine")
    func ignoredNext() {
        let last = JournalEntry.ListedIDs(lowest: 9980, highest: 9999, count: 20, last: true)
        let empty = JournalEntry.ListedIDs(lowest: 0, highest: 0, count: 0, last: true)
        let lastPage = Self.entry(1, "/items?page=500&limit=20", route: "/items", at: 0, listed: last)
        let past = Self.entry(2, "/items?page=501&limit=20", route: "/items", at: 10, listed: empty)
        #expect(Self.findings([lastPage, past])["ignored_next"]?.examples == [2])
        let otherLimit = Self.entry(2, "/items?page=501&limit=10", route: "/items", at: 10, listed: empty)
        #expect(Self.findings([lastPage, otherLimit]).isEmpty)
        // The list grew: page 500 is no longer the last, and page 501 is fine.
        let notLast = JournalEntry.ListedIDs(lowest: 9980, highest: 9999, count: 20, last: false)
        let again500 = Self.entry(2, "/items?page=500&limit=20", route: "/items", at: 5, listed: notLast)
        let next501 = Self.entry(3, "/items?page=501&limit=20", route: "/items", at: 10, listed: last)
        #expect(Self.findings([lastPage, again500, next501]).isEmpty)
        // Older messages: has_more false at id 3, then asking before 3 again.
        let top = JournalEntry.ListedIDs(lowest: 0, highest: 2, count: 3, last: true)
        let oldest = Self.entry(1, "/items?before=3&order=desc&limit=20", route: "/items", at: 0, listed: top)
        let again = Self.entry(2, "/items?before=0&order=desc&limit=20", route: "/items", at: 10, listed: empty)
        #expect(Self.findings([oldest, again])["ignored_next"]?.examples == [2])
        // Newer items: asking after the newest again later is how a client polls a growing list.
        let newest = JournalEntry.ListedIDs(lowest: 0, highest: 0, count: 0, last: true)
        let poll1 = Self.entry(1, "/items?after=9999&limit=20", route: "/items", at: 0, listed: newest)
        let poll2 = Self.entry(2, "/items?after=9999&limit=20", route: "/items", at: 5000, listed: newest)
        #expect(Self.findings([poll1, poll2]).isEmpty)
    }

    @Test("a client that does everything right gets no findings, and the card says who it read")
    func goodClient() {
        let entries = [
            Self.entry(1, "/items?page=1&limit=20", route: "/items", at: 0, etag: "\"p1\"", listed: Self.page1),
            Self.entry(2, "/items/3/detail", route: "/items/{id}/detail", at: 10, etag: "\"d3\""),
            Self.entry(
                3, "/items?page=1&limit=20", route: "/items", status: 304, at: 20, etag: "\"p1\"", ifNoneMatch: "\"p1\""
            ),
            Self.entry(4, "/items/3", route: "/items/{id}", at: 30, etag: "\"r1\""),
            Self.entry(5, "/items/3", method: .patch, route: "/items/{id}", at: 40, ifMatch: "\"r1\""),
            Self.entry(6, "/items", method: .post, route: "/items", status: 201, at: 50, key: "k1", bodyHash: 1),
            Self.entry(7, "/items", method: .post, route: "/items", status: 201, at: 60, key: "k1", bodyHash: 1),
        ]
        let card = ReportCard(entries, maxInFlight: 16)
        #expect(card.findings.isEmpty)
        #expect(card.entryCount == 7 && card.clients == ["a"])
    }

    @Test("the item id of a target, under a base and with a query")
    func itemIDs() {
        #expect(ReportRules.itemID("/items/42/detail") == 42)
        #expect(ReportRules.itemID("/d/run-1/items/7/image.png?w=10") == 7)
        #expect(ReportRules.itemID("/items?page=2") == nil)
        #expect(ReportRules.itemID("/items/abc") == nil)
        #expect(ReportRules.itemID("/items/99999999999999999999") == nil)
    }

    @Test("id ranges merge what overlaps or touches and find ids by binary search")
    func idRanges() {
        var ranges = IDRanges()
        ranges.insert(20...39)
        ranges.insert(0...9)
        ranges.insert(60...79)
        #expect(ranges.ranges == [0...9, 20...39, 60...79])
        ranges.insert(10...19)  // touches both neighbours
        #expect(ranges.ranges == [0...39, 60...79])
        ranges.insert(35...65)
        #expect(ranges.ranges == [0...79])
        ranges.insert(UInt64.max - 1...UInt64.max)
        #expect(ranges.contains(79) && !ranges.contains(80) && ranges.contains(.max))
    }
}
