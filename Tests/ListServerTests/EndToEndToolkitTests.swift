import Foundation
import ListDomain
import Testing

@testable import ListServer

/// Issue 6's toolkit over real HTTP: faults from configuration and per request, fail-then-succeed, reset and
/// versions, cursors while the list grows, conditional requests, CORS.
@Suite("End to end: client developer's toolkit")
struct EndToEndToolkitTests {
    /// `POST target` with `body` (Content-Length framed) on a fresh connection.
    static func post(
        port: Int, _ target: String, body: String = "", headers: [String] = []
    ) async throws -> RawHTTPConnection.Response {
        try await offPool {
            let connection = try RawHTTPConnection(port: port)
            let fields = (headers + ["Content-Length: \(body.utf8.count)"]).map { $0 + "\r\n" }.joined()
            try connection.write("POST \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(fields)\r\n\(body)")
            return try connection.readResponse()
        }
    }

    /// The statuses of `count` sequential `GET target` requests on one keep-alive connection.
    static func statuses(port: Int, _ target: String, count: Int, headers: [String] = []) async throws -> [Int] {
        try await offPool {
            let connection = try RawHTTPConnection(port: port)
            return try (0..<count).map { _ in
                try connection.request("GET", target, headers: headers)
                return try connection.readResponse().status
            }
        }
    }

    @Test("a configured fault rate of 0.3 fails 30 % ± 5 % of 1,000 requests, the same ones on every run")
    func configuredFaultRate() async throws {
        let configure: (inout Settings) -> Void = {
            $0.faultRate = 0.3
            $0.faultKinds = try! FaultMix(parsing: "500,503:2,429")
        }
        let first = try await withServer(configure: configure) { app in
            try await Self.statuses(port: app.port, "/items/7", count: 1000)
        }
        let failures = first.filter { $0 != 200 }
        #expect((250...350).contains(failures.count), "\(failures.count) faults in 1,000")
        #expect(Set(failures).isSubset(of: [500, 503, 429]))
        #expect(failures.filter { $0 == 503 }.count > failures.filter { $0 == 500 }.count, "503 has twice the weight")
        let second = try await withServer(configure: configure) { app in
            try await Self.statuses(port: app.port, "/items/7", count: 1000)
        }
        #expect(second == first, "same seed, same sequence of requests: the same faults")
        let unfaulted = try await withServer { app in
            try await Self.statuses(port: app.port, "/healthz", count: 50)
        }
        #expect(unfaulted == Array(repeating: 200, count: 50))
    }

    @Test("faults leave health, metrics and the API description alone")
    func faultsOnlyHitData() async throws {
        try await withServer(configure: { $0.faultRate = 1 }) { app in
            for target in ["/healthz", "/readyz", "/openapi.json", "/metrics"] {
                #expect(try await fetch(port: app.port, target).status == 200, "\(target)")
            }
            let data = try await fetch(port: app.port, "/items?fail=503")
            #expect(data.status == 503)
        }
    }

    @Test("fail_first=2 fails exactly twice per client and resource, then succeeds")
    func failFirst() async throws {
        try await withServer { app in
            var byClient: [String: [Int]] = [:]
            for _ in 0..<4 {
                for client in ["ui-test-a", "ui-test-b"] {
                    let response = try await fetch(
                        port: app.port, "/items/3?fail_first=2", headers: ["X-Client-Id: \(client)"])
                    byClient[client, default: []].append(response.status)
                }
            }
            #expect(byClient["ui-test-a"] == [503, 503, 200, 200])
            #expect(byClient["ui-test-b"] == [503, 503, 200, 200])
            let otherResource = try await Self.statuses(
                port: app.port, "/items?page=2&fail_first=2&fail=429", count: 3, headers: ["X-Client-Id: ui-test-a"])
            #expect(otherResource == [429, 429, 200])
            let failed = try await fetch(port: app.port, "/items/4?fail_first=1", headers: ["X-Client-Id: c"])
            #expect(failed.header("Retry-After") == "1")
            #expect(try failed.jsonObject()["type"] as? String == "urn:listserver:problem:injected-fault")

            let reset = try await Self.post(port: app.port, "/admin/reset")
            #expect(reset.status == 200)
            let again = try await fetch(port: app.port, "/items/3?fail_first=2", headers: ["X-Client-Id: ui-test-a"])
            #expect(again.status == 503, "a reset clears the fail_first counts")
        }
    }

