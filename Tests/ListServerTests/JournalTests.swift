import ListDomain
import Synchronization
import Testing

@testable import ListServer

/// The journal without a server: records in, entries out, and its bounds.
@Suite("Journal: records, entries and bounds")
struct JournalTests {
    static func journal(capacity: Int = 100, maxBytes: Int = 64 << 20) -> Journal {
        Journal(
            settings: JournalSettings(capacity: capacity, maxBytes: maxBytes), routes: Route.templates,
            datasetOf: Router.journalDataset(of:route:datasetField:))
    }

    /// A request and its answer, as a loop hands them to the journal.
    struct Answered {
        var request: HTTPRequest
        var route: Int?
        var response: HTTPResponse
        var start: ContinuousClock.Instant
        var end: ContinuousClock.Instant

        /// Its slot and the slot's extra.
        var slot: (JournalSlot, JournalSlot.Extra?) {
            var extra: JournalSlot.Extra?
            let slot = JournalSlot(
                request, fields: request.headers.journalRequestFields(), route: route, response,
                times: (JournalSlot.time(start), JournalSlot.time(end)), abandonedAt: nil, extra: &extra)
            return (slot, extra)
        }
    }

    /// `target`, answered in 1 ms, `at` ms after `epoch`.
    static func record(
        _ target: String, method: HTTPMethod = .get, headers: HTTPHeaders = [:], route: Route? = .items,
        status: Int = 200, at ms: Int, epoch: ContinuousClock.Instant, responseHeaders: HTTPHeaders = [:],
        body: [UInt8] = []
    ) -> Answered {
        var request = HTTPRequest(method: method, target: target, headers: headers, body: body, peer: "127.0.0.1")
        request.peerPort = 40_000
        return Answered(
            request: request, route: route?.rawValue,
            response: HTTPResponse(status: status, headers: responseHeaders, body: Array(repeating: 0, count: 10)),
            start: epoch + .milliseconds(ms), end: epoch + .milliseconds(ms + 1))
    }

