import Foundation
import Testing

@testable import ListServer

/// `?delay_ms` and `?fail=` over real HTTP: what a client sees on the wire, and that the server stays healthy.
@Suite("End to end: delays and injected faults")
struct EndToEndFaultTests {
    /// How long `body` took.
    static func timed<T>(_ body: () async throws -> T) async rethrows -> (T, Duration) {
        let start = ContinuousClock.now
        let result = try await body()
        return (result, start.duration(to: .now))
    }

    /// Sends `target` on a fresh connection and reads until the server closes it.
    static func readUntilClosed(port: Int, _ target: String, extra: String = "") async throws -> (
        bytes: [UInt8], errno: Int32
    ) {
        try await offPool {
            let connection = try RawHTTPConnection(port: port)
            try connection.write("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" + extra)
            return connection.readUntilClosed()
        }
    }

    /// Waits until the server holds one request besides the scrape that asks.
    static func waitUntilInFlight(_ port: Int) async throws {
        let metrics = try await EndToEndMetricsTests.scrape(
            port, waitingFor: "a request in flight besides the scrape"
        ) { $0["listserver_http_requests_in_flight"] >= 2 }
        #expect(metrics["listserver_http_requests_in_flight"] >= 2)
    }

    @Test("delay_ms holds a page, a health check and a cached detail for at least that long")
    func delays() async throws {
        try await withServer { app in
            _ = try await fetch(port: app.port, "/items/3/detail")  // cached: the detail's own time is not counted
            for target in ["/items?delay_ms=300", "/healthz?delay_ms=300", "/items/3/detail?delay_ms=300"] {
                let (response, elapsed) = try await Self.timed { try await fetch(port: app.port, target) }
                #expect(response.status == 200, "\(target)")
                #expect(elapsed >= .milliseconds(300), "\(target) took \(elapsed)")
            }
            let detail = try await fetch(port: app.port, "/items/3/detail?delay_ms=300")
            #expect(detail.header("X-Cache") == "HIT")
        }
    }

    @Test("a bad or too long delay_ms is a 400 problem naming it", arguments: ["30001", "abc", "-1", "1&delay_ms=2"])
    func badDelay(value: String) async throws {
        try await withServer { app in
            let response = try await fetch(port: app.port, "/items?delay_ms=\(value)")
            #expect(response.status == 400)
            #expect(response.header("Content-Type") == "application/problem+json")
            let json = try response.jsonObject()
            #expect(json["type"] as? String == "urn:listserver:problem:invalid-parameter")
            #expect(json["parameter"] as? String == "delay_ms")
        }
    }

    @Test(
        "fail=503, 429 or 500 is that status as an injected-fault problem; 503 and 429 with Retry-After",
        arguments: [(503, "1"), (429, "1"), (500, nil)])
    func statusFaults(status: Int, retryAfter: String?) async throws {
        try await withServer { app in
            for target in ["/items?fail=\(status)", "/items/42/detail?fail=\(status)"] {
                let response = try await fetch(port: app.port, target)
                #expect(response.status == status, "\(target)")
                #expect(response.header("Retry-After") == retryAfter)
                let json = try response.jsonObject()
                #expect(json["type"] as? String == "urn:listserver:problem:injected-fault")
                #expect(json["status"] as? Int == status)
                #expect(json["detail"] as? String == "this \(status) was injected (?fail=\(status))")
            }
            #expect(app.cache.statistics.storeFetches == 0)
        }
    }

    @Test("fail=reset resets the connection without an answer; the server answers the next connection")
    func reset() async throws {
        try await withServer { app in
            for target in ["/items?fail=reset", "/items/9/detail?fail=reset", "/items?fail=reset&delay_ms=100"] {
                let (bytes, code) = try await Self.readUntilClosed(port: app.port, target)
                #expect(bytes.isEmpty, "\(target)")
                #expect(code == ECONNRESET, "\(target): errno \(code)")
                try await expectHealthy(port: app.port)
            }
            // A request pipelined behind the reset one is lost with the connection, by design.
            let pipelined = "GET /items HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
            let (bytes, code) = try await Self.readUntilClosed(port: app.port, "/items?fail=reset", extra: pipelined)
            #expect(bytes.isEmpty && code == ECONNRESET)
            try await expectHealthy(port: app.port)
        }
    }

    @Test("fail=truncated sends the head with the full Content-Length, then half the body, then closes")
    func truncated() async throws {
        try await withServer { app in
            let full = try await fetch(port: app.port, "/items?page=2&limit=3")
            for target in ["/items?page=2&limit=3&fail=truncated", "/items?page=2&limit=3&fail=truncated&delay_ms=50"] {
                let (bytes, code) = try await Self.readUntilClosed(port: app.port, target)
                #expect(code == 0)
                let text = String(decoding: bytes, as: UTF8.self)
                let parts = text.components(separatedBy: "\r\n\r\n")
                #expect(parts[0].hasPrefix("HTTP/1.1 200"), "\(parts[0])")
                #expect(parts[0].contains("Content-Length: \(full.body.count)"), "\(parts[0])")
                #expect(parts[0].contains("Connection: close"))
                let body = Array(bytes.dropFirst(parts[0].utf8.count + 4))
                #expect(body.count == full.body.count / 2)
                #expect(body == Array(full.body.prefix(body.count)))
            }
            try await expectHealthy(port: app.port)
        }
    }

