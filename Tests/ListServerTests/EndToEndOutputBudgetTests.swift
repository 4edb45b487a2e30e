import Foundation
import Testing

@testable import ListServer

/// `http.max_output_bytes`: answers queued for clients that do not read are held to a budget; past it the
/// connections furthest behind are closed, and clients that read are served as ever.
@Suite("End to end: unread answers")
struct EndToEndOutputBudgetTests {
    /// A dataset whose written items make a page of about 200 KB: 100 items with 1,900-byte labels.
    static func fillBigPage(_ port: Int) async throws -> String {
        let label = String(repeating: "😀", count: 475)
        for index in 0..<100 {
            let response = try await send(
                port: port, "POST", "/items", json: #"{"label":"\#(index) \#(label)"}"#, headers: ["X-Dataset: big"])
            #expect(response.status == 201)
        }
        return "GET /items?after=9999&limit=100 HTTP/1.1\r\nHost: x\r\nX-Dataset: big\r\n\r\n"
    }

    @Test("clients that never read are closed, those holding most first, past the budget; a reader is served")
    func unreadAnswersAreBounded() async throws {
        try await withServer(configure: {
            $0.threads = 1  // one loop: its share is the whole budget
            // Set here below the 1 MiB a configuration may give, for a test of few connections: each holds one
            // answer at most (evhttp takes the next request once the answer before it has left the process).
            $0.limits.maxOutputBytes = 256 << 10
        }) { app in
            let port = app.port
            let page = try await Self.fillBigPage(port)
            // Six clients with small receive buffers ask for the page forty times each, and read nothing: 8 MB of
            // answers each, more than the kernel takes for a socket (tcp_wmem goes up to 4 MB), so that each holds
            // an answer in the server: more than 256 KiB together. Two sweeps (a second each) find them stuck.
            let asked = 40
            let hogs = try (0..<6).map { _ in try RawHTTPConnection(port: port, receiveBuffer: 4096) }
            for hog in hogs { try hog.write(String(repeating: page, count: asked)) }
            let held = try await EndToEndMetricsTests.scrape(port, waitingFor: "the hogs hold answers") {
                $0["listserver_http_output_unsent_bytes"] >= 100_000
            }
            // Within the budget, but for the answers' heads (the budget counts bodies) and small answers: what did
            // not fit was answered 503 while the hogs were not yet found stuck.
            #expect(held["listserver_http_output_unsent_bytes"] <= Double(256 << 10 + 16_384))

            // A client that reads gets the whole page: once two sweeps have found the hogs stuck, the ones holding
            // most are closed to make room for it (before that, it may be told to retry).
            let read = try await waitUntil(
                "a reader is served", every: .milliseconds(200), describe: { "\($0.status)" },
                observe: { try await fetch(port: port, "/items?after=9999&limit=100", headers: ["X-Dataset: big"]) },
                isDone: { $0.status == 200 })
            #expect((try read.jsonObject()["items"] as? [Any])?.count == 100)
            let after = try await EndToEndMetricsTests.scrape(port)
            #expect(after["listserver_http_connections_dropped_unread_total"] >= 1)
            #expect(after["listserver_http_output_unsent_bytes"] <= Double(256 << 10 + 16_384))

            // Every hog either was closed (its stream ends, having had only part of what it asked for) or gets
            // whole answers when it reads at last: a 200, or 503 server-busy for one asked while the others held
            // the budget and were not yet found stuck. None is left hanging.
            var closed = 0
            for hog in hogs {
                let outcome = try await offPool { () -> Bool in
                    var statuses: [Int] = []
                    while statuses.count < asked {
                        guard let response = try? hog.readResponse() else { return true }
                        statuses.append(response.status)
                    }
                    #expect(statuses.allSatisfy { $0 == 200 || $0 == 503 }, "\(statuses)")
                    return false
                }
                if outcome { closed += 1 }
            }
            #expect(closed >= 1)
        }
    }
}