    @Test("304 on an unchanged resource, 200 after a reset; the version is in the body and the ETag changes")
    func conditionalAcrossReset() async throws {
        try await withServer { app in
            let first = try await fetch(port: app.port, "/items?page=2&limit=5")
            let tag = try #require(first.header("ETag"))
            #expect(first.header("Cache-Control") == "no-cache")
            #expect(try first.jsonObject()["version"] as? Int == 1)
            let unchanged = try await fetch(port: app.port, "/items?page=2&limit=5", headers: ["If-None-Match: \(tag)"])
            #expect(unchanged.status == 304)
            #expect(unchanged.body.isEmpty)
            #expect(unchanged.header("ETag") == tag)

            let reset = try await Self.post(port: app.port, "/admin/reset", body: #"{"seed": 9}"#)
            #expect(reset.status == 200)
            #expect(try reset.jsonObject()["version"] as? Int == 2)
            let changed = try await fetch(port: app.port, "/items?page=2&limit=5", headers: ["If-None-Match: \(tag)"])
            #expect(changed.status == 200)
            #expect(try changed.jsonObject()["version"] as? Int == 2)
            #expect(changed.header("ETag") != tag)
            #expect(changed.body != first.body, "seed 9 generates other items")
        }
    }

    @Test("an admin token is required when configured")
    func adminToken() async throws {
        try await withServer(configure: { $0.adminToken = try! AdminToken(parsing: "t0ken") }) { app in
            let missing = try await Self.post(port: app.port, "/admin/reset")
            #expect(missing.status == 401)
            #expect(missing.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)
            let right = try await Self.post(port: app.port, "/admin/reset", headers: ["Authorization: Bearer t0ken"])
            #expect(right.status == 200)
        }
    }

    @Test("cursors never repeat or skip an item while the list grows; newest-first page numbers drift")
    func cursorsWhileGrowing() async throws {
        try await withServer(configure: {
            $0.itemCount = 30
            $0.growEveryMs = 15
        }) { app in
            var seen: [Int] = []
            var cursor: Int?
            for _ in 0..<12 {
                let target = cursor.map { "/items?after=\($0)&limit=7" } ?? "/items?order=asc&limit=7"
                let body = try await fetch(port: app.port, target).jsonObject()
                let ids = (body["items"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? Int }
                seen += ids
                cursor = body["next_cursor"] as? Int ?? cursor
                try await Task.sleep(for: .milliseconds(25))
            }
            #expect(seen == Array(0..<seen.count), "every id once, in order")
            #expect(seen.count > 30, "the walk went past the initial 30 items into grown ones")

            let pageOne = try await fetch(port: app.port, "/items?order=desc&page=1&limit=5").jsonObject()
            try await Task.sleep(for: .milliseconds(60))
            let pageTwo = try await fetch(port: app.port, "/items?order=desc&page=2&limit=5").jsonObject()
            let lastOfOne = (pageOne["items"] as? [[String: Any]])?.last?["id"] as? Int
            let firstOfTwo = (pageTwo["items"] as? [[String: Any]])?.first?["id"] as? Int
            #expect(firstOfTwo.map { $0 >= (lastOfOne ?? 0) } == true, "page 2 repeats page 1's items after growth")
        }
    }

    @Test("CORS: a preflight from a browser origin, and the exposed fields on the real request")
    func cors() async throws {
        try await withServer { app in
            let preflight = try await fetch(
                port: app.port, "/items/1/detail", method: "OPTIONS",
                headers: [
                    "Origin: http://localhost:5173", "Access-Control-Request-Method: GET",
                    "Access-Control-Request-Headers: x-client-id",
                ])
            #expect(preflight.status == 204)
            #expect(preflight.header("Access-Control-Allow-Origin") == "*")
            #expect(preflight.header("Access-Control-Allow-Headers") == "x-client-id")
            #expect(preflight.header("Access-Control-Allow-Methods")?.contains("GET") == true)
            let page = try await fetch(port: app.port, "/items", headers: ["Origin: http://localhost:5173"])
            #expect(page.header("Access-Control-Allow-Origin") == "*")
            #expect(page.header("Access-Control-Expose-Headers")?.contains("X-Request-Id") == true)
            #expect(page.headers(named: "Vary") == ["Accept-Encoding, Origin"])
            // Without Origin (curl, a native app): no CORS fields, and the one Vary line that says why.
            let plain = try await fetch(port: app.port, "/items")
            #expect(plain.status == 200 && plain.header("Access-Control-Allow-Origin") == nil)
            #expect(plain.header("Access-Control-Expose-Headers") == nil)
            #expect(plain.headers(named: "Vary") == ["Accept-Encoding, Origin"])
        }
    }

    /// The store's measured wait, from `Server-Timing: store;dur=<ms>`.
    static func storeMilliseconds(_ response: RawHTTPConnection.Response) -> Double? {
        response.header("Server-Timing").flatMap { Double($0.replacingOccurrences(of: "store;dur=", with: "")) }
    }

    @Test("the store's latency distribution comes from configuration: fixed, none, lognormal")
    func latencyDistributions() async throws {
        try await withServer(configure: {
            $0.latencyDistribution = .fixed
            $0.latencyFixedMs = 400
        }) { app in
            let (miss, elapsed) = try await EndToEndFaultTests.timed {
                try await fetch(port: app.port, "/items/1/detail")
            }
            #expect(miss.header("X-Cache") == "MISS")
            #expect(elapsed >= .milliseconds(400))
            #expect((Self.storeMilliseconds(miss) ?? 0) >= 400)
        }
        try await withServer(configure: { $0.latencyDistribution = .none }) { app in
            let miss = try await fetch(port: app.port, "/items/1/detail")
            #expect(miss.header("X-Cache") == "MISS")
            // The default distribution never waits less than 500 ms; `none` does not wait at all.
            #expect((Self.storeMilliseconds(miss) ?? .infinity) < 500)
        }
        try await withServer(configure: {
            $0.latencyDistribution = .lognormal
            $0.latencyMedianMs = 50
            $0.latencySpread = 1
            $0.latencyMaxMs = 150
        }) { app in
            var waits: [Double] = []
            for id in 0..<12 {
                waits.append(Self.storeMilliseconds(try await fetch(port: app.port, "/items/\(id)/detail")) ?? -1)
            }
            #expect(waits.allSatisfy { $0 >= 0 })
            #expect(Set(waits.map { Int($0) }).count > 1, "lognormal waits vary: \(waits)")
        }
    }

    @Test("items.latency_ms holds every list response, 304s included, but not items or details")
    func pageLatency() async throws {
        try await withServer(configure: { $0.pageLatencyMs = 300 }) { app in
            let (page, elapsed) = try await EndToEndFaultTests.timed { try await fetch(port: app.port, "/items") }
            #expect(page.status == 200)
            #expect(elapsed >= .milliseconds(300))
            let tag = try #require(page.header("ETag"))
            let (revalidated, again) = try await EndToEndFaultTests.timed {
                try await fetch(port: app.port, "/items", headers: ["If-None-Match: \(tag)"])
            }
            #expect(revalidated.status == 304)
            #expect(again >= .milliseconds(300))
        }
    }

    @Test("a list of CORS origins from configuration echoes a listed Origin and ignores others")
    func configuredOrigins() async throws {
        try await withServer(configure: { $0.corsAllowOrigin = .only(["http://localhost:5173"]) }) { app in
            let listed = try await fetch(port: app.port, "/items/1", headers: ["Origin: http://localhost:5173"])
            #expect(listed.header("Access-Control-Allow-Origin") == "http://localhost:5173")
            #expect(listed.header("Vary") == "Accept-Encoding, Origin")
            let other = try await fetch(port: app.port, "/items/1", headers: ["Origin: https://elsewhere.example"])
            #expect(other.header("Access-Control-Allow-Origin") == nil)
        }
        try await withServer(configure: { $0.corsAllowOrigin = .none }) { app in
            let response = try await fetch(port: app.port, "/items/1", headers: ["Origin: http://localhost:5173"])
            #expect(!response.headers.contains { $0.name.lowercased().hasPrefix("access-control-") })
        }
    }
}