    @Test("fail=hang answers nothing for the hang limit, then closes the connection")
    func hang() async throws {
        try await withServer(faults: FaultSettings(hangLimit: .milliseconds(300))) { app in
            for target in ["/items?fail=hang", "/items/4/detail?fail=hang"] {
                let ((bytes, code), elapsed) = try await Self.timed {
                    try await Self.readUntilClosed(port: app.port, target)
                }
                #expect(bytes.isEmpty, "\(target)")
                #expect(code == 0, "\(target): errno \(code)")
                #expect(elapsed >= .milliseconds(300), "\(target) took \(elapsed)")
            }
            try await expectHealthy(port: app.port)
        }
    }

    @Test("a request that hangs when shutdown begins is answered 503 with Connection: close")
    func hangDuringShutdown() async throws {
        let app = try await Application.start(settings: testSettings(), faults: FaultSettings(hangLimit: .seconds(20)))
        let port = app.port
        async let answer = offPool {
            let connection = try RawHTTPConnection(port: port)
            try connection.request("GET", "/items?fail=hang", headers: ["X-Request-Id: hang-1"])
            return try connection.readResponse()
        }
        try await Self.waitUntilInFlight(port)  // the request has arrived and hangs
        await app.shutdown(grace: .seconds(10))
        let response = try await answer
        #expect(response.status == 503)
        #expect(response.header("Connection") == "close")
        #expect(response.header("X-Request-Id") == "hang-1")
        #expect(try response.jsonObject()["type"] as? String == "urn:listserver:problem:shutting-down")
    }

    @Test("a delayed request still in its delay at shutdown is answered when due, with Connection: close")
    func delayDuringShutdown() async throws {
        let app = try await Application.start(settings: testSettings())
        let port = app.port
        async let answer = offPool {
            let connection = try RawHTTPConnection(port: port)
            // Long enough to still be waiting when the shutdown begins on a slow machine (or under TSan, where
            // 1.5 s was not): the shutdown then waits for it, up to its 10 s grace.
            try connection.request("GET", "/items?page=1&limit=1&delay_ms=4000")
            return try connection.readResponse()
        }
        try await Self.waitUntilInFlight(port)
        await app.shutdown(grace: .seconds(10))
        let response = try await answer
        #expect(response.status == 200)
        #expect(response.header("Connection") == "close")
    }

    @Test("a client that hangs up while its request is delayed or hanging harms nothing")
    func clientLeaves() async throws {
        try await withServer(faults: FaultSettings(hangLimit: .milliseconds(200))) { app in
            let port = app.port
            for target in [
                "/items?delay_ms=200", "/items/5/detail?delay_ms=200", "/items?fail=hang",
                "/items?fail=reset&delay_ms=200",
                "/items?fail=truncated&delay_ms=200",
            ] {
                try await offPool {
                    let connection = try RawHTTPConnection(port: port)
                    try connection.request("GET", target)
                    Thread.sleep(forTimeInterval: 0.05)
                    connection.hangUp()
                }
            }
            try await Task.sleep(for: .milliseconds(700))  // every timer has fired on a request whose client left
            try await expectHealthy(port: port)
        }
    }

    @Test("after resets, hangs, truncations and clients leaving, no connection or request is left over")
    func nothingLeftOver() async throws {
        try await withServer(faults: FaultSettings(hangLimit: .milliseconds(100))) { app in
            let port = app.port
            for target in [
                "/items?fail=reset", "/items/8/detail?fail=reset", "/items?fail=truncated", "/items?fail=hang",
                "/items/8/detail?fail=hang&delay_ms=50",
            ] {
                _ = try await Self.readUntilClosed(port: port, target)
            }
            #expect(try await fetch(port: port, "/healthz?delay_ms=50").status == 200)
            for target in ["/items?fail=reset&delay_ms=100", "/items?fail=hang", "/items?delay_ms=100"] {
                try await offPool {
                    let connection = try RawHTTPConnection(port: port)
                    try connection.request("GET", target)
                    connection.hangUp()
                }
            }
            let settled = try await EndToEndMetricsTests.scrape(
                port, waitingFor: "every connection but the scrape's closed and no request in flight but it"
            ) {
                $0["listserver_http_connections_open"] == 1 && $0["listserver_http_requests_in_flight"] == 1
            }
            #expect(settled["listserver_http_connections_open"] == 1)  // the scrape's own
            #expect(settled["listserver_http_requests_in_flight"] == 1)
            #expect(settled.requests("/items", 0) == 4)  // resets and hangs: no status was sent
        }
    }
}
