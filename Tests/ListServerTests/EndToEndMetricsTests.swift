import Testing

@testable import ListServer

/// `/metrics` on a real server: the numbers move as requests of every kind go through the LibEvent layer.
@Suite("End to end: metrics")
struct EndToEndMetricsTests {
    /// Scrapes `/metrics` over HTTP.
    static func scrape(_ port: Int) async throws -> PrometheusText {
        let response = try await fetch(port: port, "/metrics")
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "text/plain; version=0.0.4; charset=utf-8")
        return try PrometheusText(response.text)
    }

    /// Scrapes until `settled` holds, and returns that scrape.
    ///
    /// A loop records a request just after handing its answer to the connection, so a client that has its answer
    /// may scrape, through the other loop, a moment before that request is counted.
    /// - Throws: ``TestFailure`` naming `condition` and showing the last scrape when `settled` still does not hold
    ///   after 10 s.
    static func scrape(
        _ port: Int, waitingFor condition: String, until settled: (PrometheusText) -> Bool
    ) async throws -> PrometheusText {
        try await waitUntil(
            condition, every: .milliseconds(50), observe: { try await scrape(port) }, isDone: settled)
    }

    @Test("pages, a detail miss then hit, a 404 and a refused head each land in their series")
    func numbersMove() async throws {
        try await withServer { app in
            let port = app.port
            let before = try await Self.scrape(port)
            #expect(before.requests("/metrics", 200) == 0)  // counted once answered
            #expect(before["listserver_http_requests_in_flight"] == 1)  // the scrape itself
            #expect(before["listserver_http_connections_open"] >= 1)

            for page in 1...3 { #expect(try await fetch(port: port, "/items?page=\(page)&limit=20").status == 200) }
            #expect(try await fetch(port: port, "/items/42/detail").header("X-Cache") == "MISS")
            #expect(try await fetch(port: port, "/items/42/detail").header("X-Cache") == "HIT")
            #expect(try await fetch(port: port, "/nope").status == 404)
            let refused = try await offPool {
                let connection = try RawHTTPConnection(port: port)
                try connection.write("GET /items HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n")
                return try connection.readResponse()
            }
            #expect(refused.status == 400)

            let after = try await Self.scrape(port, waitingFor: "the refused head and a scrape to be counted") {
                $0.requests("other", 400) == 1 && $0.requests("/metrics", 200) >= 1
            }
            #expect(after.requests("/items", 200) == 3)
            #expect(after.requests("/items/{id}/detail", 200) == 2)
            #expect(after.requests("other", 404) == 1)
            #expect(after.requests("other", 400) == 1)
            #expect(after.requests("/metrics", 200) >= 1)  // the first scrape, and any the wait above took
            #expect(after[#"listserver_http_requests_rejected_total{status="400"}"#] == 1)
            #expect(after[#"listserver_http_requests_rejected_total{status="431"}"#] == 0)
            #expect(after["listserver_detail_cache_misses_total"] == 1)
            #expect(after["listserver_detail_cache_hits_total"] == 1)
            #expect(after["listserver_detail_store_fetches_total"] == 1)
            #expect(after["listserver_detail_cache_coalesced_waits_total"] == 0)
            #expect(after["listserver_detail_cache_entries"] == 1)
            // This scrape, and perhaps the one before it, answered but not yet recorded by the other loop.
            #expect((1...2).contains(after["listserver_http_requests_in_flight"]))
            // The miss waited for the 300 ms store, so it is never in a bucket below that. No upper bounds are
            // checked: how fast an answer comes on a loaded machine is for the benchmarks, not for tests.
            let detail = "/items/{id}/detail"
            #expect(after.durationCount(detail) == 2)
            #expect(after.durationBucket(detail, le: "0.25") <= 1)
            #expect(after.durationBucket(detail, le: "+Inf") == 2)
            #expect(after["listserver_http_request_duration_seconds_sum{route=\"\(detail)\"}"] >= 0.3)
            #expect(after.durationCount("/items") == 3)
            // jemalloc's view of the server's memory: some megabytes held, in more resident pages.
            #expect(after["listserver_allocator_allocated_bytes"] > 100_000)
            #expect(after["listserver_allocator_resident_bytes"] >= after["listserver_allocator_allocated_bytes"])
        }
    }

    @Test("jemalloc, not glibc, answers malloc in the server's process")
    func jemallocServesMalloc() throws {
        let version = try #require(Allocator.version)
        #expect(version.hasPrefix("5."))
        #expect(Allocator.servesMalloc)
    }

    @Test("under concurrent load every request is counted exactly once, on both loops")
    func concurrentLoad() async throws {
        try await withServer { app in
            let port = app.port
            try await withThrowingTaskGroup(of: Void.self) { group in
                for worker in 0..<4 {
                    group.addTask {
                        try await offPool {
                            let connection = try RawHTTPConnection(port: port)
                            for page in 1...50 {
                                try connection.request("GET", "/items?page=\(worker * 50 + page)")
                                guard try connection.readResponse().status == 200 else { throw TestFailure("status") }
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
            let text = try await Self.scrape(port, waitingFor: "200 page requests to be counted") {
                $0.requests("/items", 200) >= 200
            }
            #expect(text.requests("/items", 200) == 200)
            #expect(text.durationCount("/items") == 200)
        }
    }

    @Test("with metrics off, /metrics is 404 and everything else still works")
    func disabled() async throws {
        try await withServer(configure: { $0.metricsEnabled = false }) { app in
            let response = try await fetch(port: app.port, "/metrics")
            #expect(response.status == 404)
            #expect(try await fetch(port: app.port, "/items?page=2").status == 200)
            #expect(app.observability.metrics == nil)
        }
    }
}
