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
}
