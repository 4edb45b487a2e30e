import Foundation
import Testing

@testable import ListServer

/// A profile's network over real HTTP: bandwidth paced on loop timers (and the loops stay free for others),
/// tokens that expire on time, a rate limit per client, latency by kind of route.
@Suite("End to end: a profile's network")
struct EndToEndProfileNetworkTests {
    static func putProfile(port: Int, _ dataset: String, _ body: String) async throws -> RawHTTPConnection.Response {
        try await send(port: port, "PUT", "/admin/datasets/\(dataset)/profile", json: body)
    }

    /// Seconds since `start`.
    static func seconds(since start: ContinuousClock.Instant) -> Double {
        let (whole, attoseconds) = (ContinuousClock.now - start).components
        return Double(whole) + Double(attoseconds) * 1e-18
    }

    @Test("a 1 MB image at 8,000 kbps takes 1 s (not 10 % less, nor 30 % more); pages of another dataset stay fast")
    func throttledImage() async throws {
        let file = try EndToEndUploadTests.noisePNG(width: 640, height: 560)
        try await withServer(configure: {
            $0.imageLatencyMinMs = 0
            $0.imageLatencyMaxMs = 0
            $0.limits.maxUploadBytes = 2 << 20
        }) { app throws in
            #expect(try await EndToEndUploadTests.put(port: app.port, "/d/slow/items/3/image", file).status == 201)
            // Pages of another dataset, before: how long they take on this machine now.
            var before: [Double] = []
            for _ in 0..<30 {
                let start = ContinuousClock.now
                _ = try await fetch(port: app.port, "/d/other/items?limit=20")
                before.append(Self.seconds(since: start))
            }
            #expect(try await Self.putProfile(port: app.port, "slow", #"{"bandwidth":{"kbps":8000}}"#).status == 200)
            let start = ContinuousClock.now
            async let image = fetch(port: app.port, "/d/slow/items/3/image")
            var during: [Double] = []
            while Self.seconds(since: start) < 0.8 {
                let page = ContinuousClock.now
                #expect(try await fetch(port: app.port, "/d/other/items?limit=20").status == 200)
                during.append(Self.seconds(since: page))
                try await Task.sleep(for: .milliseconds(10))
            }
            let served = try await image
            let took = Self.seconds(since: start)
            #expect(served.status == 200 && served.body == file)
            let expected = Double(file.count) / 1_000_000  // 8,000 kbps: a million bytes a second
            // Never faster than the rate; later by up to 30 %: a full parallel run on two cores (CI) made it 12 % late,
            // the client's thread and connection included.
            #expect(took >= expected * 0.9 && took <= expected * 1.3, "took \(took) s for \(file.count) bytes")
            // p99 (the largest of fewer than 100) of the other dataset's pages: as before, not the image's 1 s.
            let p99 = { (times: [Double]) in times.sorted()[max(0, times.count * 99 / 100 - 1)] }
            // Enough pages to judge by: at least five (a full parallel run on two cores got nine in 0.8 s).
            #expect(during.count >= 5)
            #expect(p99(during) < max(0.25, 3 * p99(before)), "before \(p99(before)) s, during \(p99(during)) s")
        }
    }

    @Test("a client that hangs up on a throttled answer frees it at once, its connection too")
    func abortedThrottle() async throws {
        try await withServer { app in
            let opened = try RawHTTPConnection(port: app.port)
            // 100 items at 8 kbps: about 15 s to send.
            try opened.request("GET", "/items?limit=100&kbps=8")
            try await Task.sleep(for: .milliseconds(300))
            #expect(app.openConnections == 1)
            opened.hangUp()
            let deadline = ContinuousClock.now + .seconds(2)
            while app.openConnections > 0 && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(app.openConnections == 0)
            #expect(try await fetch(port: app.port, "/items?limit=1").status == 200)
        }
    }

    @Test("a paced answer to a client that closes after it (Connection: close, HTTP/1.0) arrives whole")
    func pacedThenClosed() async throws {
        try await withServer { app in
            let whole = try await fetch(port: app.port, "/items?limit=20").body
            for head in [
                "GET /items?limit=20&kbps=256 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
                "GET /items?limit=20&kbps=256 HTTP/1.0\r\n\r\n",
            ] {
                let (bytes, error) = try await offPool {
                    let connection = try RawHTTPConnection(port: app.port)
                    try connection.write(head)
                    return connection.readUntilClosed()
                }
                #expect(error == 0)
                let text = String(decoding: bytes, as: UTF8.self)
                #expect(text.hasPrefix("HTTP/1.1 200") || text.hasPrefix("HTTP/1.0 200"), "\(text.prefix(100))")
                #expect(bytes.suffix(whole.count).elementsEqual(whole))
            }
            #expect(try await fetch(port: app.port, "/healthz").status == 200)  // still up
        }
    }

