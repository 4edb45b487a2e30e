import Foundation
import Testing

@testable import ListServer

/// `X-Request-Id`: echoed when the client sends a usable one, made up otherwise, on every answer, and in the access
/// log.
@Suite("End to end: X-Request-Id")
struct EndToEndRequestIDTests {
    /// Whether `id` looks like a server-made one: `<8 hex>-<loop>-<hex counter>`.
    static func isGenerated(_ id: String) -> Bool {
        (try? /[0-9a-f]{8}-[0-9]+-[0-9a-f]+/.wholeMatch(in: id)) != nil
    }

    @Test("a usable X-Request-Id is echoed, on answers, errors and details alike")
    func echoed() async throws {
        try await withServer { app in
            let longest = String(repeating: "x", count: 128)
            for (target, id) in [
                ("/items", "trace-1"), ("/nope", "a.b:c/d@e!~"), ("/items/1/detail", longest), ("/items?fail=503", "z"),
            ] {
                let response = try await fetch(port: app.port, target, headers: ["X-Request-Id: \(id)"])
                #expect(response.header("X-Request-Id") == id, "\(target)")
                #expect(response.headers(named: "X-Request-Id").count == 1)
            }
        }
    }

    @Test(
        "an unusable X-Request-Id is replaced by a generated one",
        arguments: [String(repeating: "x", count: 129), "has space", "tab\there", "caf\u{e9}", ""])
    func replaced(id: String) async throws {
        try await withServer { app in
            let response = try await fetch(port: app.port, "/items", headers: ["X-Request-Id: \(id)"])
            let echoed = try #require(response.header("X-Request-Id"))
            #expect(echoed != id)
            #expect(Self.isGenerated(echoed), "\(echoed)")
        }
    }

    @Test("without one, every answer gets a generated id, distinct across loops and connections")
    func generatedIDs() async throws {
        try await withServer { app in
            let port = app.port
            let ids = try await withThrowingTaskGroup(of: String?.self) { group in
                for index in 0..<100 {
                    group.addTask {
                        try await fetch(port: port, index % 2 == 0 ? "/items" : "/healthz").header("X-Request-Id")
                    }
                }
                return try await group.reduce(into: [String?]()) { $0.append($1) }
            }
            let present = ids.compactMap { $0 }
            #expect(present.count == 100)
            #expect(Set(present).count == 100)
            #expect(present.allSatisfy(Self.isGenerated))
            #expect(Set(present.map { $0.split(separator: "-")[0] }).count == 1, "one process prefix")
        }
    }

    @Test("a refused request head is answered with an id too")
    func rejection() async throws {
        try await withServer { app in
            let response = try await offPool { [port = app.port] in
                let connection = try RawHTTPConnection(port: port)
                try connection.write("GET /items HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n")
                return try connection.readResponse()
            }
            #expect(response.status == 400)
            let id = try #require(response.header("X-Request-Id"))
            #expect(Self.isGenerated(id), "\(id)")
        }
    }

    @Test("the access log line carries the id the response carried")
    func accessLog() async throws {
        let log = CapturedLog()
        try await EndToEndLoggingTests.withLoggedServer(log, format: .text) { app in
            let sent = try await fetch(port: app.port, "/items/1", headers: ["X-Request-Id: from-client"])
            let made = try await fetch(port: app.port, "/items/2")
            let lines = try await EndToEndLoggingTests.lines(log, count: 2)
            #expect(sent.header("X-Request-Id") == "from-client")
            #expect(lines[0].hasSuffix(" request_id=from-client"), "\(lines[0])")
            let madeID = try #require(made.header("X-Request-Id"))
            #expect(lines[1].hasSuffix(" request_id=\(madeID)"), "\(lines[1])")
        }
    }

    @Test("the JSON access log has request_id, and fault for an injected wire fault")
    func jsonAccessLog() async throws {
        let log = CapturedLog()
        try await EndToEndLoggingTests.withLoggedServer(log, format: .json) { app in
            _ = try await fetch(port: app.port, "/items/1", headers: ["X-Request-Id: json-1"])
            _ = try await EndToEndFaultTests.readUntilClosed(port: app.port, "/items?fail=reset")
            let objects = try await EndToEndLoggingTests.lines(log, count: 2).map(LoggingTests.object)
            let metadata = objects.compactMap { $0["metadata"] as? [String: Any] }
            #expect(metadata.first?["request_id"] as? String == "json-1")
            #expect(metadata.first?["fault"] == nil)
            #expect(metadata.last?["fault"] as? String == "reset")
            #expect(metadata.last?["status"] as? Int == 0)
            #expect((metadata.last?["request_id"] as? String).map(Self.isGenerated) == true)
        }
    }
}
