import Foundation
import Testing

@testable import ListServer

/// The journal and the report card over real HTTP: a scripted client that makes every mistake once, a client that
/// makes none, a client that gives up on its detail, the live stream, and the bounds.
@Suite("End to end: the journal and the report card")
struct EndToEndJournalTests {
    /// A request of client `bad` to dataset `card`.
    static func ask(
        _ port: Int, _ target: String, method: String = "GET", json: String? = nil, headers: [String] = [],
        client: String = "bad", dataset: String = "card"
    ) async throws -> RawHTTPConnection.Response {
        let fields = headers + ["X-Client-Id: \(client)", "X-Dataset: \(dataset)"]
        if let json { return try await send(port: port, method, target, json: json, headers: fields) }
        return try await fetch(port: port, target, method: method, headers: fields)
    }

    /// The report card of `dataset`, as kind → (count, examples).
    static func report(_ port: Int, dataset: String, client: String? = nil) async throws -> [String: (Int, [UInt64])] {
        let query = "dataset=\(dataset)" + (client.map { "&client=\($0)" } ?? "")
        let response = try await fetch(port: port, "/admin/report?\(query)")
        #expect(response.status == 200)
        let findings = try #require(try response.jsonObject()["findings"] as? [[String: Any]])
        var card: [String: (Int, [UInt64])] = [:]
        for finding in findings {
            let kind = try #require(finding["kind"] as? String)
            let examples = try #require(finding["examples"] as? [Any]).compactMap(uint64)
            card[kind] = (try #require(finding["count"] as? Int), examples)
            #expect((finding["advice"] as? String)?.isEmpty == false)
            #expect(finding["readme"] as? String == "README.md#the-report-card")
        }
        return card
    }

    /// The journal's entries of `dataset`.
    static func entries(_ port: Int, dataset: String, since: Int = 0) async throws -> [[String: Any]] {
        let named = dataset.isEmpty ? "" : "dataset=\(dataset)&"  // the default list is named by no parameter
        let response = try await fetch(port: port, "/admin/journal?\(named)since=\(since)")
        #expect(response.status == 200)
        return try #require(try response.jsonObject()["entries"] as? [[String: Any]])
    }

    @Test("a scripted client makes every mistake once; the card counts each and names its requests")
    func everyFinding() async throws {
        try await withServer(configure: {
            $0.imageLatencyMinMs = 20; $0.imageLatencyMaxMs = 20
        }) { app in
            let port = app.port
            // 1, 2: the same page twice, unconditionally (duplicate_page: 2).
            let page = try await Self.ask(port, "/items?page=1&limit=20")
            #expect(page.status == 200 && page.header("ETag") != nil)
            _ = try await Self.ask(port, "/items?page=1&limit=20")
            // 3, 4, 5: one image three times without If-None-Match (no_revalidation: 5).
            for _ in 0..<3 { #expect(try await Self.ask(port, "/items/2/image").status == 200) }
            // 6, 7: a 503 with Retry-After: 1, asked again at once (retry_before_retry_after: 7).
            let failed = try await Self.ask(port, "/items/3/detail?fail=503")
            #expect(failed.status == 503 && failed.header("Retry-After") == "1")
            _ = try await Self.ask(port, "/items/3/detail?fail=503")
            // 8 to 11: a 500 and three retries 500, 250 and 250 ms after each failure, no backoff (retry_storm: 9, 10,
            // 11). Gaps that shrink: the rule wants the later two under 1.5 times the first and all under 1 s, so this
            // holds with up to 500 ms of scheduling delay in any gap (300 ms each broke once on a loaded CI machine).
            for (attempt, pause) in [0, 500, 250, 250].enumerated() {
                if attempt > 0 { try await Task.sleep(for: .milliseconds(pause)) }
                #expect(try await Self.ask(port, "/items/4/detail?fail=500").status == 500)
            }
            // 12, 13: a message sent twice without an Idempotency-Key (post_retry_without_idempotency_key: 13).
            for _ in 0..<2 {
                #expect(try await Self.ask(port, "/items", method: "POST", json: #"{"label":"hi"}"#).status == 201)
            }
            // 14, 15: an item read with its ETag, then patched without If-Match (lost_update_risk: 15).
            #expect(try await Self.ask(port, "/items/1").header("ETag") != nil)
            #expect(try await Self.ask(port, "/items/1", method: "PATCH", json: #"{"likes":3}"#).status == 200)
            // 16, 17: the last page (10,002 items, 100 a page: page 101), then the page after it (ignored_next: 17).
            let last = try await Self.ask(port, "/items?page=101&limit=100").jsonObject()
            #expect(last["next_page"] is NSNull)
            _ = try await Self.ask(port, "/items?page=102&limit=100")
            // 18: a detail of an id no page listed (overfetch).
            #expect(try await Self.ask(port, "/items/9000/detail").status == 200)
            // 19 to 35: 17 details at once, of ids page 1 listed (overfetch: the 17th in flight).
            try await withThrowingTaskGroup(of: Int.self) { group in
                for id in 0..<17 { group.addTask { try await Self.ask(port, "/items/\(id)/detail").status } }
                for try await status in group { #expect(status == 200) }
            }
            // 36: a detail the client gives up on after 50 ms (aborted).
            try await offPool {
                let connection = try RawHTTPConnection(port: port)
                try connection.request("GET", "/items/18/detail", headers: ["X-Client-Id: bad", "X-Dataset: card"])
                Thread.sleep(forTimeInterval: 0.05)
                connection.shutDown()
            }
            try await waitUntil(
                "the abandoned detail to be answered",
                observe: {
                    try await Self.entries(port, dataset: "card").count
                }, isDone: { $0 == 36 })

            let card = try await Self.report(port, dataset: "card")
            #expect(card["duplicate_page"]?.0 == 1 && card["duplicate_page"]?.1 == [2])
            #expect(card["no_revalidation"]?.0 == 1 && card["no_revalidation"]?.1 == [5], "\(card)")
            #expect(card["retry_before_retry_after"]?.0 == 1 && card["retry_before_retry_after"]?.1 == [7])
            #expect(card["retry_storm"]?.0 == 3 && card["retry_storm"]?.1 == [9, 10, 11])
            #expect(card["post_retry_without_idempotency_key"]?.1 == [13])
            #expect(card["lost_update_risk"]?.0 == 1 && card["lost_update_risk"]?.1 == [15])
            #expect(card["ignored_next"]?.0 == 1 && card["ignored_next"]?.1 == [17])
            #expect(card["overfetch"]?.0 == 2 && card["overfetch"]?.1.first == 18)
            #expect(card["overfetch"].map { (19...35).contains($0.1.last ?? 0) } == true)
            #expect(card["aborted"]?.0 == 1 && card["aborted"]?.1 == [36])
            #expect(Set(card.keys) == Set(ReportCard.Kind.allCases.map(\.rawValue)), "every kind, once")
            // The same card for that client alone; none for another.
            #expect(try await Self.report(port, dataset: "card", client: "bad").count == card.count)
            #expect(try await Self.report(port, dataset: "card", client: "good").isEmpty)

            let entries = try await Self.entries(port, dataset: "card")
            #expect(entries.map { uint64($0["seq"]) } == (1...36).map { UInt64($0) })
            let aborted = entries[35]
            #expect(aborted["aborted"] as? Bool == true && aborted["received_bytes"] as? Int == 0)
            #expect(aborted["status"] as? Int == 200 && aborted["route"] as? String == "/items/{id}/detail")
            #expect(entries[5]["fault"] as? String == "503" && entries[5]["retry_after_s"] as? Int == 1)
            #expect(entries[0]["etag"] as? String == page.header("ETag"))
            #expect(entries.allSatisfy { $0["client"] as? String == "bad" })
        }
    }

    @Test("a client that does what the advice says gets no findings")
    func wellBehaved() async throws {
        try await withServer { app in
            let port = app.port
            func ask(_ target: String, method: String = "GET", json: String? = nil, headers: [String] = [])
                async throws -> RawHTTPConnection.Response
            {
                try await Self.ask(port, target, method: method, json: json, headers: headers, client: "good")
            }
            // Pages to the end, revalidating the first.
            let first = try await ask("/items?page=1&limit=100")
            let tag = try #require(first.header("ETag"))
            var number = 2
            while true {
                let page = try await ask("/items?page=\(number)&limit=100").jsonObject()
                if page["next_page"] is NSNull { break }
                number += 1
            }
            #expect(try await ask("/items?page=1&limit=100", headers: ["If-None-Match: \(tag)"]).status == 304)
            // Details of listed ids, eight at a time.
            try await withThrowingTaskGroup(of: Int.self) { group in
                for id in 0..<8 { group.addTask { try await ask("/items/\(id)/detail").status } }
                for try await status in group { #expect(status == 200) }
            }
            // A 503 retried after its Retry-After, then with backoff.
            #expect(try await ask("/items/9/detail?fail=503").status == 503)
            try await Task.sleep(for: .milliseconds(1100))
            #expect(try await ask("/items/9/detail").status == 200)
            // A message sent and resent with its key; an edit with If-Match.
            for _ in 0..<2 {
                let sent = try await ask(
                    "/items", method: "POST", json: #"{"label":"hi"}"#, headers: ["Idempotency-Key: m-1"])
                #expect(sent.status == 201)
            }
            let item = try await ask("/items/1")
            let edited = try await ask(
                "/items/1", method: "PATCH", json: #"{"likes":3}"#, headers: ["If-Match: \(item.header("ETag") ?? "")"])
            #expect(edited.status == 200)
            // Its own new item, past every page it loaded: its detail is no overfetch (the 201 gave the id).
            let mine = try await ask("/items", method: "POST", json: #"{"label":"mine"}"#)
            let id = try #require(try mine.jsonObject()["id"] as? Int)
            #expect(try await ask("/items/\(id)/detail").status == 200)
            let card = try await Self.report(port, dataset: "card")
            #expect(card.isEmpty, "\(card)")
        }
    }

    @Test("the journal's stream sends each request within moments, and picks up after Last-Event-ID")
    func liveStream() async throws {
        try await withServer { app in
            let port = app.port
            _ = try await Self.ask(port, "/items?page=1", dataset: "live")
            let stream = try await offPool {
                let connection = try RawHTTPConnection(port: port)
                try connection.request("GET", "/admin/journal/events?dataset=live")
                let head = try connection.readStreamHead()
                #expect(head.status == 200 && head.header("Content-Type") == "text/event-stream; charset=utf-8")
                let replayed = try connection.readEvents(1)
                #expect(replayed.first?["id"] == "1" && replayed.first?["event"] == "entry")
                return connection
            }
            let start = ContinuousClock.now
            _ = try await Self.ask(port, "/items/7", dataset: "live")
            let live = try await offPool { try stream.readEvents(1) }
            #expect(ContinuousClock.now - start < .seconds(2))
            let data = try parseJSONObject(Array((live.first?["data"] ?? "").utf8))
            #expect(live.first?["id"] == "2" && data["target"] as? String == "/items/7")
            #expect(data["route"] as? String == "/items/{id}" && data["client"] as? String == "bad")
            // Another dataset's requests do not reach it.
            _ = try await Self.ask(port, "/items/8", dataset: "elsewhere")
            _ = try await Self.ask(port, "/items/9", dataset: "live")
            let next = try await offPool { try stream.readEvents(1) }
            #expect(next.first?["id"] == "3" && next.first?["data"]?.contains("/items/9") == true)
            stream.shutDown()
            // A reconnect with Last-Event-ID gets what came after it only.
            let resumed = try await offPool {
                let connection = try RawHTTPConnection(port: port)
                try connection.request("GET", "/admin/journal/events?dataset=live", headers: ["Last-Event-ID: 2"])
                _ = try connection.readStreamHead()
                return try connection.readEvents(1)
            }
            #expect(resumed.first?["id"] == "3")
        }
    }

    @Test("the journal keeps its capacity per dataset, under /d/<name>/ too, and DELETE empties it")
    func boundsAndBase() async throws {
        try await withServer(configure: { $0.journal.capacity = 10 }) { app in
            let port = app.port
            for page in 1...25 { _ = try await fetch(port: port, "/d/small/items?page=\(page)&limit=2") }
            let response = try await fetch(port: port, "/d/small/admin/journal?limit=3")
            let body = try response.jsonObject()
            #expect(uint64(body["first_seq"]) == 16 && uint64(body["last_seq"]) == 25 && uint64(body["missed"]) == 15)
            let seqs = try #require(body["entries"] as? [[String: Any]]).map { uint64($0["seq"]) }
            #expect(seqs == [16, 17, 18] && uint64(body["next_since"]) == 18)
            #expect(try await fetch(port: port, "/admin/journal?dataset=small", method: "DELETE").status == 204)
            #expect(try await Self.entries(port, dataset: "small").isEmpty)
            _ = try await fetch(port: port, "/d/small/items")
            #expect(try await Self.entries(port, dataset: "small").map { uint64($0["seq"]) } == [26])
            let metrics = try PrometheusText(try await fetch(port: port, "/metrics").text)
            #expect(metrics["listserver_journal_entries"] == 1)
            #expect(metrics["listserver_journal_memory_bytes"] > 0)
            #expect(metrics["listserver_journal_dropped_total"] == 15)
            // The admin routes themselves are not recorded, nor are probes and the app's files.
            _ = try await fetch(port: port, "/healthz")
            _ = try await fetch(port: port, "/app/app.js")
            #expect(try await Self.entries(port, dataset: "").isEmpty)
        }
    }

    @Test("with journal.capacity 0 nothing is recorded and the journal's routes are 404")
    func off() async throws {
        try await withServer(configure: { $0.journal.capacity = 0 }) { app in
            _ = try await fetch(port: app.port, "/items")
            for target in ["/admin/journal", "/admin/report", "/admin/journal.har", "/admin/journal/events"] {
                let response = try await fetch(port: app.port, target)
                #expect(response.status == 404 && response.text.contains("journal.capacity"), "\(target)")
            }
        }
    }
}
