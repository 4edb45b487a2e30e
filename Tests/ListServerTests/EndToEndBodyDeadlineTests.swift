import Foundation
import Testing

@testable import ListServer

/// A body has a deadline and a minimum rate, and a probe gets in while clients hold every connection: a request
/// whose head came and whose body never completes once stayed open past every timeout (84 s seen), and 40 of them
/// with `--max-connections 40` kept `/healthz` from answering for 72 s.
@Suite("End to end: body deadlines and the reserve")
struct EndToEndBodyDeadlineTests {
    static let host = "Host: 127.0.0.1\r\n"

    /// Reads the answer to a body that stalls, and how long it took from `start`.
    static func answerToStall(
        _ connection: RawHTTPConnection, since start: ContinuousClock.Instant
    ) throws -> (RawHTTPConnection.Response, Duration) {
        let response = try connection.readResponse()
        return (response, ContinuousClock.now - start)
    }

    @Test("a body that stops coming gets 408 after http.body_timeout_ms and the connection is closed")
    func bodyTimeout() async throws {
        try await withServer(configure: {
            $0.limits.bodyTimeout = .milliseconds(600)
            $0.limits.minBodyRate = 0
        }) { app in
            let port = app.port
            let (response, waited, closed) = try await offPool {
                let connection = try RawHTTPConnection(port: port)
                let start = ContinuousClock.now
                try connection.write(
                    "POST /items HTTP/1.1\r\n\(Self.host)Content-Type: application/json\r\nContent-Length: 100\r\n\r\n"
                        + #"{"label":"#)
                let (response, waited) = try Self.answerToStall(connection, since: start)
                return (response, waited, connection.readsEndOfStream())
            }
            #expect(response.status == 408)
            #expect(response.header("Content-Type") == "application/problem+json")
            #expect(response.header("Connection") == "close")
            #expect(
                try response.jsonObject()["detail"] as? String
                    == "the request body did not arrive within 600 ms of its head (9 of 100 bytes)")
            #expect(waited >= .milliseconds(550) && waited < .seconds(3), "\(waited)")
            #expect(closed)
            try await expectHealthy(port: port)
        }
    }

