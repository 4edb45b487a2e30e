import Foundation
import Testing

@testable import ListServer

/// The change feed over real HTTP: the long-poll and Server-Sent Events.
@Suite("End to end: change feed")
struct EndToEndChangeFeedTests {
    @Test("GET /items/changes lists every change in order, with next_since")
    func changesInOrder() async throws {
        try await withServer { app in
            _ = try await send(port: app.port, "POST", "/items", json: #"{"label":"a"}"#)
            _ = try await send(port: app.port, "PATCH", "/items/4", json: #"{"label":"b"}"#)
            _ = try await send(port: app.port, "DELETE", "/items/5", contentType: nil)
            let response = try await fetch(port: app.port, "/items/changes?since=0")
            #expect(response.status == 200)
            let body = try response.jsonObject()
            let changes = try #require(body["changes"] as? [[String: Any]])
            #expect(changes.map { $0["kind"] as? String } == ["created", "updated", "deleted"])
            #expect(changes.map { $0["sequence"] as? Int } == [1, 2, 3])
            #expect((changes[0]["item"] as? [String: Any])?["label"] as? String == "a")
            #expect(changes[2]["id"] as? Int == 5)
            #expect(body["next_since"] as? Int == 3)
            let after = try await fetch(port: app.port, "/items/changes?since=2").jsonObject()
            #expect((after["changes"] as? [[String: Any]])?.count == 1)
        }
    }

    @Test("a long-poll waits for the next change and answers with it; an idle one ends empty")
    func longPoll() async throws {
        try await withServer { app in
            async let waiting = fetch(port: app.port, "/items/changes?since=0&wait_ms=10000")
            try await waitUntil(
                "the long-poll to wait", describe: { "\($0) waiting" },
                observe: { app.writes.feed.waitingCount }, isDone: { $0 == 1 })
            _ = try await send(port: app.port, "POST", "/items", json: #"{"label":"wake"}"#)
            let answer = try await waiting.jsonObject()
            #expect((answer["changes"] as? [[String: Any]])?.count == 1)
            let idle = try await fetch(port: app.port, "/items/changes?since=1&wait_ms=200").jsonObject()
            #expect((idle["changes"] as? [[String: Any]])?.isEmpty == true)
            #expect(idle["next_since"] as? Int == 1)
            let future = try await fetch(port: app.port, "/items/changes?since=99")
            #expect(future.status == 410)
        }
    }

    @Test("SSE: every change in order; a reconnect with Last-Event-ID replays what was missed, nothing twice")
    func serverSentEvents() async throws {
        try await withServer { app in
            let stream = try RawHTTPConnection(port: app.port)
            try stream.request("GET", "/items/events", headers: ["Accept: text/event-stream"])
            let head = try await offPool { try stream.readStreamHead() }
            #expect(head.status == 200)
            #expect(head.header("Content-Type") == "text/event-stream; charset=utf-8")
            _ = try await send(port: app.port, "POST", "/items", json: #"{"label":"one"}"#)
            _ = try await send(port: app.port, "DELETE", "/items/7", contentType: nil)
            let events = try await offPool { try stream.readEvents(2) }
            #expect(events.map { $0["event"] } == ["created", "deleted"])
            #expect(events.map { $0["id"] } == ["1", "2"])
            #expect(events[1]["data"] == #"{"id":7}"#)
            stream.hangUp()
            // Missed while away: changes 3 and 4.
            _ = try await send(port: app.port, "PATCH", "/items/8", json: #"{"likes":3}"#)
            _ = try await send(port: app.port, "POST", "/admin/reset", contentType: nil)
            let again = try RawHTTPConnection(port: app.port)
            try again.request("GET", "/items/events", headers: ["Last-Event-ID: 2"])
            _ = try await offPool { try again.readStreamHead() }
            _ = try await send(port: app.port, "POST", "/items", json: #"{"label":"live"}"#)
            let replayed = try await offPool { try again.readEvents(3) }
            #expect(replayed.map { $0["id"] } == ["3", "4", "5"])
            #expect(replayed.map { $0["event"] } == ["updated", "reset", "created"])
        }
    }

    @Test(
        """
        SSE: small events and events of over 2 KB (shared by every subscriber) arrive whole and in order, \
        chunked over HTTP/1.1 and as they are over HTTP/1.0
        """)
    func eventFraming() async throws {
        try await withServer { app in
            let chunked = try RawHTTPConnection(port: app.port)
            try chunked.request("GET", "/items/events")
            let chunkedHead = try await offPool { try chunked.readStreamHead() }
            #expect(chunkedHead.header("Transfer-Encoding") == "chunked")
            let plain = try RawHTTPConnection(port: app.port)
            try plain.write("GET /items/events HTTP/1.0\r\nHost: x\r\n\r\n")
            let plainHead = try await offPool { try plain.readStreamHead() }
            #expect(plainHead.status == 200 && plainHead.header("Transfer-Encoding") == nil)
            // Persistent HTTP/1.0 is framed by length: evhttp would say Content-Length: 0 and then send events.
            let keepAlive = try RawHTTPConnection(port: app.port)
            try keepAlive.write(
                "GET /items/events HTTP/1.0\r\nHost: x\r\nConnection: Keep-Alive, TE\r\nConnection: keep-alive\r\n\r\n")
            let keepAliveHead = try await offPool { try keepAlive.readStreamHead() }
            #expect(keepAliveHead.header("Content-Length") == nil && keepAliveHead.header("Transfer-Encoding") == nil)
            let large = String(repeating: "🎉", count: 500)  // 2,000 bytes, and an author of 400: an event of 2.5 KB
            for label in ["small", large, "after"] {
                let author = label == large ? String(repeating: "🎉", count: 100) : "a"
                _ = try await send(
                    port: app.port, "POST", "/items", json: #"{"label":"\#(label)","author":"\#(author)"}"#)
            }
            for (stream, isChunked) in [(chunked, true), (plain, false), (keepAlive, false)] {
                let events = try await offPool { try stream.readEvents(3, chunked: isChunked) }
                #expect(events.map { $0["id"] } == ["1", "2", "3"])
                let labels = events.compactMap { event in
                    event["data"].flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }?[
                        "label"] as? String
                }
                #expect(labels == ["small", large, "after"], "chunked: \(isChunked)")
            }
        }
    }

    @Test("SSE: a Last-Event-ID beyond the feed gets one expired event, then live changes")
    func expiredEvent() async throws {
        try await withServer { app in
            let stream = try RawHTTPConnection(port: app.port)
            try stream.request("GET", "/items/events", headers: ["Last-Event-ID: 50"])
            _ = try await offPool { try stream.readStreamHead() }
            _ = try await send(port: app.port, "POST", "/items", json: #"{"label":"x"}"#)
            let events = try await offPool { try stream.readEvents(2) }
            #expect(events.map { $0["event"] } == ["expired", "created"])
        }
    }

    @Test("shutdown ends every stream cleanly at the start of the drain")
    func shutdownEndsStreams() async throws {
        var settings = testSettings()
        settings.dataPath = ":memory:"
        let app = try await Application.start(settings: settings)
        let stream = try RawHTTPConnection(port: app.port)
        try stream.request("GET", "/items/events")
        _ = try await offPool { try stream.readStreamHead() }
        let started = ContinuousClock.now
        await app.shutdown(grace: .seconds(5))
        #expect(ContinuousClock.now - started < .seconds(4))  // the drain did not wait for the stream
        _ = try? await offPool { try stream.readEvents(1) }
        #expect(stream.streamEnded)
    }
}

/// Growth by timer shares the id sequence with POST and goes into the feed.
@Suite("End to end: growth")
struct EndToEndGrowthTests {
    @Test("items.grow_every_ms adds generated items at the end, each a created change, sharing ids with POST")
    func growth() async throws {
        try await withServer(configure: {
            $0.growEveryMs = 20; $0.itemCount = 10
        }) { app in
            try await waitUntil(
                "the list to grow", describe: { "last sequence \($0)" },
                observe: { app.writes.lists.state(of: "").header.lastSequence }, isDone: { $0 >= 3 })
            let posted = try await send(port: app.port, "POST", "/items", json: #"{"label":"mine"}"#)
            let id = try #require(try posted.jsonObject()["id"] as? Int)
            #expect(id >= 13)
            let changes = try await fetch(port: app.port, "/items/changes?since=0&limit=3").jsonObject()
            let items = try #require(changes["changes"] as? [[String: Any]])
            #expect(items.map { $0["kind"] as? String } == ["created", "created", "created"])
            #expect(items.map { ($0["item"] as? [String: Any])?["id"] as? Int } == [10, 11, 12])
            #expect(
                items.map { ($0["item"] as? [String: Any])?["label"] as? String } == ["Line 10", "Line 11", "Line 12"])
        }
    }
}

/// Event streams are bounded: heartbeats keep a healthy one open past the idle time-out, and a subscriber that
/// stops reading is dropped.
@Suite("End to end: event stream limits")
struct EndToEndEventStreamLimitTests {
    @Test("heartbeats keep an idle stream open past http.idle_timeout_ms, and it still delivers")
    func heartbeats() async throws {
        try await withServer(configure: {
            $0.heartbeatMs = 100
            $0.limits.idleTimeout = .milliseconds(300)
        }) { app in
            let stream = try RawHTTPConnection(port: app.port)
            try stream.request("GET", "/items/events")
            _ = try await offPool { try stream.readStreamHead() }
            try await Task.sleep(for: .seconds(1))  // past the idle time-out, several heartbeats
            _ = try await send(port: app.port, "POST", "/items", json: #"{"label":"still here"}"#)
            let events = try await offPool { try stream.readEvents(1) }
            #expect(events.first?["event"] == "created")
            #expect(stream.heartbeatsSeen >= 3)
        }
    }

    @Test(
        "past events.max_buffered_bytes for all subscribers the one furthest behind is dropped, a reader is not")
    func sharedBudget() async throws {
        try await withServer(configure: {
            $0.threads = 1  // one loop: its share is the whole budget
            $0.eventBufferBytes = 64 << 20  // so the shared bound is what drops the stalled one
            $0.eventBufferedBytes = 65_536
        }) { app in
            let stalled = try RawHTTPConnection(port: app.port, receiveBuffer: 4096)
            try stalled.request("GET", "/items/events")
            _ = try await offPool { try stalled.readStreamHead() }
            let reader = try RawHTTPConnection(port: app.port)
            try reader.request("GET", "/items/events")
            _ = try await offPool { try reader.readStreamHead() }
            let count = 400
            let label = String(repeating: "🎉", count: 480)  // about 2 KB an event: 800 KB in all
            // The reader takes each event before the next write: it is never behind, whatever else the machine
            // runs (reading on a thread of its own, a full parallel test run once left it 64 KB behind).
            let events = try await offPool {
                let connection = try RawHTTPConnection(port: app.port)
                var events: [[String: String]] = []
                for _ in 0..<count {
                    let body = #"{"label":"\#(label)"}"#
                    try connection.write(
                        "POST /items HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                            + "Content-Length: \(body.utf8.count)\r\n\r\n" + body)
                    #expect(try connection.readResponse().status == 201)
                    events += try reader.readEvents(1)
                }
                return events
            }
            #expect(events.count == count)
            #expect(events.compactMap { $0["id"].flatMap(Int.init) } == Array(1...count), "in order, none missed")
            // The stalled one was closed long before its own 64 MiB bound: what it was sent ends in the end of
            // the stream, not a timeout.
            let (bytes, error) = await (try? offPool { stalled.readUntilClosed() }) ?? ([], -1)
            #expect(error == 0 || error == ECONNRESET)
            #expect(bytes.count < 1 << 20)
        }
    }

    @Test("a subscriber that stops reading is dropped once events.max_buffer_bytes are unsent; others go on")
    func slowSubscriberDropped() async throws {
        try await withServer(configure: { $0.eventBufferBytes = 4096 }) { app in
            let stalled = try RawHTTPConnection(port: app.port, receiveBuffer: 4096)
            try stalled.request("GET", "/items/events")
            _ = try await offPool { try stalled.readStreamHead() }
            let label = String(repeating: "x", count: 450)
            // About 500 bytes per event: a few hundred fill the socket buffers, then the server's.
            for _ in 0..<100 {
                try await postLabels(port: app.port, label, count: 10)
            }
            // The stalled one was closed: reading what it was sent ends in the end of the stream, not a timeout.
            let (_, error) = await (try? offPool { stalled.readUntilClosed() }) ?? ([], -1)
            #expect(error == 0 || error == ECONNRESET)
            try await expectHealthy(port: app.port)
            #expect(try await fetch(port: app.port, "/items?limit=1").header("X-Total-Count") == "11000")
        }
    }
}
