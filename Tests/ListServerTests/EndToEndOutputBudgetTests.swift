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

    /// What one attempt at the scenario saw.
    struct Outcome {
        /// The unsent bytes once the hogs held answers; nil if they never held 100,000 bytes together.
        var held: Double?
        /// The reader's answer: its status and how many items it had.
        var readStatus = 0
        var readItems = 0
        /// After the reader was served: connections dropped for not reading, and the unsent bytes.
        var dropped = 0.0
        var unsentAfter = 0.0
        /// How many hogs found their connection closed, and whether every answer the others read was 200 or 503.
        var closed = 0
        var hogStatuses: [[Int]] = []
        /// Whether the setup held: the hogs held answers and at least one was closed for it.
        var settled: Bool { held != nil && dropped >= 1 && closed >= 1 }
    }

    @Test("clients that never read are closed, those holding most first, past the budget; a reader is served")
    func unreadAnswersAreBounded() async throws {
        // Whether the hogs end up holding answers in the server races the kernel, which takes more of an unread
        // answer as the socket's send buffer grows, and the budget, which answers 503 to hogs while another holds
        // it: a hog answered 503 runs through its requests and holds nothing. An attempt in which no hog held an
        // answer long enough to be closed is run again, on a fresh server, up to five times (run alone, a single
        // attempt missed that way about half the time on kernel 6.18); the last attempt is checked in full. What
        // holds whatever the race, the bound on what is held and the answers the hogs read, is checked in every one.
        let budget = Double(256 << 10 + 16_384)  // the budget counts bodies: heads and small answers come on top
        var outcome = Outcome()
        for _ in 1...5 {
            outcome = try await Self.attempt()
            #expect((outcome.held ?? 0) <= budget)
            if outcome.readStatus == 200 { #expect(outcome.unsentAfter <= budget) }
            for statuses in outcome.hogStatuses {
                #expect(statuses.allSatisfy { $0 == 200 || $0 == 503 }, "\(statuses)")
            }
            if outcome.settled { break }
        }
        let held = try #require(outcome.held, "the hogs never held 100,000 bytes of answers together")
        // Within the budget, but for the answers' heads and small answers: what did not fit was answered 503
        // while the hogs were not yet found stuck.
        #expect(held > 0)
        #expect(outcome.readStatus == 200)
        #expect(outcome.readItems == 100)
        #expect(outcome.dropped >= 1)
        #expect(outcome.closed >= 1)
    }

    /// One attempt: six hogs, a reader, and what the server did about them. Asserts nothing itself.
    static func attempt() async throws -> Outcome {
        try await withServer(configure: {
            $0.threads = 1  // one loop: its share is the whole budget
            // Set here below the 1 MiB a configuration may give, for a test of few connections: each holds one
            // answer at most (evhttp takes the next request once the answer before it has left the process).
            $0.limits.maxOutputBytes = 256 << 10
        }) { app in
            let port = app.port
            let metrics = try #require(app.observability.metrics)
            var outcome = Outcome()
            let page = try await Self.fillBigPage(port)
            // Six clients with small receive buffers ask for the page sixty times each, and read nothing: 12 MB of
            // answers each, three times what the kernel takes for a socket (tcp_wmem goes up to 4 MB), so that each
            // holds an answer in the server: more than 256 KiB together. Two sweeps (a second each) find them stuck.
            let asked = 60
            let hogs = try (0..<6).map { _ in try RawHTTPConnection(port: port, receiveBuffer: 4096) }
            for hog in hogs { try hog.write(String(repeating: page, count: asked)) }
            // Read in the process: /metrics is itself an answer over 16 KiB, which the budget refuses while the hogs
            // hold it, so asked over HTTP it saw nothing until a hog was closed, and then less than was held (in CI,
            // three attempts in a row found "never held").
            outcome.held =
                try? await waitUntil(
                    "the hogs hold answers", every: .milliseconds(20), describe: { "\($0)" },
                    observe: { Double(metrics.output.unsent) }, isDone: { $0 >= 100_000 })
            guard outcome.held != nil else { return outcome }
            try await Task.sleep(for: .milliseconds(2500))  // two sweeps: the hogs still holding are found stuck

            // A client that reads gets the whole page: once two sweeps have found the hogs stuck, the ones holding
            // most are closed to make room for it (before that, it may be told to retry).
            let read = try await waitUntil(
                "a reader is served", every: .milliseconds(200), describe: { "\($0.status)" },
                observe: { try await fetch(port: port, "/items?after=9999&limit=100", headers: ["X-Dataset: big"]) },
                isDone: { $0.status == 200 })
            outcome.readStatus = read.status
            outcome.readItems = (try read.jsonObject()["items"] as? [Any])?.count ?? 0
            let after = metrics.output
            outcome.dropped = Double(after.dropped)
            outcome.unsentAfter = Double(after.unsent)

            // Every hog either was closed (its stream ends, having had only part of what it asked for) or gets
            // whole answers when it reads at last: a 200, or 503 server-busy for one asked while the others held
            // the budget and were not yet found stuck. None is left hanging.
            for hog in hogs {
                let statuses = try await offPool { () -> [Int]? in
                    var statuses: [Int] = []
                    while statuses.count < asked {
                        guard let response = try? hog.readResponse() else { return nil }
                        statuses.append(response.status)
                    }
                    return statuses
                }
                if let statuses { outcome.hogStatuses.append(statuses) } else { outcome.closed += 1 }
            }
            return outcome
        }
    }
}