    @Test("a body that trickles below http.min_body_rate gets 408 after its first second, long before the deadline")
    func minimumRate() async throws {
        try await withServer(configure: { $0.limits.minBodyRate = 8_192 }) { app in
            let port = app.port
            let (response, waited) = try await offPool {
                let connection = try RawHTTPConnection(port: port)
                let start = ContinuousClock.now
                try connection.write(
                    "PUT /items/1/image HTTP/1.1\r\n\(Self.host)Content-Type: image/png\r\nContent-Length: 1000000\r\n\r\n"
                )
                // 1 KB every 100 ms: 10 KB/s at first, then nothing; 8 KiB/s is the minimum after the first second.
                for _ in 0..<10 {
                    try connection.write(String(repeating: "z", count: 1_000))
                    Thread.sleep(forTimeInterval: 0.1)
                }
                return try Self.answerToStall(connection, since: start)
            }
            #expect(response.status == 408)
            #expect(
                (try response.jsonObject()["detail"] as? String)?.contains("slower than 8192 bytes a second") == true)
            #expect(waited < .seconds(5), "\(waited)")  // http.body_timeout_ms is 10 s
            try await expectHealthy(port: port)
        }
    }

    @Test("a stalled upload's share of the budget comes back when its deadline passes")
    func budgetReturnedAtDeadline() async throws {
        try await withServer(configure: {
            $0.limits.maxUploadBytes = 100_000
            $0.limits.maxBodyBytes = 1_000
            $0.limits.bodyTimeout = .seconds(2)
            $0.limits.minBodyRate = 0
        }) { app in
            let port = app.port
            let head = "PUT /items/1/image HTTP/1.1\r\n\(Self.host)Content-Type: image/png\r\n"
            let stalled = try await offPool {
                try (0..<UploadBudget.uploadsInFlight).map { _ in
                    let connection = try RawHTTPConnection(port: port)
                    try connection.write(
                        head + "Content-Length: 100000\r\n\r\n" + String(repeating: "y", count: 99_000))
                    return connection
                }
            }
            try await waitUntil("the budget is taken", describe: { "\($0) bytes" }, observe: { app.uploadsInUse }) {
                $0 >= 8 * 99_000
            }
            // Past the deadline every stalled upload was answered 408 and what it took is back.
            let statuses = try await offPool { try stalled.map { try $0.readResponse().status } }
            #expect(statuses == Array(repeating: 408, count: UploadBudget.uploadsInFlight))
            try await waitUntil("the budget is returned", describe: { "\($0) bytes" }, observe: { app.uploadsInUse }) {
                $0 == 0
            }
        }
    }

    @Test("bodies over 8 KiB share the budget too: stalled ones fill it, one more is 503, a small write goes on")
    func largeBodiesShareTheBudget() async throws {
        try await withServer(configure: {
            $0.limits.maxBodyBytes = 40_000
            $0.limits.maxUploadBytes = 20_000  // a budget of 8 × 40,000 bytes: eight of the largest bodies
            $0.limits.minBodyRate = 0
        }) { app in
            let port = app.port
            let head =
                "POST /items HTTP/1.1\r\n\(Self.host)Content-Type: application/json\r\nContent-Length: 40000\r\n\r\n"
            // Eight JSON bodies of 40,000 bytes (within http.max_body_bytes), 39,000 sent each: 312,000 bytes held.
            let stalled = try await offPool {
                try (0..<8).map { _ in
                    let connection = try RawHTTPConnection(port: port)
                    try connection.write(head + String(repeating: " ", count: 39_000))
                    return connection
                }
            }
            try await waitUntil("the budget is taken", describe: { "\($0) bytes" }, observe: { app.uploadsInUse }) {
                $0 >= 312_000
            }
            let refused = try await offPool { () -> RawHTTPConnection.Response in
                let connection = try RawHTTPConnection(port: port)
                try connection.write(head + String(repeating: " ", count: 20_000))
                return try connection.readResponse()
            }
            #expect(refused.status == 503)
            #expect(refused.header("Retry-After") == "1")
            #expect(String(decoding: refused.body, as: UTF8.self).contains("urn:listserver:problem:server-busy"))
            // A write of a few hundred bytes does not count, and goes on.
            let small = try await send(port: port, "POST", "/items", json: #"{"label":"small"}"#)
            #expect(small.status == 201)
            for connection in stalled { connection.hangUp() }
            try await waitUntil("the budget is returned", describe: { "\($0) bytes" }, observe: { app.uploadsInUse }) {
                $0 == 0
            }
        }
    }

    @Test("with every connection held by stalled bodies, /healthz, /metrics and admin get in; other paths get 503")
    func reserve() async throws {
        try await withServer(configure: {
            $0.threads = 1
            $0.limits.maxConnections = 4
            $0.limits.reservedConnections = 2
            $0.limits.minBodyRate = 0  // the stalled bodies hold their connections until the 10 s deadline
        }) { app in
            let port = app.port
            let stalled = try await offPool {
                try (0..<4).map { _ in
                    let connection = try RawHTTPConnection(port: port)
                    try connection.write(
                        "POST /items HTTP/1.1\r\n\(Self.host)Content-Type: application/json\r\nContent-Length: 50\r\n\r\n{"
                    )
                    return connection
                }
            }
            try await waitUntil("four connections are open") {
                app.openConnections
            } isDone: {
                $0 >= 4
            }
            // Answered at once, not after a stalled body's deadline (scripts/stall-test.sh times it under load).
            for target in ["/healthz", "/readyz", "/metrics"] {
                #expect(try await fetch(port: port, target).status == 200, "\(target)")
            }
            let page = try await fetch(port: port, "/items?limit=1")
            #expect(page.status == 503)
            #expect(page.header("Retry-After") == "1")
            #expect(try page.jsonObject()["type"] as? String == "urn:listserver:problem:server-busy")
            let reset = try await send(port: port, "POST", "/admin/reset", json: "{}")
            #expect(reset.status == 200)
            withExtendedLifetime(stalled) {}
        }
    }
}
