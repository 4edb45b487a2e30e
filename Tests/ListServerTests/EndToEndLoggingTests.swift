import Foundation
import Logging
import Testing

@testable import ListServer

/// The access log of a real server: one line per request, in either format, and none when it is off.
@Suite("End to end: the access log")
struct EndToEndLoggingTests {
    /// Runs `body` against a server on 127.0.0.1:0 whose access lines go to `log`.
    static func withLoggedServer(
        _ log: CapturedLog,
        format: LogFormat,
        configure: (inout Settings) -> Void = { _ in },
        _ body: (Application) async throws -> Void
    ) async throws {
        // One loop: a line is written just after its answer is sent, so with two loops the next request's line
        // (answered by the other loop) could come first, and these tests read the lines in request order.
        var settings = Settings(threads: 1)
        settings.host = "127.0.0.1"
        settings.port = 0
        settings.latencyMinMs = 100
        settings.latencyMaxMs = 100
        settings.logging.format = format
        configure(&settings)
        let app = try await Application.start(
            settings: settings, accessLogger: log.logger("ListServer.access", format: format))
        do {
            try await body(app)
        } catch {
            await app.shutdown(grace: .seconds(5))
            throw error
        }
        await app.shutdown(grace: .seconds(5))
    }

    /// The lines logged once there are `count` of them (a line is written just after its answer is sent).
    ///
    /// - Throws: ``TestFailure`` showing the lines logged so far when there are still fewer after 10 s.
    static func lines(_ log: CapturedLog, count: Int) async throws -> [String] {
        try await waitUntil(
            "\(count) access log lines", describe: { "\($0.count) lines:\n\($0.joined(separator: "\n"))" },
            observe: { log.lines }, isDone: { $0.count >= count })
        #expect(log.lines.count == count, "\(log.text)")
        return log.lines
    }

    /// Sends the same requests to either format's server: a page, a HEAD, a detail miss and hit with a request id,
    /// a 404 and a refused head. Returns the size of the page's body, which the first line must log.
    static func sendRequests(_ port: Int) async throws -> Int {
        let page = try await fetch(port: port, "/items?page=2&limit=2")
        _ = try await fetch(port: port, "/items/7", method: "HEAD")
        _ = try await fetch(port: port, "/items/9/detail", headers: ["X-Request-Id: trace-1"])
        _ = try await fetch(port: port, "/items/9/detail")
        _ = try await fetch(port: port, "/nope")
        _ = try await offPool {
            let connection = try RawHTTPConnection(port: port)
            try connection.write("GET /items HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n")
            return try connection.readResponse()
        }
        return page.body.count
    }