    @Test("a slot is plain bytes, as the ring copies it, and holds as many text bytes as it says")
    func slotIsPlainBytes() {
        #expect(_isPOD(JournalSlot.self))
        #expect(
            MemoryLayout.size(
                ofValue: JournalSlot(
                    start: .zero, end: .zero, bytes: 0, status: 200, method: 0, route: 0
                ).text) == JournalSlot.textCapacity)
    }

    @Test("a record becomes an entry with the fields list clients care about")
    func entryFields() throws {
        let epoch = ContinuousClock.now
        let journal = Journal(
            settings: JournalSettings(), routes: Route.templates, epoch: epoch,
            datasetOf: Router.journalDataset(of:route:datasetField:))
        let headers: HTTPHeaders = [
            "X-Client-Id": "tab-1", "if-none-match": "\"a\"", "If-Match": "\"b\"", "Idempotency-Key": "k",
            "Range": "bytes=0-1", "Last-Event-ID": "7", "X-Dataset": "run-1",
        ]
        journal.add([
            Self.record(
                "/items/3", method: .post, headers: headers, route: .item, status: 503, at: 5, epoch: epoch,
                responseHeaders: ["Retry-After": "2", "ETag": "\"e\"", "Content-Type": MediaType.json],
                body: Array("{}".utf8))
        ])
        let entry = try #require(journal.entries(of: "run-1").entries.first)
        #expect(entry.seq == 1 && entry.client == "tab-1" && entry.route == "/items/{id}" && entry.status == 503)
        #expect(entry.ifNoneMatch == "\"a\"" && entry.ifMatch == "\"b\"" && entry.idempotencyKey == "k")
        #expect(entry.range == "bytes=0-1" && entry.lastEventID == "7")
        #expect(entry.etag == "\"e\"" && entry.retryAfter == 2 && entry.contentType == MediaType.json)
        #expect(entry.start == 5000 && entry.duration == 1000 && entry.bodyHash != nil)
        #expect(journal.entries(of: "").entries.isEmpty, "the default list's journal is another")
    }

    @Test("a slot keeps texts that do not fit, rare fields and unknown methods in its extra, and reads back whole")
    func slotsReadBack() throws {
        let epoch = ContinuousClock.now
        let long = "/items?" + String(repeating: "q=1&", count: 60)
        let client = "tab-" + String(repeating: "x", count: 40)
        for (target, headers, method) in [
            ("/items/3", ["X-Client-Id": "tab-1"] as HTTPHeaders, HTTPMethod.get),
            (long, ["X-Client-Id": client], .get),
            ("/items", ["If-Match": "\"m\"", "Range": "bytes=1-2"], .other("PROPFIND")),
        ] {
            let record = Self.record(
                target, method: method, headers: headers, at: 3, epoch: epoch,
                responseHeaders: ["ETag": "\"v1-5b9dcf0409739599\"", "Content-Type": "text/x-odd"])
            let (slot, extra) = record.slot
            let entry = slot.entry(routes: Route.templates, epoch: epoch, extra: extra)
            #expect(entry.target == target && entry.method == method && entry.route == "/items")
            #expect(entry.client == headers["X-Client-Id"] ?? "peer:127.0.0.1:40000")
            #expect(entry.etag == "\"v1-5b9dcf0409739599\"" && entry.contentType == "text/x-odd")
            #expect(entry.ifMatch == headers["If-Match"] && entry.range == headers["Range"])
        }
        #expect(MemoryLayout<JournalSlot>.stride <= 200, "a slot is a fixed-size write")
    }

    @Test("a HEAD's slot notes no body bytes (none went out), a GET's the whole body and its length before coding")
    func headSendsNoBody() {
        let epoch = ContinuousClock.now
        var get = Self.record("/items", at: 0, epoch: epoch)
        get.response.identityBytes = 40
        var head = get
        head.request.method = .head
        let (getEntry, headEntry) = (
            get.slot.0.entry(routes: Route.templates, epoch: epoch, extra: nil),
            head.slot.0.entry(routes: Route.templates, epoch: epoch, extra: nil)
        )
        #expect(getEntry.bytes == 10 && getEntry.identityBytes == 40 && getEntry.method == .get)
        #expect(headEntry.bytes == 0 && headEntry.identityBytes == nil && headEntry.method == .head)
    }

    @Test("a request's clock and the continuous clock give the same slot times")
    func clocksAgree() {
        let (before, now, after) = (
            JournalSlot.time(ContinuousClock.now), JournalSlot.time(RequestInstant.now),
            JournalSlot.time(ContinuousClock.now)
        )
        #expect(before - 5_000_000 <= now && now <= after + 5_000_000, "within 5 ms")
        let later = RequestInstant(nanoseconds: RequestInstant.now.nanoseconds + 2_000_000_000)
        #expect((2_000_000_000..<3_000_000_000).contains(JournalSlot.time(later) - now))
        let instant = ContinuousClock.now
        #expect(JournalSlot.instant(JournalSlot.time(instant)) == instant, "and back")
        let early = JournalSlot.clockZero - .milliseconds(1500)  // before the anchor: a negative time since it
        #expect(JournalSlot.instant(JournalSlot.time(early)) == early)
    }

    @Test("the dataset and the client a request is recorded under")
    func attribution() {
        let epoch = ContinuousClock.now
        let journal = Self.journal()
        journal.add([
            Self.record("/d/base-1/items?page=2", at: 0, epoch: epoch),
            Self.record("/items/4/image?dataset=img-1&client_id=tab-9", route: .itemImage, at: 1, epoch: epoch),
            Self.record("/items?dataset=ignored", at: 2, epoch: epoch),  // /items reads no ?dataset=
            Self.record("/items", headers: ["X-Dataset": "bad name"], at: 3, epoch: epoch),
            Self.record("/nowhere", route: nil, at: 4, epoch: epoch),
            Self.record("/d/base-1/nowhere", route: nil, at: 5, epoch: epoch),
        ])
        #expect(journal.entries(of: "base-1").entries.map(\.target) == ["/d/base-1/items?page=2", "/d/base-1/nowhere"])
        #expect(journal.entries(of: "base-1").entries.last?.route == "other")
        #expect(journal.entries(of: "img-1").entries.map(\.client) == ["tab-9"])
        #expect(journal.entries(of: "").entries.map(\.target) == ["/items?dataset=ignored"])
        #expect(journal.entries(of: "").entries.first?.client == "peer:127.0.0.1:40000")
        #expect(journal.usage.datasets == 3, "no journal for a bad name or an unknown path without a dataset")
    }

    @Test("a full journal writes over its oldest entries; a page says what it missed")
    func capacity() {
        let epoch = ContinuousClock.now
        let journal = Self.journal(capacity: 10)
        journal.add((0..<25).map { Self.record("/items?page=\($0 + 1)", at: $0, epoch: epoch) })
        let page = journal.page(of: "", client: nil, since: 0, limit: 100)
        #expect(page.entries.map(\.seq) == Array(16...25))
        #expect(page.firstSeq == 16 && page.lastSeq == 25 && page.missed == 15)
        #expect(journal.page(of: "", client: nil, since: 20, limit: 2).entries.map(\.seq) == [21, 22])
        #expect(journal.page(of: "", client: nil, since: 20, limit: 2).missed == 0)
        #expect(journal.usage.entries == 10 && journal.usage.dropped == 15)
    }

    @Test("a full journal writing over requests with extras gives back their bytes and keeps the others' extras")
    func wrapsWithExtras() {
        let epoch = ContinuousClock.now
        // Every third request has an extra: a target longer than a slot holds.
        let long = "/items?q=" + String(repeating: "x", count: JournalSlot.textCapacity)
        let records = (0..<10).map {
            Self.record($0 % 3 == 0 ? long + "&n=\($0)" : "/items?page=\($0)", at: $0, epoch: epoch)
        }
        for capacity in [1, 2, 3, 4] {
            let journal = Self.journal(capacity: capacity)
            journal.add(records)
            let kept = Array(records.suffix(capacity))
            #expect(journal.entries(of: "").entries.map(\.target) == kept.map(\.request.target), "capacity \(capacity)")
            // What it takes is what a journal given only the requests it kept takes.
            let fresh = Self.journal(capacity: capacity)
            fresh.add(kept)
            #expect(journal.usage.bytes == fresh.usage.bytes, "capacity \(capacity)")
        }
    }

    @Test("two loops' default-list requests, collected together, go in as slot by slot: merged, numbered, written over")
    func plainCollection() throws {
        let epoch = ContinuousClock.now
        // The ring's first requests have extras every other one (targets longer than a slot holds); then two loops'
        // pages whose answers interleave, none with an extra: the collection's path for those.
        let long = "/items?q=" + String(repeating: "x", count: JournalSlot.textCapacity)
        let first = (0..<6).map {
            Self.record($0 % 2 == 0 ? long + "&n=\($0)" : "/items?page=\($0)", at: $0, epoch: epoch)
        }
        let one = (0..<7).map { Self.record("/items?page=\(100 + $0)", at: 10 + 2 * $0, epoch: epoch) }
        let two = (0..<5).map { Self.record("/items?page=\(200 + $0)", at: 11 + 2 * $0, epoch: epoch) }
        // `following`: a journal stream is open, and every slot goes through the general path, one at a time.
        func collected(capacity: Int, following: Bool) throws -> (JournalPage, Int, Int) {
            let journal = Journal(
                settings: JournalSettings(capacity: capacity, maxBytes: 64 << 20), routes: Route.templates,
                epoch: epoch, datasetOf: Router.journalDataset(of:route:datasetField:))
            journal.followers.store(following ? 1 : 0, ordering: .relaxed)
            journal.add(first)
            let shards = [journal.makeShard(), journal.makeShard()]
            for (shard, run) in zip(shards, [one, two]) {
                for answered in run {
                    let pending = try #require(journal.pending(answered))
                    _ = shard.append(pending.slot, dataset: pending.dataset, extra: pending.extra)
                }
            }
            journal.collect()
            let usage = journal.usage
            return (journal.page(of: "", client: nil, since: 0, limit: 100), usage.bytes, usage.dropped)
        }
        // A collection of nothing makes no journal (none for the default list either).
        let empty = Self.journal()
        empty.add([Answered]())
        #expect(empty.usage.datasets == 0 && empty.usage.bytes == 0)
        // In the order of their answers: one's at 10, two's at 11, one's at 12, …, two's last at 19, one's two more.
        let merged = (0..<5).flatMap { [one[$0], two[$0]] } + one[5...]
        for capacity in [1, 4, 6, 7, 20] {
            let (page, bytes, dropped) = try collected(capacity: capacity, following: false)
            let kept = Array((first + merged).suffix(capacity))
            #expect(page.entries.map(\.target) == kept.map(\.request.target), "capacity \(capacity)")
            #expect(page.entries.map(\.seq) == Array(UInt64(19 - kept.count)...18), "capacity \(capacity)")
            #expect(dropped == 18 - kept.count, "capacity \(capacity)")
            // The same as slot by slot: the entries (times from the same origin), the bytes with the extras given
            // back, the count of those written over.
            let (general, generalBytes, generalDropped) = try collected(capacity: capacity, following: true)
            #expect(page.entries == general.entries && page.origin == general.origin, "capacity \(capacity)")
            #expect(bytes == generalBytes && dropped == generalDropped, "capacity \(capacity)")
        }
    }

    @Test("every journal together stays within max_bytes: the one written to longest ago loses entries first")
    func byteBound() throws {
        let epoch = ContinuousClock.now
        let probe = Self.journal()
        probe.add([Self.record("/items?page=1", at: 0, epoch: epoch)])
        let one = probe.usage.bytes
        probe.add([Self.record("/items?page=2", at: 1, epoch: epoch)])
        let entryBytes = probe.usage.bytes - one
        #expect(entryBytes > 0 && one - entryBytes == JournalRing.overhead)
        let journal = Self.journal(capacity: 1000, maxBytes: entryBytes * 50 + 2 * JournalRing.overhead)
        journal.add(
            (0..<40).map { Self.record("/items?page=\($0)", headers: ["X-Dataset": "old"], at: $0, epoch: epoch) })
        journal.add(
            (0..<40).map { Self.record("/items?page=\($0)", headers: ["X-Dataset": "new"], at: $0, epoch: epoch) })
        #expect(journal.usage.bytes <= entryBytes * 50 + 2 * JournalRing.overhead)
        #expect(journal.entries(of: "new").entries.count == 40, "the journal written to last keeps all")
        let old = journal.entries(of: "old").entries
        #expect(old.count < 40 && old.last?.seq == 40, "the other lost its oldest: \(old.map(\.seq))")
    }

    @Test("clear empties a journal and numbering goes on; remove forgets it; idle ones go")
    func clearAndRemove() {
        let epoch = ContinuousClock.now
        let journal = Self.journal()
        journal.add((0..<3).map { Self.record("/items?page=\($0)", at: $0, epoch: epoch) })
        journal.clear("")
        #expect(journal.entries(of: "").entries.isEmpty && journal.usage.bytes == JournalRing.overhead)
        journal.add([Self.record("/items", at: 10, epoch: epoch)])
        #expect(journal.entries(of: "").entries.map(\.seq) == [4])
        let after = journal.entries(of: "")
        #expect(after.origin != nil && after.origin == after.entries.first?.start, "t_ms starts again")
        journal.remove("")
        #expect(journal.usage.datasets == 0)
        journal.add([Self.record("/items", headers: ["X-Dataset": "idle"], at: 0, epoch: .now - .seconds(120))])
        journal.removeIdle(for: .seconds(60))
        #expect(journal.usage.datasets == 0)
    }

    @Test("a journal made again numbers on, and past max_datasets the journal added to longest ago goes")
    func numberingAndDatasetCap() {
        let epoch = ContinuousClock.now
        let journal = Journal(
            settings: JournalSettings(capacity: 100, maxDatasets: 2), routes: Route.templates,
            datasetOf: Router.journalDataset(of:route:datasetField:))
        journal.add((0..<3).map { Self.record("/items", headers: ["X-Dataset": "a"], at: $0, epoch: epoch) })
        journal.remove("a")
        journal.add([Self.record("/items", headers: ["X-Dataset": "a"], at: 5, epoch: epoch)])
        #expect(journal.entries(of: "a").entries.map(\.seq) == [4], "no number names two requests")
        journal.add([Self.record("/items", headers: ["X-Dataset": "b"], at: 6, epoch: epoch)])
        journal.add([Self.record("/items", headers: ["X-Dataset": "c"], at: 7, epoch: epoch)])
        #expect(journal.usage.datasets == 2)
        #expect(journal.entries(of: "a").entries.isEmpty, "a, added to longest ago, went for c")
        #expect(journal.entries(of: "c").entries.map(\.seq) == [1], "a new dataset's journal numbers from 1")
    }

    @Test("a loop's buffer knows where its next slot and tag go, for the prefetch when a request arrives")
    func prefetchAddresses() throws {
        let epoch = ContinuousClock.now
        let journal = Self.journal()
        let shard = journal.makeShard()
        func append(_ target: String) throws {
            let pending = try #require(journal.pending(Self.record(target, at: 1, epoch: epoch)))
            _ = shard.append(pending.slot, dataset: pending.dataset, extra: pending.extra)
        }
        func addresses(of batch: JournalShard.Batch) -> (slots: UInt, tags: UInt) {
            let slots = batch.slots.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
            let tags = batch.tags.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
            return (slots, tags)
        }
        let slot = UInt(MemoryLayout<JournalSlot>.stride)
        let tag = UInt(MemoryLayout<JournalShard.Tag>.stride)
        #expect(shard.nextAddresses.tag == 0, "no tag fetched before the buffer holds one")
        let first = shard.nextAddresses.slot
        try append("/items?page=1")
        try append("/d/b/items")  // another dataset's: a tag
        let expected = shard.nextAddresses
        try append("/d/b/items?page=2")  // the slot and the tag land where the shard said
        var taken = shard.take()
        let (slots, tags) = addresses(of: taken)
        #expect(slots == first)
        #expect(expected.slot == slots + 2 * slot)
        #expect(expected.tag == tags + tag)
        #expect(taken.slots.count == 3 && taken.tags.count == 2)
        // Taken, the buffer goes on in the spare storage, from its start.
        let fresh = shard.nextAddresses
        #expect(fresh.tag == 0)
        try append("/d/b/items?page=3")
        let next = shard.take()
        #expect(addresses(of: next).slots == fresh.slot)
        #expect(fresh.slot != slots, "the taken storage is the collection's until it is given back")
        taken.removeAll()
        shard.recycle(taken)
        // Addresses that would wrap, or nothing to fetch: no fetch, and no endless loop.
        Prefetch.forWriting(UInt.max - 8, bytes: MemoryLayout<JournalSlot>.stride)
        Prefetch.forReading(UInt.max & ~63, bytes: 64)
        Prefetch.forWriting(64, bytes: 0)
        Prefetch.forWriting(UInt.max - 8, as: JournalSlot.self)  // its lines wrap to low addresses: still no fault
        Prefetch.forReading(0, as: JournalSlot.self)
    }

    @Test("records wait in a loop's buffer until collected; listeners hear each dataset's new entries")
    func shardsAndListeners() throws {
        let epoch = ContinuousClock.now
        let journal = Self.journal()
        let heard = Mutex<[String: [UInt64]]>([:])
        journal.addListener { dataset, entries, _ in heard.withLock { $0[dataset, default: []] += entries.map(\.seq) } }
        journal.followers.store(1, ordering: .relaxed)  // a journal stream is open: listeners are handed entries
        let one = journal.makeShard()
        let two = journal.makeShard()
        func append(_ answered: Answered, to shard: JournalShard) throws -> Int {
            let pending = try #require(journal.pending(answered))
            return shard.append(pending.slot, dataset: pending.dataset, extra: pending.extra)
        }
        #expect(try append(Self.record("/items?page=2", at: 5, epoch: epoch), to: one) == 1)
        #expect(try append(Self.record("/items?page=1", at: 1, epoch: epoch), to: two) == 1)
        #expect(try append(Self.record("/d/b/items", at: 2, epoch: epoch), to: two) == 2)
        #expect(journal.pending(Self.record("/nowhere", route: nil, at: 3, epoch: epoch)) == nil)
        #expect(heard.withLock { $0.isEmpty })
        // A reader collects first: both loops' records, in the order their answers were done.
        #expect(journal.entries(of: "").entries.map(\.target) == ["/items?page=1", "/items?page=2"])
        #expect(heard.withLock { $0 } == ["": [1, 2], "b": [1]])
        #expect(one.take().slots.isEmpty && two.take().slots.isEmpty)
        // With no stream open, a collection hands nothing over.
        journal.followers.store(0, ordering: .relaxed)
        _ = try append(Self.record("/items?page=3", at: 6, epoch: epoch), to: one)
        journal.collect()
        #expect(heard.withLock { $0 } == ["": [1, 2], "b": [1]])
        #expect(journal.entries(of: "").entries.count == 3)
    }
}

extension Journal {
    /// `answered` as its dataset's request, or nil.
    func pending(_ answered: JournalTests.Answered) -> Pending? {
        pending(
            answered.request, route: answered.route, answered.response, start: answered.start, end: answered.end)
    }

    /// Adds `answered`, in order.
    func add(_ answered: [JournalTests.Answered]) {
        add(answered.compactMap { pending($0) })
    }
}
