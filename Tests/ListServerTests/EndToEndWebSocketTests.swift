import Foundation
import ListDomain
import Testing

@testable import ListServer

/// The change feed over a WebSocket (issue 36): `GET /items/events` with `Upgrade: websocket`, against a real
/// server, with a client framed by hand (``WebSocketTestClient``) so that the hostile frames can be sent too.
@Suite("End to end: WebSocket")
struct EndToEndWebSocketTests {
    @Test("the handshake: 101 with the RFC's accept value; a wrong version 426, a bad key or Connection 400")
    func handshake() async throws {
        try await withServer { app in
            let client = try await offPool { try WebSocketTestClient(port: app.port) }
            #expect(client.head.status == 101)
            #expect(client.head.header("Upgrade") == "websocket")
            #expect(client.head.header("Connection") == "Upgrade")
            // RFC 6455 §1.3's example.
            #expect(client.head.header("Sec-WebSocket-Accept") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
            #expect(client.head.header("Content-Length") == nil)
            #expect(client.head.header("Transfer-Encoding") == nil)

            let base = ["Upgrade: websocket", "Connection: keep-alive, Upgrade"]
            let version = try await fetch(
                port: app.port, "/items/events",
                headers: base + ["Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version: 8"])
            #expect(version.status == 426)
            #expect(version.header("Sec-WebSocket-Version") == "13")
            #expect(try version.jsonObject()["type"] as? String == "urn:listserver:problem:websocket-version")
            for key in ["", "short", "dGhlIHNhbXBsZSBub25jZQ", "dGhlIHNhbXBsZSBub25jZQ==x"] {
                let bad = try await fetch(
                    port: app.port, "/items/events",
                    headers: base + ["Sec-WebSocket-Key: \(key)", "Sec-WebSocket-Version: 13"])
                #expect(bad.status == 400, "key \(key)")
                #expect(try bad.jsonObject()["type"] as? String == "urn:listserver:problem:invalid-header")
            }
            let noConnection = try await fetch(
                port: app.port, "/items/events",
                headers: [
                    "Upgrade: websocket", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version: 13",
                ])
            #expect(noConnection.status == 400)
            // HTTP/1.0 has no upgrade (RFC 9110 §7.8: its `Upgrade` is ignored): the event stream, as without one.
            let old = try await offPool { () throws -> RawHTTPConnection.Response in
                let connection = try RawHTTPConnection(port: app.port)
                try connection.write(
                    "GET /items/events HTTP/1.0\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                        + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
                return try connection.readStreamHead()
            }
            #expect(old.status == 200)
            #expect(old.header("Content-Type") == "text/event-stream; charset=utf-8")
            #expect(old.header("Sec-WebSocket-Accept") == nil)
            try await expectHealthy(port: app.port)
        }
    }

    @Test("a WebSocket and an event stream get the same changes in the same order; ?since= replays what was missed")
    func sameEventsAsServerSentEvents() async throws {
        try await withServer { app in
            let socket = try await offPool { try WebSocketTestClient(port: app.port) }
            let stream = try RawHTTPConnection(port: app.port)
            try stream.request("GET", "/items/events")
            _ = try await offPool { try stream.readStreamHead() }
            _ = try await send(port: app.port, "POST", "/items", json: #"{"label":"one"}"#)
            _ = try await send(port: app.port, "PATCH", "/items/4", json: #"{"likes":9}"#)
            _ = try await send(port: app.port, "DELETE", "/items/5", contentType: nil)
            _ = try await send(port: app.port, "POST", "/conversations/2/messages", json: #"{"text":"hi"}"#)
            let events = try await offPool { try stream.readEvents(5) }
            let messages = try await offPool { try socket.readMessages(5) }.map { $0.json ?? [:] }
            let kinds = ["created", "updated", "deleted", "message.created", "conversation.updated"]
            #expect(events.map { $0["event"] } == kinds)
            #expect(messages.map { $0["kind"] as? String } == kinds)
            #expect(events.map { $0["id"].flatMap { Int($0) } } == messages.map { $0["sequence"] as? Int })
            #expect((messages[0]["item"] as? [String: Any])?["label"] as? String == "one")
            #expect(messages[2]["id"] as? Int == 5)
            #expect((messages[3]["message"] as? [String: Any])?["text"] as? String == "hi")
            // The same data as the event's, inside the message.
            let data = try JSONSerialization.jsonObject(with: Data(events[0]["data"]!.utf8)) as? [String: Any]
            #expect(data?["label"] as? String == "one")

            let resumed = try await offPool { try WebSocketTestClient(port: app.port, "/items/events?since=2") }
            #expect(resumed.head.status == 101)
            let replayed = try await offPool { try resumed.readMessages(3) }.map { $0.json ?? [:] }
            #expect(replayed.map { $0["sequence"] as? Int } == [3, 4, 5])
            let expired = try await offPool { try WebSocketTestClient(port: app.port, "/items/events?since=99") }
            let told = try await offPool { try expired.readMessages(1) }.map { $0.json ?? [:] }
            #expect(told[0]["kind"] as? String == "expired")
            #expect(told[0]["last_sequence"] as? Int == 5)
        }
    }

    @Test("/conversations/events carries the chat's changes only, with the feed's numbers, over WebSocket and SSE")
    func conversationEvents() async throws {
        try await withServer { app in
            let socket = try await offPool { try WebSocketTestClient(port: app.port, "/conversations/events") }
            #expect(socket.head.status == 101)
            let stream = try RawHTTPConnection(port: app.port)
            try stream.request("GET", "/conversations/events")
            _ = try await offPool { try stream.readStreamHead() }
            _ = try await send(port: app.port, "POST", "/items", json: #"{"label":"not chat"}"#)
            _ = try await send(port: app.port, "POST", "/conversations/1/messages", json: #"{"text":"chat"}"#)
            _ = try await send(port: app.port, "DELETE", "/items/3", contentType: nil)
            _ = try await send(port: app.port, "POST", "/conversations/1/read", json: #"{"up_to":0}"#)
            let messages = try await offPool { try socket.readMessages(3) }.map { $0.json ?? [:] }
            #expect(messages.map { $0["kind"] as? String } == ["message.created", "conversation.updated", "read"])
            #expect(messages.map { $0["sequence"] as? Int } == [2, 3, 5])
            let events = try await offPool { try stream.readEvents(3) }
            #expect(events.map { $0["event"] } == ["message.created", "conversation.updated", "read"])
            #expect(events.map { $0["id"] } == ["2", "3", "5"])
            // Resumed from an item's number: what follows it, the chat's only.
            let resumed = try await offPool { try WebSocketTestClient(port: app.port, "/conversations/events?since=3") }
            #expect(try await offPool { try resumed.readMessages(1) }.map { $0.json?["sequence"] as? Int } == [5])
        }
    }

    @Test("a client's typing reaches every subscriber of its dataset; a bad message is answered with an error")
    func typing() async throws {
        try await withServer { app in
            let typist = try await offPool {
                try WebSocketTestClient(port: app.port, headers: ["X-Client-Id: phone-1", "X-Dataset: chat"])
            }
            let watcher = try await offPool { try WebSocketTestClient(port: app.port, headers: ["X-Dataset: chat"]) }
            let stream = try RawHTTPConnection(port: app.port)
            try stream.request("GET", "/items/events?dataset=chat")
            _ = try await offPool { try stream.readStreamHead() }
            let other = try await offPool { try WebSocketTestClient(port: app.port) }  // the default dataset
            try typist.send(text: #"{"type":"typing","conversation":3}"#)
            let seen = try await offPool { try watcher.readMessages(1)[0] }.json ?? [:]
            #expect(seen["kind"] as? String == "typing")
            #expect(seen["conversation"] as? Int == 3)
            #expect(seen["client"] as? String == "phone-1")
            #expect(seen["duration_ms"] as? Int == 5000)
            #expect(seen["sequence"] == nil)  // never replayed
            let conversation = try await fetch(port: app.port, "/conversations/3", headers: ["X-Dataset: chat"])
            let user = try #require((try conversation.jsonObject()["participants"] as? [[String: Any]])?.first)
            #expect(seen["author_id"] as? Int == user["id"] as? Int)
            let event = try await offPool { try stream.readEvents(1)[0] }
            #expect(event["event"] == "typing")
            #expect(event["id"] == nil)
            #expect(try await offPool { try typist.readMessages(1)[0] }.json?["kind"] as? String == "typing")

            for bad in ["nonsense", #"{"type":"shout"}"#, #"{"type":"typing","conversation":50}"#, "[1]"] {
                try typist.send(text: bad)
                let answer = try await offPool { try typist.readMessages(1)[0] }.json ?? [:]
                #expect(answer["kind"] as? String == "error", "\(bad)")
                #expect((answer["problem"] as? [String: Any])?["status"] as? Int == 400, "\(bad)")
            }
            // Still open, and the other dataset's subscriber heard nothing: its next message is a change.
            _ = try await send(port: app.port, "POST", "/items", json: #"{"label":"after"}"#)
            #expect(try await offPool { try other.readMessages(1)[0] }.json?["kind"] as? String == "created")
        }
    }

    @Test("closing: the client's close is answered and the server closes; bad frames get 1002, 1003, 1007, 1009")
    func closeCodes() async throws {
        try await withServer { app in
            let polite = try await offPool { try WebSocketTestClient(port: app.port) }
            try polite.close(code: 1000)
            let answer = try await offPool { try polite.readFrameSkippingPings() }
            #expect(answer.closeCode == 1000)
            #expect(try await offPool { polite.connection.readUntilClosed().bytes.isEmpty })

            let cases: [(String, UInt16, @Sendable (WebSocketTestClient) throws -> Void)] = [
                ("unmasked", 1002, { try $0.send(opcode: WebSocketTestClient.text, Array("hi".utf8), masked: false) }),
                ("binary", 1003, { try $0.send(opcode: WebSocketTestClient.binary, [1, 2, 3]) }),
                ("not UTF-8", 1007, { try $0.send(opcode: WebSocketTestClient.text, [0x7B, 0xC3, 0x28, 0x7D]) }),
                (
                    "too big", 1009,
                    { try $0.send(opcode: WebSocketTestClient.text, Array(repeating: 0x20, count: 5000)) }
                ),
                (
                    "too many", 1008,
                    { client in
                        for _ in 0..<40 { try client.send(text: #"{"type":"typing","conversation":1}"#) }
                    }
                ),
            ]
            for (name, code, misbehave) in cases {
                let client = try await offPool { try WebSocketTestClient(port: app.port) }
                try misbehave(client)
                let close = try await offPool {
                    while true {
                        let frame = try client.readFrameSkippingPings()
                        if frame.opcode == WebSocketTestClient.close { return frame }
                    }
                }
                #expect(close.closeCode == code, "\(name)")
                try client.close(code: code)
                #expect(try await offPool { client.connection.readUntilClosed().errno } != EAGAIN, "\(name)")
            }
            try await expectHealthy(port: app.port)
        }
    }

    @Test("a client that ignores the server's close is dropped within two heartbeats, and nothing it sends is acted on")
    func ignoredClose() async throws {
        // A heartbeat of a second, as in `pings`: the stubborn client reads nothing before its bad frame, so a
        // slower one keeps CI's loaded full run from dropping it for unanswered pings first (with 500 ms it did once,
        // without a close to read).
        try await withServer(configure: { $0.heartbeatMs = 1000 }) { app in
            let stubborn = try await offPool {
                let client = try WebSocketTestClient(port: app.port, "/items/events?client_id=stubborn&dataset=s")
                try client.send(opcode: WebSocketTestClient.binary, [1])
                return client
            }
            let watcher = try await offPool { try WebSocketTestClient(port: app.port, "/items/events?dataset=s") }
            // The watcher reads (answering pings) all along: its first message must be the change posted below.
            async let watched = offPool { try watcher.readMessages(1)[0] }
            #expect(try await offPool { try stubborn.readFrameSkippingPings() }.closeCode == 1003)
            // It goes on as if nothing happened (each send may already find the socket closed): typing is not
            // announced, and its pongs do not keep it.
            try? stubborn.send(text: #"{"type":"typing","conversation":2}"#)
            // A pong every 100 ms would keep a client the pings judge: the close is what ends this one.
            let gone = try await offPool {
                for _ in 0..<50 {
                    guard (try? stubborn.send(opcode: WebSocketTestClient.pong, [])) != nil else { return true }
                    Thread.sleep(forTimeInterval: 0.1)
                }
                return false
            }
            #expect(gone, "the client that ignored the close was still connected after 5 s")
            _ = try await send(port: app.port, "POST", "/items", json: #"{"label":"next"}"#, headers: ["X-Dataset: s"])
            #expect(try await watched.json?["kind"] as? String == "created")
        }
    }

    @Test("a browser names itself with ?client_id= (it cannot send X-Client-Id); a longer one than 128 bytes is 400")
    func clientIDInQuery() async throws {
        try await withServer { app in
            let typist = try await offPool {
                try WebSocketTestClient(port: app.port, "/conversations/events?client_id=tab-7&dataset=q")
            }
            try typist.send(text: #"{"type":"typing","conversation":1}"#)
            #expect(try await offPool { try typist.readMessages(1)[0] }.json?["client"] as? String == "tab-7")
            let long = String(repeating: "x", count: 129)
            let refused = try await offPool {
                try WebSocketTestClient(port: app.port, "/items/events?client_id=\(long)")
            }
            #expect(refused.head.status == 400)
        }
    }

    @Test("heartbeats are pings; a client that answers none is dropped, one that answers stays")
    func pings() async throws {
        // A heartbeat of a second: a client that answers is given two (a shorter one dropped the lively client too
        // once, when the full suite kept its reading thread from running for most of a second).
        try await withServer(configure: { $0.heartbeatMs = 1000 }) { app in
            let silent = try await offPool { try WebSocketTestClient(port: app.port) }
            let lively = try await offPool { try WebSocketTestClient(port: app.port) }
            // The lively one answers every ping while it waits (readMessages does, as client libraries do).
            async let livelyGot = offPool { try lively.readMessages(1) }
            #expect(try await offPool { try silent.readFrame().opcode } == WebSocketTestClient.ping)
            // The silent one answers nothing: dropped after two unanswered pings.
            let (_, error) = try await offPool { silent.connection.readUntilClosed() }
            #expect(error == 0 || error == ECONNRESET)
            try await Task.sleep(for: .milliseconds(3000))  // three more heartbeats: the lively one stays
            _ = try await send(port: app.port, "POST", "/items", json: #"{"label":"still"}"#)
            #expect(try await livelyGot[0].json?["kind"] as? String == "created")
        }
    }

    @Test("a subscriber that stops reading is dropped once events.max_buffer_bytes are unsent; others go on")
    func slowReaderDropped() async throws {
        try await withServer(configure: { $0.eventBufferBytes = 4096 }) { app in
            let stalled = try await offPool { try WebSocketTestClient(port: app.port, receiveBuffer: 4096) }
            // About 1,400 bytes a message: 200 pass what the kernel's buffers hold (the server's send buffer is
            // capped at 64 KiB), then the server's bound.
            let label = String(repeating: "€", count: 450)
            for _ in 0..<20 {
                try await postLabels(port: app.port, label, count: 10)
            }
            let (_, error) = await (try? offPool { stalled.connection.readUntilClosed() }) ?? ([], -1)
            #expect(error == 0 || error == ECONNRESET)
            try await expectHealthy(port: app.port)
        }
    }

    @Test(
        """
        simulated participants (a profile's chat): typing on schedule, then the script's message from the script's \
        participant, over WebSocket and SSE alike
        """)
    func simulatedParticipants() async throws {
        try await withServer { app in
            let socket = try await offPool { try WebSocketTestClient(port: app.port, headers: ["X-Dataset: sim"]) }
            let stream = try RawHTTPConnection(port: app.port)
            try stream.request("GET", "/items/events?dataset=sim")
            _ = try await offPool { try stream.readStreamHead() }
            // One turn a second, typing for 400 ms.
            let profile = #"{"chat":{"messages_per_min":60,"typing_ms":400,"seed":11}}"#
            let set = try await send(port: app.port, "PUT", "/admin/datasets/sim/profile", json: profile)
            #expect(set.status == 200)
            let script = ChatActivityScript(
                ChatActivity(messagesPerMinute: 60, typing: .milliseconds(400), seed: 11),
                catalog: ChatCatalog(
                    seed: app.writes.lists.state(of: "sim").header.seed,
                    shape: ChatCatalog.Shape(conversations: 50, messagesPerConversation: 10_000)))
            // The schedule itself is checked on a manual clock (ChatActivityTests): here, timed by a client that a
            // loaded machine may run late, only the order and the contents.
            for number in UInt64(0)..<2 {
                let turn = script.turn(number)
                let participants = script.catalog.participants(of: turn.conversation)
                let typing = try await offPool { try socket.readMessages(1)[0] }.json ?? [:]
                #expect(typing["kind"] as? String == "typing")
                #expect(typing["conversation"] as? Int == Int(turn.conversation))
                #expect(typing["author_id"] as? Int == participants[turn.participant])
                #expect(typing["client"] is NSNull)
                #expect(typing["duration_ms"] as? Int == 400)
                let sent = try await offPool { try socket.readMessages(2) }.map { $0.json ?? [:] }
                #expect(sent.map { $0["kind"] as? String } == ["message.created", "conversation.updated"])
                let message = sent[0]["message"] as? [String: Any]
                #expect(message?["text"] as? String == turn.text)
                #expect(message?["author_id"] as? Int == participants[turn.participant])
                #expect(message?["conversation"] as? Int == Int(turn.conversation))
                // The event stream saw the same three, typing without an id.
                let events = try await offPool { try stream.readEvents(3) }
                #expect(events.map { $0["event"] } == ["typing", "message.created", "conversation.updated"])
                #expect(events[0]["id"] == nil)
            }
            let cleared = try await send(port: app.port, "DELETE", "/admin/datasets/sim/profile", contentType: nil)
            #expect(cleared.status == 204)
            #expect(app.simulatedDatasets == 0)
        }
    }

    @Test("shutdown closes every WebSocket with 1001 at the start of the drain")
    func shutdownClosesWebSockets() async throws {
        let app = try await Application.start(settings: testSettings())
        let client = try await offPool { try WebSocketTestClient(port: app.port) }
        let started = ContinuousClock.now
        await app.shutdown(grace: .seconds(5))
        #expect(ContinuousClock.now - started < .seconds(4))
        let close = try await offPool { try client.readFrameSkippingPings() }
        #expect(close.closeCode == 1001)
    }

    @Test("the server's close waits for the client's before the connection ends; a client that never answers is let go")
    func serverCloseWaitsForTheClient() async throws {
        let app = try await Application.start(settings: testSettings())
        let polite = try await offPool { try WebSocketTestClient(port: app.port) }
        let silent = try await offPool { try WebSocketTestClient(port: app.port) }
        let started = ContinuousClock.now
        async let drained: Void = app.shutdown(grace: .seconds(5))
        #expect(try await offPool { try polite.readFrameSkippingPings() }.closeCode == 1001)
        // RFC 6455 §7.1.1: the TCP connection ends after the client's close, not before (closed at once, with the
        // client's bytes unread, it could be reset and the close lost).
        try await Task.sleep(for: .milliseconds(300))
        let ended = polite.connection.hasPendingInput
        // The server waits a second for the answer (`webSocketCloseWait`) from its close, which went out after
        // `started`: a test held up past that (the full suite's parallel tests did, between the close's sending
        // and its reading) tells nothing, and the server has rightly let the client go.
        let waited = ContinuousClock.now - started
        #expect(!ended || waited >= .milliseconds(900), "the connection ended \(waited) after the close, unanswered")
        if !ended {
            try polite.close(code: 1001)
            #expect(try await offPool { polite.connection.readsEndOfStream() })
        }
        #expect(try await offPool { try silent.readFrameSkippingPings() }.closeCode == 1001)
        #expect(try await offPool { silent.connection.readsEndOfStream() }, "the silent client was not let go")
        await drained
        #expect(ContinuousClock.now - started < .seconds(4))
    }
}
