import ListDomain
import Testing

@testable import ListServer

@Suite("Router: GET /items/<id>/detail")
struct RouterDetailTests {
    @Test("a miss, then a hit: X-Cache, Server-Timing on the miss only, the same body")
    func missThenHit() async throws {
        let router = RouterFixture.router(latency: .milliseconds(250))
        let miss = await router.respondHeld("/items/42/detail")
        #expect(miss.status == 200)
        #expect(miss.headers["Content-Type"] == "application/json; charset=utf-8")
        #expect(miss.headers["X-Cache"] == "MISS")
        #expect(miss.headers["Server-Timing"] == "store;dur=250")
        let json = try #require(miss.jsonObject)
        #expect(Set(json.keys) == ["id", "amount"])
        #expect(uint64(json["id"]) == 42)
        let amount = try #require(json["amount"] as? Double)
        #expect(amount == Catalog(seed: 42, count: 10_000).amount(for: 42))
        #expect((0..<1).contains(amount))

        let hit = await router.respondHeld("/items/42/detail")
        #expect(hit.status == 200)
        #expect(hit.headers["X-Cache"] == "HIT")
        #expect(hit.headers["Server-Timing"] == nil)
        #expect(hit.body == miss.body)
    }

    @Test("Server-Timing carries the store's time with one decimal")
    func fractionalTiming() async {
        let router = RouterFixture.router(latency: .microseconds(12_345))
        #expect(await router.respondHeld("/items/1/detail").headers["Server-Timing"] == "store;dur=12.3")
    }

    @Test(
        "milliseconds: one decimal, rounded half up, no trailing .0",
        arguments: [
            (.zero, "0"), (.milliseconds(-5), "0"), (.nanoseconds(1), "0"), (.microseconds(49), "0"),
            (.microseconds(50), "0.1"), (.microseconds(12_345), "12.3"), (.microseconds(12_350), "12.4"),
            (.milliseconds(500), "500"), (.seconds(2), "2000"), (.microseconds(1_999_950), "2000"),
            (.seconds(600) + .microseconds(100), "600000.1"),
        ] as [(Duration, String)])
    func milliseconds(duration: Duration, expected: String) {
        #expect(Router.milliseconds(duration) == expected)
    }

    @Test(
        "Cache-Control: no-cache (or Pragma: no-cache alone) fetches afresh, and the result is cached",
        arguments: [
            ["Cache-Control": "no-cache"], ["cache-control": "max-age=0, No-Cache"], ["Pragma": "no-cache"],
        ] as [HTTPHeaders])
    func bypassCache(headers: HTTPHeaders) async {
        let router = RouterFixture.router()
        #expect(await router.respondHeld("/items/7/detail").headers["X-Cache"] == "MISS")
        #expect(await router.respondHeld("/items/7/detail").headers["X-Cache"] == "HIT")
        let fresh = await router.respondHeld("/items/7/detail", headers: headers)
        #expect(fresh.headers["X-Cache"] == "MISS")
        #expect(fresh.headers["Server-Timing"] == "store;dur=250")
        #expect(await router.respondHeld("/items/7/detail").headers["X-Cache"] == "HIT")
        #expect(router.cache.statistics.storeFetches == 2)
    }

    @Test(
        "other cache directives use the cache",
        arguments: [
            ["Cache-Control": "max-age=0"], ["Cache-Control": "no-store"],
            ["Cache-Control": "max-age=0", "Pragma": "no-cache"],
        ] as [HTTPHeaders])
    func noBypass(headers: HTTPHeaders) async {
        let router = RouterFixture.router()
        _ = await router.respondHeld("/items/7/detail")
        #expect(await router.respondHeld("/items/7/detail", headers: headers).headers["X-Cache"] == "HIT")
    }

    @Test(
        "a bad or unknown id is answered at once, without a task",
        arguments: [
            ("/items/abc/detail", 400), ("/items/-1/detail", 400), ("/items/18446744073709551616/detail", 400),
            ("/items/10000/detail", 404), ("/items/%zz/detail", 400),
        ])
    func synchronousErrors(target: String, status: Int) async {
        let router = RouterFixture.router()
        let response = router.respond(target)
        #expect(response.status == status)
        #expect(response.headers["Content-Type"] == "application/problem+json")
        #expect(router.cache.statistics.misses == 0)
    }

    @Test("concurrent requests for one id all get the same detail, from one store fetch")
    func concurrent() async {
        let router = RouterFixture.router()
        // Every request is answered before the store's clock moves (no `respondHeld`, which moves it by each
        // answer's delay), so the first fetch is in flight for all ten: none can be a hit, and only coalescing
        // keeps them to one fetch. The bodies would agree without it (details are deterministic); the count not.
        let responses = await withTaskGroup(of: HTTPResponse.self) { group in
            for _ in 0..<10 {
                group.addTask {
                    guard
                        case .response(let response) = router.route(
                            HTTPRequest(method: .get, target: "/items/3/detail"))
                    else {
                        Issue.record("GET /items/3/detail was deferred; a detail is answered at once (held on a miss)")
                        return HTTPResponse(status: 0)
                    }
                    return response
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        let bodies = Set(responses.map(\.body))
        #expect(bodies.count == 1)
        #expect(responses.map { $0.headers["X-Cache"] } == Array(repeating: "MISS", count: 10))
        let statistics = router.cache.statistics
        #expect(statistics.storeFetches == 1, "\(statistics)")
        #expect(statistics.coalescedWaits == 9, "\(statistics)")
    }
}
