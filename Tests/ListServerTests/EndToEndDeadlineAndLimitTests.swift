import Foundation
import Testing

@testable import ListServer

/// Deadlines and the connection limit, against a real server with short timeouts.
@Suite("End to end: deadlines and the connection limit")
struct EndToEndDeadlineAndLimitTests {
    @Test("a head that does not arrive within the header deadline gets 408 and a closed connection")
    func headerDeadline() async throws {
        try await withServer(configure: { $0.limits.headerTimeout = .milliseconds(400) }) { app in
            let port = app.port
            let (status, closed, waited) = try await offPool { () -> (Int?, Bool, Duration) in
                let connection = try RawHTTPConnection(port: port, timeout: 5)
                let start = ContinuousClock.now
                try connection.write("GET /items HTTP/1.1\r\nHost: 127")
                let status = try? connection.readResponse().status
                return (status, connection.readsEndOfStream(), ContinuousClock.now - start)
            }
            #expect(status == 408)
            #expect(closed)
            #expect(waited >= .milliseconds(400), "closed before the deadline: \(waited)")
            let after = try await fetch(port: port, "/items/1")
            #expect(after.status == 200)
        }
    }

    @Test("an idle keep-alive connection is closed after the idle timeout, quietly")
    func idleTimeout() async throws {
        try await withServer(configure: { $0.limits.idleTimeout = .milliseconds(400) }) { app in
            let port = app.port
            let (first, closed) = try await offPool { () -> (Int, Bool) in
                let connection = try RawHTTPConnection(port: port, timeout: 5)
                try connection.request("GET", "/items/1")
                let first = try connection.readResponse().status
                return (first, connection.readsEndOfStream())  // nothing more is sent: the server hangs up
            }
            #expect(first == 200)
            #expect(closed)
        }
    }

    @Test("slowloris: hundreds of dribbling clients are cut off by the deadline while others are served")
    func slowloris() async throws {
        try await withServer(configure: { $0.limits.headerTimeout = .milliseconds(1500) }) { app in
            let port = app.port
            let dribblers = 200
            // Each dribbler sends one byte every 100 ms and never finishes its head.
            let cutOff = Task {
                try await withThrowingTaskGroup(of: Bool.self) { group in
                    for _ in 0..<dribblers {
                        group.addTask {
                            try await offPool {
                                let connection = try RawHTTPConnection(port: port, timeout: 6)
                                try connection.write("GET /items HTTP/1.1\r\n")
                                for _ in 0..<50 {  // at most 5 s
                                    do { try connection.write("X") } catch { return true }
                                    usleep(100_000)
                                    if connection.hasPendingInput { break }
                                }
                                return (try? connection.readResponse().status) == 408
                            }
                        }
                    }
                    return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
                }
            }
            // Meanwhile, ordinary clients are answered.
            for id in 0..<20 {
                let answer = try await fetch(port: port, "/items/\(id)")
                #expect(answer.status == 200)
            }
            let cut = try await cutOff.value
            #expect(cut == dribblers)
        }
    }

    @Test("past the limit the reserve answers 503 server-busy, then clients wait; when others close, they are served")
    func connectionLimit() async throws {
        try await withServer(configure: {
            $0.limits.maxConnections = 10; $0.limits.reservedConnections = 1; $0.threads = 1
        }) { app in
            let port = app.port
            let (held, busy, answeredWhileFull) = try await offPool {
                () -> ([RawHTTPConnection], RawHTTPConnection.Response, Bool) in
                let held = try (0..<10).map { _ in try RawHTTPConnection(port: port, timeout: 5) }
                for connection in held {  // make sure each is accepted and in use
                    try connection.request("GET", "/items/1")
                    _ = try connection.readResponse()
                }
                // The eleventh is the reserve's: it serves probes and admins, and tells others to come back.
                let reserve = try RawHTTPConnection(port: port, timeout: 5)
                try reserve.request("GET", "/items/2")
                let busy = try reserve.readResponse()
                let waiting = try RawHTTPConnection(port: port, timeout: 1)
                try waiting.request("GET", "/items/2")
                // Past the limit no page is served: the reserve (freed as the 503 closed its connection) says busy
                // again, or the client waits in the listen backlog.
                return (held, busy, (try? waiting.readResponse())?.status == 200)
            }
            #expect(busy.status == 503)
            #expect(busy.header("Retry-After") == "1")
            #expect(answeredWhileFull == false, "a connection past the limit and the reserve was served")
            for connection in held { connection.hangUp() }
            try await waitUntil("the server sees them close") {
                app.openConnections
            } isDone: {
                $0 <= 1
            }
            let late = try await fetch(port: port, "/items/3")
            #expect(late.status == 200)
        }
    }
}