    @Test("paced bodies are held to the output budget: one more is 503 server-busy; a hang-up makes room")
    func pacedBodiesBounded() async throws {
        try await withServer(configure: {
            $0.threads = 1
            $0.limits.maxOutputBytes = 20_000  // one 100-item page (about 15 KB), not two
        }) { app throws in
            let first = try RawHTTPConnection(port: app.port)
            try first.request("GET", "/items?limit=100&kbps=8")  // about 15 s to send
            try await Task.sleep(for: .milliseconds(300))
            let refused = try await fetch(port: app.port, "/items?limit=100&page=2&kbps=8")
            #expect(refused.status == 503)
            #expect(refused.header("Retry-After") == "1")
            #expect(refused.text.contains("server-busy"))
            first.hangUp()
            let admitted = try await waitUntil("the hang-up to make room") {
                try await offPool { () -> Int in
                    let connection = try RawHTTPConnection(port: app.port)
                    try connection.request("GET", "/items?limit=100&page=3&kbps=8")
                    let head = try connection.readStreamHead().status
                    connection.hangUp()
                    return head
                }
            } isDone: {
                $0 == 200
            }
            #expect(admitted == 200)
        }
    }

    @Test("a server that shuts down sends what its paced answers have left, whole")
    func drainSendsTheRest() async throws {
        let app = try await Application.start(settings: testSettings())
        let whole = try await fetch(port: app.port, "/items?limit=100").body
        let connection = try RawHTTPConnection(port: app.port)
        // 100 items at 8 kbps: about 15 s; the drain comes after a second.
        try connection.request("GET", "/items?limit=100&kbps=8")
        try await Task.sleep(for: .seconds(1))
        let started = ContinuousClock.now
        await app.shutdown(grace: .seconds(5))
        #expect(ContinuousClock.now - started < .seconds(4))
        let response = try await offPool { try connection.readResponse() }
        #expect(response.status == 200 && response.body == whole)
    }

    @Test("?kbps= and X-Bandwidth-Kbps pace one answer; a bad value is 400")
    func perRequestBandwidth() async throws {
        try await withServer { app in
            let fast = try await fetch(port: app.port, "/items?limit=20")
            let bytes = Double(fast.body.count)
            for (target, headers) in [("/items?limit=20&kbps=64", []), ("/items?limit=20", ["X-Bandwidth-Kbps: 64"])] {
                let start = ContinuousClock.now
                let paced = try await fetch(port: app.port, target, headers: headers)
                let took = Self.seconds(since: start)
                #expect(paced.status == 200 && Double(paced.body.count) == bytes)
                // 8,000 bytes a second, the first slice at once (and a loaded machine may be slower, not faster).
                #expect(took >= bytes / 8000 - 0.06 && took < 3 * bytes / 8000 + 1, "\(took) s for \(bytes) bytes")
            }
            #expect(try await fetch(port: app.port, "/items?kbps=0").status == 400)
            #expect(try await fetch(port: app.port, "/items", headers: ["X-Bandwidth-Kbps: fast"]).status == 400)
        }
    }

