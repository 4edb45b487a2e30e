import Foundation
import Testing

@testable import ListServer

/// The slow, cached detail endpoint over real HTTP.
@Suite("End to end: details")
struct EndToEndDetailTests {
    @Test("the first fetch is a slow MISS, the next a HIT with the same amount")
    func missThenHit() async throws {
        try await withServer { app in
            let miss = try await fetch(port: app.port, "/items/42/detail")
            #expect(miss.status == 200)
            #expect(miss.header("Content-Type") == "application/json; charset=utf-8")
            #expect(miss.header("X-Cache") == "MISS")
            let timing = try #require(miss.header("Server-Timing"))
            let duration = try #require(Double(timing.replacingOccurrences(of: "store;dur=", with: "")))
            #expect(duration >= 300, "the store waited its configured 300 ms: \(timing)")
            let body = try miss.jsonObject()
            #expect(body["id"] as? Int == 42)
            let amount = try #require(body["amount"] as? Double)
            #expect(amount >= 0 && amount < 1)

            let hit = try await fetch(port: app.port, "/items/42/detail")
            #expect(hit.header("X-Cache") == "HIT")
            #expect(hit.header("Server-Timing") == nil)
            #expect(hit.body == miss.body)
            #expect(app.cache.statistics.storeFetches == 1)
        }
    }

    @Test("concurrent first fetches of one id share a single store fetch")
    func coalescing() async throws {
        try await withServer(configure: {
            $0.latencyMinMs = 500; $0.latencyMaxMs = 500
        }) { app in
            let port = app.port
            let bodies = try await withThrowingTaskGroup(of: RawHTTPConnection.Response.self) { group in
                for _ in 0..<8 { group.addTask { try await fetch(port: port, "/items/77/detail") } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(bodies.allSatisfy { $0.status == 200 && $0.header("X-Cache") == "MISS" })
            #expect(Set(bodies.map(\.body)).count == 1)
            let statistics = app.cache.statistics
            #expect(statistics.storeFetches == 1)
            #expect(statistics.coalescedWaits == 7)
        }
    }

    @Test("Cache-Control: no-cache goes to the slow store even when the detail is cached")
    func noCacheBypasses() async throws {
        try await withServer { app in
            _ = try await fetch(port: app.port, "/items/5/detail")
            let bypass = try await fetch(port: app.port, "/items/5/detail", headers: ["Cache-Control: no-cache"])
            #expect(bypass.header("X-Cache") == "MISS")
            #expect(app.cache.statistics.storeFetches == 2)
        }
    }

    @Test("a detail past the end is 404 and a bad id 400, without touching the store")
    func detailErrors() async throws {
        try await withServer { app in
            let answer1 = try await fetch(port: app.port, "/items/10000/detail")
            #expect(answer1.status == 404)
            let answer2 = try await fetch(port: app.port, "/items/x/detail")
            #expect(answer2.status == 400)
            #expect(app.cache.statistics.storeFetches == 0)
        }
    }

    @Test("a client that hangs up during a slow fetch wedges nothing; the value is still cached")
    func clientHangsUpDuringSlowFetch() async throws {
        try await withServer(configure: {
            $0.latencyMinMs = 400; $0.latencyMaxMs = 400
        }) { app in
            let port = app.port
            try await offPool {
                for _ in 0..<10 {
                    let connection = try RawHTTPConnection(port: port)
                    try connection.request("GET", "/items/9/detail")
                    connection.hangUp()
                }
            }
            // The server keeps answering while those fetches are in flight ...
            let answer3 = try await fetch(port: port, "/items/1")
            #expect(answer3.status == 200)
            // ... and once the store answers, the detail is cached for the next client.
            let later = try await fetch(port: port, "/items/9/detail")
            #expect(later.status == 200)
            let statistics = app.cache.statistics
            #expect(statistics.storeFetches == 1)
            let answer4 = try await fetch(port: port, "/items/9/detail")
            #expect(answer4.header("X-Cache") == "HIT")
        }
    }

    @Test("shutdown answers every slow request in flight before the server stops")
    func shutdownDrainsSlowRequests() async throws {
        let app = try await Application.start(settings: testSettings(latencyMs: 500))
        let port = app.port
        async let answers = withThrowingTaskGroup(of: Int.self) { group in
            for id in 0..<6 { group.addTask { try await fetch(port: port, "/items/\(id)/detail").status } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        do {
            try await waitForStoreFetches(app, 6)
        } catch {
            await app.shutdown(grace: .seconds(5))  // never release a running server: see the test below
            _ = try? await answers
            throw error
        }
        #expect(app.cache.statistics.storeFetches == 6)
        await app.shutdown(grace: .seconds(5))
        #expect(try await answers == [200, 200, 200, 200, 200, 200])
        #expect(throws: (any Error).self) { try RawHTTPConnection(port: port) }
    }

    @Test("past the grace deadline every request still waiting gets a 503, and the server stops")
    func shutdownDeadlineAnswersTheRest() async throws {
        let app = try await Application.start(settings: testSettings(threads: 1, latencyMs: 5000))
        let port = app.port
        async let answers = withThrowingTaskGroup(of: Int.self) { group in
            for id in 0..<4 { group.addTask { try await fetch(port: port, "/items/\(id)/detail").status } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        do {
            try await waitForStoreFetches(app, 4)
        } catch {
            // Stop the server before failing: released while its loops run, it would take the test process down.
            await app.shutdown(grace: .milliseconds(300))
            _ = try? await answers
            throw error
        }
        await app.shutdown(grace: .milliseconds(300))
        let statuses = try await answers
        #expect(statuses == [503, 503, 503, 503])
    }
}
