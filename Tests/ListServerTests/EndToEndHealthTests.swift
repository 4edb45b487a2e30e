import Foundation
import Testing

@testable import ListServer

/// `/healthz`, `/readyz` and the `--health-check` probe against real servers on 127.0.0.1.
@Suite("End to end: health, readiness and the probe")
struct EndToEndHealthTests {
    @Test("/healthz and /readyz answer 200 over HTTP; HEAD has the GET headers and no body")
    func probesOverHTTP() async throws {
        try await withServer { app in
            let health = try await fetch(port: app.port, "/healthz")
            #expect(health.status == 200)
            #expect(health.text == #"{"status":"ok"}"#)
            let ready = try await fetch(port: app.port, "/readyz")
            #expect(ready.status == 200)
            #expect(ready.text == #"{"status":"ready","store":"ok"}"#)
            let head = try await fetch(port: app.port, "/readyz", method: "HEAD")
            #expect(head.status == 200)
            #expect(head.header("Content-Length") == "31")
            #expect(head.body.isEmpty)
        }
    }

    @Test("/readyz is 503 with Connection: close on a kept-alive connection once the server drains")
    func readinessWhileDraining() async throws {
        // One loop: the slow request keeps the idle connection's loop draining.
        let app = try await Application.start(settings: testSettings(threads: 1, latencyMs: 1500))
        let port = app.port

        // A kept-alive connection that is ready before shutdown ...
        let idle = try RawHTTPConnection(port: port)
        let before = try await offPool { () -> RawHTTPConnection.Response in
            try idle.request("GET", "/readyz")
            return try idle.readResponse()
        }
        #expect(before.status == 200)
        #expect(before.header("Connection") != "close")

        // ... a slow request in flight, so that draining lasts ...
        async let slow = fetch(port: port, "/items/3/detail")
        try await waitForStoreFetches(app, 1)
        #expect(app.cache.statistics.storeFetches == 1)

        // ... and shutdown begun: it has begun once new connections are refused (bounded wait).
        async let stopped: Void = app.shutdown(grace: .seconds(5))
        let refused = try await waitUntil(
            "the listener to refuse new connections once draining begins", every: .milliseconds(5),
            describe: { _ in "a new connection was still accepted" },
            observe: { (try? RawHTTPConnection(port: port)) == nil }, isDone: { $0 })
        #expect(refused, "the listener closed when draining began")

        let during = try await offPool { () -> (RawHTTPConnection.Response, Bool) in
            try idle.request("GET", "/readyz")
            let response = try idle.readResponse()
            return (response, idle.readsEndOfStream())
        }
        #expect(during.0.status == 503)
        #expect(during.0.header("Connection")?.lowercased() == "close")
        #expect(try during.0.jsonObject()["type"] as? String == "urn:listserver:problem:shutting-down")
        #expect(during.1, "the server closes the connection after the 503")

        #expect(try await slow.status == 200, "the request in flight still completes")
        await stopped
    }

    @Test("the probe reports a running server healthy")
    func probeHealthy() async throws {
        try await withServer { app in
            let port = app.port
            let outcome = try await offPool { HealthProbe.check(host: "0.0.0.0", port: port) }
            #expect(outcome.healthy)
            #expect(outcome.line.hasPrefix("healthy: GET http://127.0.0.1:\(port)/healthz answered 200 in "))
        }
    }

    @Test("the probe reports a closed port unhealthy at once")
    func probeClosedPort() async throws {
        let port = try ReservedPort()
        let started = ContinuousClock.now
        let outcome = HealthProbe.check(host: "127.0.0.1", port: port.number)
        #expect(!outcome.healthy)
        #expect(outcome.line == "unhealthy: GET http://127.0.0.1:\(port.number)/healthz: connect: Connection refused")
        #expect(ContinuousClock.now - started < .seconds(1))
    }

    @Test("the probe gives up at its timeout when the server accepts but never answers")
    func probeTimesOut() async throws {
        let silent = try ReservedPort(listening: true)  // the kernel completes the handshake; nobody reads
        let started = ContinuousClock.now
        let outcome = HealthProbe.check(host: "127.0.0.1", port: silent.number, timeout: .milliseconds(300))
        let elapsed = ContinuousClock.now - started
        #expect(!outcome.healthy)
        #expect(outcome.line.contains("no answer within"), "\(outcome.line)")
        #expect(elapsed >= .milliseconds(300) && elapsed < .seconds(2), "took \(elapsed)")
    }

    @Test("the probe counts any status but 200 as unhealthy")
    func probeOtherStatus() async throws {
        let server = try ReservedPort(listening: true)
        async let outcome = offPool { HealthProbe.check(host: "127.0.0.1", port: server.number) }
        try await offPool { try server.answerOnce("HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n") }
        let result = try await outcome
        #expect(!result.healthy)
        #expect(result.line.hasPrefix("unhealthy: GET http://127.0.0.1:\(server.number)/healthz answered 503 in "))
    }

    @Test("ListServer --health-check exits 0 for a running server and 1 for a closed port, with one line")
    func probeProcess() async throws {
        try await withServer { app in
            let (status, output) = try await runProbe(["--health-check", "--port", String(app.port)])
            #expect(status == 0)
            let expected = "healthy: GET http://127.0.0.1:\(app.port)/healthz answered 200 in \(output.msField) ms\n"
            #expect(output == expected)
        }
        let closed = try ReservedPort()
        // The port comes from the environment here: the probe uses the same layering as the server.
        let (status, output) = try await runProbe(
            ["--health-check"], environment: ["LISTSERVER_PORT": String(closed.number)])
        #expect(status == 1)
        #expect(output == "unhealthy: GET http://127.0.0.1:\(closed.number)/healthz: connect: Connection refused\n")
    }

    /// Runs the ListServer executable built next to the tests; returns its exit status and standard output.
    private func runProbe(
        _ arguments: [String], environment: [String: String] = [:]
    ) async throws -> (Int32, String) {
        try await ListServerProcess.run(arguments, environment: environment, collecting: .standardOutput)
    }
}

extension String {
    /// The field before the final " ms" of a probe line (its duration), for comparing the rest exactly.
    fileprivate var msField: Substring {
        split(separator: " ").dropLast().last ?? ""
    }
}

/// A TCP port on 127.0.0.1 held by a socket of the test: nothing else can listen there while it lives.
///
/// Not listening, a connection to it is refused; listening, the kernel accepts connections into the backlog and
/// nobody answers unless ``answerOnce(_:)`` is called.
final class ReservedPort: Sendable {
    let fd: Int32
    let number: Int

    init(listening: Bool = false) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound, !listening || listen(fd, 8) == 0 else {
            close(fd)
            throw TestFailure("bind/listen: errno \(errno)")
        }
        self.fd = fd
        number = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(fd) }

    /// Accepts one connection, reads its request head, writes `response` and closes.
    func answerOnce(_ response: String) throws {
        let client = accept(fd, nil, nil)
        guard client >= 0 else { throw TestFailure("accept: errno \(errno)") }
        defer { close(client) }
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1024)
        while !received.suffix(4).elementsEqual([13, 10, 13, 10]) {
            let count = chunk.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { throw TestFailure("recv: \(count)") }
            received += chunk[..<count]
        }
        let bytes = Array(response.utf8)
        _ = bytes.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }
}
