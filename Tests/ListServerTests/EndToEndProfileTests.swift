import Foundation
import Testing

@testable import ListServer

/// Dataset profiles over real HTTP, with two loops: one registry for both, and outages by the server's clock.
@Suite("End to end: dataset profiles")
struct EndToEndProfileTests {
    static func putProfile(port: Int, _ dataset: String, _ body: String) async throws -> RawHTTPConnection.Response {
        try await send(port: port, "PUT", "/admin/datasets/\(dataset)/profile", json: body)
    }

    @Test("a script step answers exactly `times` requests when 60 come at once on 60 connections over two loops")
    func scriptAcrossLoops() async throws {
        try await withServer { app in
            let set = try await Self.putProfile(
                port: app.port, "loops",
                #"{"script":[{"match":{"route":"/items/{id}"},"respond":{"status":503},"times":7}]}"#)
            #expect(set.status == 200)
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for id in 0..<60 {
                    group.addTask { try await fetch(port: app.port, "/d/loops/items/\(id)").status }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.count { $0 == 503 } == 7)
            #expect(statuses.count { $0 == 200 } == 53)
            let state = try await fetch(port: app.port, "/admin/datasets/loops/profile").jsonObject()
            #expect((state["script"] as? [[String: Any]])?.first?["left"] as? Int == 0)
        }
    }

    @Test("an outage answers 503 from the moment it is set, and ends on time (within 50 ms)")
    func outageOnTime() async throws {
        try await withServer { app in
            let sent = ContinuousClock.now
            let set = try await Self.putProfile(port: app.port, "down", #"{"outage":{"for_ms":2000}}"#)
            let answered = ContinuousClock.now
            #expect(set.status == 200)
            // Every answer that came back within 1,995 ms of sending the PUT was made during the outage (the server
            // started it after the PUT was sent); a request sent 2,050 ms after the PUT's answer came after its end.
            var during: [Int] = []
            while ContinuousClock.now - sent < .milliseconds(1500) {
                let response = try await fetch(port: app.port, "/d/down/items?limit=1")
                if ContinuousClock.now - sent < .milliseconds(1995) { during.append(response.status) }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(!during.isEmpty && during.allSatisfy { $0 == 503 }, "\(during)")
            try await Task.sleep(until: answered + .milliseconds(2050), clock: .continuous)
            #expect(try await fetch(port: app.port, "/d/down/items?limit=1").status == 200)
            #expect(try await fetch(port: app.port, "/items?limit=1").status == 200)
        }
    }

    @Test("a profile outlives a restart, its outage at the same phase; dropping the dataset drops it for good")
    func durable() async throws {
        try await withTemporaryFolder { folder in
            let configure: @Sendable (inout Settings) -> Void = { $0.dataPath = folder + "/lists.sqlite" }
            let body = #"{"outage":{"for_ms":2000,"every_ms":86400000},"rate_limit":{"requests":100,"per_s":1}}"#
            let set = try await withServer(configure: configure) { app throws in
                let set = try await Self.putProfile(port: app.port, "kept", body)
                #expect(try await fetch(port: app.port, "/d/kept/items?limit=1").status == 503)
                return set.status
            }
            #expect(set == 200)
            try await withServer(configure: configure) { app throws in
                let state = try await fetch(port: app.port, "/admin/datasets/kept/profile").jsonObject()
                #expect((state["rate_limit"] as? [String: Any])?["requests"] as? Int == 100)
                // The outage counts from when it was set, not from the restart: it ends 2 s after the PUT.
                let remaining = (state["outage"] as? [String: Any])?["remaining_ms"] as? Int
                #expect(remaining.map { $0 < 2000 } ?? true, "\(state)")
                _ = try await waitUntil("the outage to end on the restarted server", timeout: .seconds(5)) {
                    try await fetch(port: app.port, "/d/kept/items?limit=1").status
                } isDone: {
                    $0 == 200
                }
                let limited = try await fetch(port: app.port, "/d/kept/items?limit=1")
                #expect(limited.header("RateLimit-Policy") == #""profile";q=100;w=1"#)
                #expect(
                    try await send(port: app.port, "DELETE", "/admin/datasets/kept", contentType: nil).status == 204)
            }
            try await withServer(configure: configure) { app throws in
                let state = try await fetch(port: app.port, "/admin/datasets/kept/profile").jsonObject()
                #expect(state["outage"] == nil && state["rate_limit"] == nil, "\(state)")
            }
        }
    }

    @Test("a profile nobody meets for data.dataset_ttl_s goes, stored too, even on a dataset never written to")
    func idleProfileExpires() async throws {
        try await withTemporaryFolder { folder in
            let configure: @Sendable (inout Settings) -> Void = {
                $0.dataPath = folder + "/lists.sqlite"
                // 2 s: "busy" goes when unmet for the TTL and a sweep (3 s). With 1 s, a full test run's load once
                // held this test's 200 ms loop up long enough for it to go (the test took 30 s, not 5).
                $0.datasetTTLSeconds = 2
            }
            let body = #"{"latency":{"list":{"fixed_ms":1}}}"#
            try await withServer(configure: configure) { app throws in
                #expect(try await Self.putProfile(port: app.port, "idle", body).status == 200)
                #expect(try await Self.putProfile(port: app.port, "busy", body).status == 200)
                // "busy" is met every 200 ms; "idle" never. The sweep runs every second; 2 s of TTL and a pass.
                _ = try await waitUntil("the idle profile to go", timeout: .seconds(15), every: .milliseconds(200)) {
                    _ = try await fetch(port: app.port, "/d/busy/items?limit=1")
                    return try await fetch(port: app.port, "/admin/datasets/idle/profile").jsonObject()
                } isDone: {
                    $0["latency"] == nil
                }
                let start = ContinuousClock.now
                while ContinuousClock.now - start < .seconds(4) {  // more than the 3 s a profile may sit unmet
                    _ = try await fetch(port: app.port, "/d/busy/items?limit=1")
                    try await Task.sleep(for: .milliseconds(200))
                }
                let busy = try await fetch(port: app.port, "/admin/datasets/busy/profile").jsonObject()
                #expect(busy["latency"] != nil)
            }
            try await withServer(configure: configure) { app throws in
                let idle = try await fetch(port: app.port, "/admin/datasets/idle/profile").jsonObject()
                #expect(idle["latency"] == nil, "the store still had it: \(idle)")
            }
        }
    }
}
