import ListDomain
import Testing

@testable import ListServer

/// How the router applies `?delay_ms` and `?fail=` to what a route answers (on values; the wire is end to end).
@Suite("Router: delays and injected faults")
struct RouterFaultTests {
    static func router(_ faults: FaultSettings = FaultSettings()) -> Router {
        let catalog = Catalog(seed: 42, count: 10_000)
        let store = SlowStore(catalog: catalog, latency: .uniform(min: .zero, max: .zero), clock: ImmediateClock())
        return Router(
            catalog: catalog, cache: DetailCache(store: store, capacity: 100), paging: RouterFixture.defaultPaging,
            faults: faults)
    }

    @Test(
        "fail=500, 503 or 429 is a problem of type injected-fault with that status; 503 and 429 with Retry-After",
        arguments: [("500", 500, nil), ("503", 503, "1"), ("429", 429, "1"), ("429:2,reset", 429, "1")])
    func statusFaults(mix: String, status: Int, retryAfter: String?) throws {
        for target in ["/items?fail=\(mix)", "/items/7?fail=\(mix)", "/items?page=3&fail=\(mix)"] {
            let response = Self.router().respond(target)
            #expect(response.status == status, "\(target)")
            #expect(response.headers["Content-Type"] == "application/problem+json")
            #expect(response.headers["Retry-After"] == retryAfter)
            let json = try #require(response.jsonObject)
            #expect(json["type"] as? String == "urn:listserver:problem:injected-fault")
            #expect(json["title"] as? String == "Injected fault")
            #expect(json["status"] as? Int == status)
            #expect(json["detail"] as? String == "this \(status) was injected (?fail=\(mix))")
        }
    }

    @Test("Retry-After comes from the fault settings")
    func retryAfter() {
        let response = Self.router(FaultSettings(retryAfterSeconds: 7)).respond("/items?fail=503")
        #expect(response.headers["Retry-After"] == "7")
    }

    @Test("reset, truncated and hang mark the route's own answer with a wire fault")
    func wireFaults() {
        let router = Self.router(FaultSettings(hangLimit: .milliseconds(1234)))
        let plain = router.respond("/items?page=2")
        for (kind, fault) in [
            ("reset", WireFault.reset), ("truncated", .truncated), ("hang", .hang(.milliseconds(1234))),
        ] {
            let response = router.respond("/items?page=2&fail=\(kind)")
            #expect(response.status == 200)
            #expect(response.body == plain.body)
            #expect(response.fault == fault)
        }
    }

    @Test("a status fault on a detail answers at once, without the cache")
    func detailStatusFault() async {
        let router = Self.router()
        #expect(router.respond("/items/5/detail?fail=503").status == 503)
        #expect(router.cache.statistics.storeFetches == 0)
        let reset = await router.respondHeld("/items/5/detail?fail=reset")
        #expect(reset.status == 200 && reset.fault == .reset)
    }

    @Test("faults apply to the data endpoints only; elsewhere fail= is ignored")
    func otherEndpoints() {
        for target in ["/healthz?fail=503", "/readyz?fail=reset", "/openapi.json?fail=hang"] {
            let response = Self.router().respond(target)
            #expect(response.status == 200 && response.fault == nil, "\(target)")
        }
    }

    @Test("delay_ms delays every answer, errors and deferred details included")
    func delays() async {
        let router = Self.router()
        #expect(router.respond("/items?delay_ms=300").delay == .milliseconds(300))
        #expect(router.respond("/healthz?delay_ms=300").delay == .milliseconds(300))
        #expect(router.respond("/items/99999?delay_ms=300").status == 404)
        #expect(router.respond("/items/99999?delay_ms=300").delay == .milliseconds(300))
        #expect(router.respond("/items?fail=503&delay_ms=300").delay == .milliseconds(300))
        let detail = await router.respondHeld("/items/3/detail?delay_ms=300")
        #expect(detail.status == 200 && detail.delay == .milliseconds(300))
        #expect(router.respond("/items").delay == .zero)
    }

    @Test("the route's own 404, 405, 415 and 400 come before a bad control parameter")
    func order() {
        let router = Self.router()
        #expect(router.respond("/nope?delay_ms=abc").status == 404)
        #expect(router.respond("/items?delay_ms=abc", method: .put).status == 405)
        #expect(router.respond("/items?delay_ms=abc", method: .post).status == 415)  // a write's own 415 too
        #expect(router.respond("/items?page=0&delay_ms=abc").headers["Content-Type"] == "application/problem+json")
        #expect(router.respond("/items?page=0&delay_ms=abc").jsonObject?["parameter"] as? String == "page")
        #expect(router.respond("/items?page=0&fail=503").status == 400)
        #expect(router.respond("/items/9999?x=%zz&delay_ms=5").status == 400)  // every query must decode, read or not
        #expect(router.respond("/items?x=%zz&delay_ms=5").status == 400)  // /items decodes all of its query
        let bad = router.respond("/healthz?delay_ms=abc")
        #expect(bad.status == 400 && bad.jsonObject?["parameter"] as? String == "delay_ms")
    }

    @Test("a dataset counts fail_first for the pairs it saw last, the default list for many more")
    func failFirstCountsAreBounded() {
        let registry = FaultInjectorRegistry(FaultInjector(seed: 1), seed: 1)
        let dataset = registry.injector(for: "run-1")
        #expect(dataset.attempt(client: "c", resource: "/items/0") == 1)
        #expect(dataset.attempt(client: "c", resource: "/items/0") == 2)
        for id in 1...FaultInjectorRegistry.pairsPerDataset {
            _ = dataset.attempt(client: "c", resource: "/items/\(id)")
        }
        #expect(dataset.attempt(client: "c", resource: "/items/0") == 1, "the oldest pair was forgotten")
        let shared = registry.injector(for: ListRegistry.defaultList)
        for id in 0...FaultInjectorRegistry.pairsPerDataset {
            _ = shared.attempt(client: "c", resource: "/items/\(id)")
        }
        #expect(shared.attempt(client: "c", resource: "/items/0") == 2, "the default list keeps 100,000 pairs")
    }
}