    @Test("text: method, path, status, bytes, milliseconds, cache result and request id in the message")
    func text() async throws {
        let log = CapturedLog()
        try await Self.withLoggedServer(log, format: .text) { app in
            let pageBytes = try await Self.sendRequests(app.port)
            let lines = try await Self.lines(log, count: 6)
            let messages = lines.map { $0.components(separatedBy: " info ListServer.access: [ListServer] ").last ?? "" }
            let pattern = /(\S+) (\S+) (\d{3}) (\d+)B (\d+\.\d{3})ms cache=(\S+)(.*)/
            let fields = messages.map { message in
                (try? pattern.wholeMatch(in: message)).map {
                    [$0.1, $0.2, $0.3, $0.4, $0.6, $0.7].map(String.init)
                } ?? [message]
            }
            #expect(pageBytes > 0)
            // Requests without an X-Request-Id are logged with the id the server made up for them.
            let madeUp = fields.map {
                $0.last.map { EndToEndRequestIDTests.isGenerated(String($0.dropFirst(12))) } ?? false
            }
            #expect(
                fields[0].dropLast() == ["GET", "/items?page=2&limit=2", "200", String(pageBytes), "-"] && madeUp[0])
            #expect(fields[1].dropLast() == ["HEAD", "/items/7", "200", "0", "-"] && madeUp[1])
            #expect(fields[2] == ["GET", "/items/9/detail", "200", "36", "MISS", " request_id=trace-1"])
            #expect(fields[3].dropLast() == ["GET", "/items/9/detail", "200", "36", "HIT"] && madeUp[3])
            #expect(fields[4].prefix(5) == ["GET", "/nope", "404", fields[4][3], "-"])
            #expect(fields[5].first == "-" && fields[5][2] == "400", "\(messages[5])")
            #expect(messages[5].hasSuffix("rejected: the request has more than one Content-Length field"))
            #expect(messages[5].contains(" request_id="))
            let miss = try #require(try pattern.wholeMatch(in: messages[2]))
            #expect((Double(miss.5) ?? 0) >= 100)
        }
    }

    @Test("json: the fields are metadata with numbers as numbers")
    func json() async throws {
        let log = CapturedLog()
        try await Self.withLoggedServer(log, format: .json) { app in
            let pageBytes = try await Self.sendRequests(app.port)
            let objects = try await Self.lines(log, count: 6).map(LoggingTests.object)
            let metadata = objects.compactMap { $0["metadata"] as? [String: Any] }
            #expect(metadata.count == 6)
            #expect(
                objects.allSatisfy { $0["label"] as? String == "ListServer.access" && $0["level"] as? String == "info" }
            )
            #expect(objects[0]["message"] as? String == "GET /items?page=2&limit=2 200")
            #expect(metadata[0]["method"] as? String == "GET")
            #expect(metadata[0]["path"] as? String == "/items?page=2&limit=2")
            #expect(metadata[0]["status"] as? Int == 200)
            #expect(pageBytes > 0)
            #expect(metadata[0]["bytes"] as? Int == pageBytes)
            #expect(metadata[0]["duration_ms"] is Double || metadata[0]["duration_ms"] is Int)
            #expect(metadata[0]["cache"] as? String == "-")
            #expect((metadata[0]["request_id"] as? String).map(EndToEndRequestIDTests.isGenerated) == true)
            #expect(metadata[1]["bytes"] as? Int == 0)
            #expect(metadata[2]["cache"] as? String == "MISS")
            #expect(metadata[2]["request_id"] as? String == "trace-1")
            #expect(((metadata[2]["duration_ms"] as? NSNumber)?.doubleValue ?? 0) >= 100)
            #expect(metadata[3]["cache"] as? String == "HIT")
            #expect(metadata[4]["status"] as? Int == 404)
            #expect(metadata[5]["status"] as? Int == 400)
            #expect(metadata[5]["method"] as? String == "-")
            #expect(metadata[5]["rejection"] as? String == "the request has more than one Content-Length field")
        }
    }

    @Test("an image's cache result is logged as a detail's is: MISS, then HIT")
    func imageCache() async throws {
        let log = CapturedLog()
        try await Self.withLoggedServer(log, format: .text) { app in
            for _ in 0..<2 { #expect(try await fetch(port: app.port, "/items/4/image?w=16&h=16").status == 200) }
            let lines = try await Self.lines(log, count: 2)
            #expect(lines[0].contains(" GET /items/4/image?w=16&h=16 200 ") && lines[0].contains(" cache=MISS "))
            #expect(lines[1].contains(" cache=HIT "), "\(lines[1])")
        }
    }

    @Test("log.access false, or a level above info, writes no access lines", arguments: [false, true])
    func off(byLevel: Bool) async throws {
        let log = CapturedLog()
        try await Self.withLoggedServer(
            log, format: .text,
            configure: { settings in
                if byLevel { settings.logging.level = .notice } else { settings.logging.accessLog = false }
            }
        ) { app in
            #expect(app.observability.accessLog == nil)
            let response = try await fetch(port: app.port, "/items")
            #expect(response.status == 200)
        }
        #expect(log.text.isEmpty)
    }
}