    @Test(
        "a token works within its TTL and is refused 50 ms after it (401, a Bearer challenge); revoke ends it at once")
    func tokensExpireOnTime() async throws {
        try await withServer(configure: {
            $0.imageLatencyMinMs = 0
            $0.imageLatencyMaxMs = 0
        }) { app throws in
            #expect(try await Self.putProfile(port: app.port, "login", #"{"auth":{"token_ttl_s":5}}"#).status == 200)
            let refused = try await fetch(port: app.port, "/d/login/items?limit=1")
            #expect(refused.status == 401)
            #expect(refused.header("WWW-Authenticate") == #"Bearer realm="ListServer""#)
            // On a thread of its own, so the times are the requests' own (a task resumes when the shared pool
            // gets to it, which under a full test run can be seconds later).
            let (issued, used, query, before, after) = try await offPool {
                func get(_ target: String, _ headers: [String]) throws -> RawHTTPConnection.Response {
                    let connection = try RawHTTPConnection(port: app.port)
                    try connection.request("GET", target, headers: headers)
                    return try connection.readResponse()
                }
                let issuedAt = ContinuousClock.now
                let connection = try RawHTTPConnection(port: app.port)
                try connection.write(
                    "POST /d/login/auth/token HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                        + "Content-Length: 2\r\n\r\n{}")
                let issued = try connection.readResponse()
                let answered = ContinuousClock.now
                let token = (try? issued.jsonObject()["access_token"] as? String) ?? ""
                let bearer = ["Authorization: Bearer \(token)"]
                let used = try get("/d/login/items?limit=1", bearer)
                // What a browser fetches itself carries it in the query.
                // Small: the token's five seconds are not spent drawing a 2160x3840 photo in a debug build.
                let query = try get("/d/login/items/3/image?w=60&h=40&access_token=\(token)", [])
                Thread.sleep(until: Date() + (issuedAt + .milliseconds(1000) - .now).timeInterval)
                let before = try get("/d/login/items?limit=1", bearer)
                Thread.sleep(until: Date() + (answered + .milliseconds(5050) - .now).timeInterval)
                let after = try get("/d/login/items?limit=1", bearer)
                return (issued, used, query, before, after)
            }
            #expect(issued.status == 200 && issued.header("Cache-Control") == "no-store")
            #expect(try issued.jsonObject()["expires_in"] as? Int == 5)
            #expect(used.status == 200 && query.status == 200 && before.status == 200)
            #expect(after.status == 401)
            #expect(after.header("WWW-Authenticate")?.contains("expired") == true)
            // A fresh one, revoked.
            let again = try await send(port: app.port, "POST", "/d/login/auth/token", json: "{}")
            let second = try #require(try again.jsonObject()["access_token"] as? String)
            let secondBearer = ["Authorization: Bearer \(second)"]
            #expect(try await fetch(port: app.port, "/d/login/items?limit=1", headers: secondBearer).status == 200)
            #expect(try await send(port: app.port, "POST", "/d/login/auth/revoke").status == 204)
            #expect(try await fetch(port: app.port, "/d/login/items?limit=1", headers: secondBearer).status == 401)
            // Other datasets want nothing.
            #expect(try await fetch(port: app.port, "/d/open/items?limit=1").status == 200)
        }
    }

    @Test("a rate limit: 429 with Retry-After past the burst, the RateLimit fields on every answer, per client")
    func rateLimit() async throws {
        try await withServer { app in
            // A bucket of 2 that refills one request in 30 s: no slowness of the machine refills it (the refill
            // itself is the domain tests', on a clock they move).
            let body = #"{"rate_limit":{"requests":2,"per_s":60}}"#
            #expect(try await Self.putProfile(port: app.port, "busy", body).status == 200)
            let client = ["X-Client-Id: ui-1"]
            let start = ContinuousClock.now
            let first = try await fetch(port: app.port, "/d/busy/items?limit=1", headers: client)
            #expect(first.status == 200)
            #expect(first.header("RateLimit-Policy") == #""profile";q=2;w=60"#)
            #expect(first.header("RateLimit") == #""profile";r=1;t=30"#)
            #expect(try await fetch(port: app.port, "/d/busy/items/1", headers: client).status == 200)
            let over = try await fetch(port: app.port, "/d/busy/items?limit=1", headers: client)
            let elapsed = Self.seconds(since: start)
            #expect(over.status == 429)
            // The bucket is full again 60 s after the first request, and lets one through 30 s before that: 30 s
            // less what passed since the first, rounded up (30 unless the machine took a second or more).
            let retryAfter = try #require(over.header("Retry-After").flatMap { Int($0) })
            #expect(retryAfter <= 30 && Double(retryAfter) >= 30 - elapsed, "\(retryAfter) after \(elapsed) s")
            #expect(over.header("RateLimit")?.hasPrefix(#""profile";r=0;"#) == true)
            #expect(over.header("Content-Type") == "application/problem+json")
            // Another client has its own bucket.
            #expect(
                try await fetch(port: app.port, "/d/busy/items?limit=1", headers: ["X-Client-Id: ui-2"]).status == 200)
            let metrics = try await fetch(port: app.port, "/metrics").text
            #expect(metrics.contains(#"listserver_profiles_requests_total{cause="rate_limited"} 1"#))
        }
    }

    @Test("latency by kind of route: pages held 1.5 s, details not")
    func latencyByKind() async throws {
        try await withServer(configure: {
            $0.latencyMinMs = 0
            $0.latencyMaxMs = 0
        }) { app throws in
            let body = #"{"latency":{"list":{"fixed_ms":1500}}}"#
            #expect(try await Self.putProfile(port: app.port, "far", body).status == 200)
            var start = ContinuousClock.now
            #expect(try await fetch(port: app.port, "/d/far/items?limit=1").status == 200)
            #expect(Self.seconds(since: start) >= 1.5)
            start = ContinuousClock.now
            #expect(try await fetch(port: app.port, "/d/far/items/4/detail").status == 200)
            #expect(Self.seconds(since: start) < 1.5)
        }
    }
}

extension Duration {
    /// In seconds, for `Thread.sleep`; a negative duration sleeps not at all.
    fileprivate var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return max(0, Double(seconds) + Double(attoseconds) * 1e-18)
    }
}
