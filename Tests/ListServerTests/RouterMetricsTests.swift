import ListDomain
import Testing

@testable import ListServer

/// `GET /metrics` on request values: the text format, and counters that move as a loop records requests.
@Suite("Router: metrics")
struct RouterMetricsTests {
    let metrics = ServerMetrics(routes: Route.templates)
    let router: Router

    init() {
        let catalog = Catalog(seed: 42, count: 10_000)
        let store = SlowStore(catalog: catalog, latency: .uniform(min: .zero, max: .zero), clock: ImmediateClock())
        router = Router(
            catalog: catalog, cache: DetailCache(store: store, capacity: 2), paging: RouterFixture.defaultPaging,
            observability: Observability(metrics: metrics, accessLog: nil))
    }

    /// Scrapes `/metrics` through the router.
    func scrape() async throws -> PrometheusText {
        let response = await router.respondHeld("/metrics")
        #expect(response.status == 200)
        return try PrometheusText(response.text)
    }

    /// Routes one request the way a loop does: begin, route (awaiting a deferred answer), end.
    func record(_ target: String, on observer: LoopObserver, method: HTTPMethod = .get) async -> HTTPResponse {
        let request = HTTPRequest(method: method, target: target)
        let match = router.match(request)
        let exchange = observer.begin(request, route: match.label)
        let response: HTTPResponse
        switch await router.route(request, match).settled() {
        case .response(let answer): response = answer
        case .deferred(let work): response = await work()
        case .pending(let pending): response = await pending.response()
        case .stream(let stream): response = stream.opening
        case .after: response = HTTPResponse(status: 0)  // settled above
        }
        observer.end(exchange, response)
        return response
    }

    @Test("the answer is Prometheus text 0.0.4, never cached, with a TYPE and HELP for every family")
    func format() async throws {
        // A request counter exists once its route and status have been seen.
        _ = await record("/items", on: LoopObserver(metrics: metrics, accessLog: nil))
        let response = await router.respondHeld("/metrics?x=1")
        #expect(response.status == 200)
        #expect(response.headers["Content-Type"] == "text/plain; version=0.0.4; charset=utf-8")
        #expect(response.headers["Cache-Control"] == "no-store")
        let text = try PrometheusText(response.text)
        let families: [String: String] = [
            "listserver_http_requests_total": "counter",
            "listserver_http_request_duration_seconds": "histogram",
            "listserver_http_requests_in_flight": "gauge",
            "listserver_http_connections_open": "gauge",
            "listserver_http_requests_rejected_total": "counter",
            "listserver_detail_cache_hits_total": "counter",
            "listserver_detail_cache_misses_total": "counter",
            "listserver_detail_cache_evictions_total": "counter",
            "listserver_detail_cache_coalesced_waits_total": "counter",
            "listserver_detail_store_fetches_total": "counter",
            "listserver_detail_cache_entries": "gauge",
            "listserver_detail_cache_capacity": "gauge",
        ]
        for (family, type) in families {
            #expect(text.types[family] == type, "\(family)")
            #expect(text.helps[family]?.isEmpty == false, "\(family)")
        }
        #expect(response.text.hasSuffix("\n"))
        #expect(text["listserver_detail_cache_capacity"] == 2)
        for status in ServerMetrics.rejectionStatuses {
            #expect(text.samples[#"listserver_http_requests_rejected_total{status="\#(status)"}"#] == 0)
        }
        #expect(text.requests("/items", 200) == 1)
        #expect(metrics.routeNames == Route.templates + ["other"])
        for route in metrics.routeNames where route != "/items" {
            #expect(text.samples[#"listserver_http_request_duration_seconds_count{route="\#(route)"}"#] == 0)
        }
        let buckets = text.samples.keys.filter {
            $0.hasPrefix(#"listserver_http_request_duration_seconds_bucket{route="/items","#)
        }
        #expect(buckets.count == ServerMetrics.durationBuckets.count + 1)
        #expect(text.samples[#"listserver_http_request_duration_seconds_bucket{route="/items",le="0.0005"}"#] != nil)
        #expect(text.samples[#"listserver_http_request_duration_seconds_bucket{route="/items",le="5.0"}"#] == 1)
        #expect(text.samples[#"listserver_http_request_duration_seconds_bucket{route="/items",le="+Inf"}"#] == 1)
    }

    @Test("counters, histograms and cache series move with the requests a loop records")
    func countersIncrease() async throws {
        let observer = LoopObserver(metrics: metrics, accessLog: nil)
        let before = try await scrape()
        #expect(before.requests("/items", 200) == 0)
        for page in 1...3 { #expect(await record("/items?page=\(page)", on: observer).status == 200) }
        #expect(await record("/items/42", on: observer, method: .head).status == 200)
        #expect(await record("/items/abc", on: observer).status == 400)
        #expect(await record("/items/7/detail", on: observer).status == 200)  // miss
        #expect(await record("/items/7/detail", on: observer).status == 200)  // hit
        for id in [8, 9] { _ = await record("/items/\(id)/detail", on: observer) }  // capacity 2: one eviction
        #expect(await record("/nope", on: observer).status == 404)
        #expect(await record("/metrics", on: observer, method: .post).status == 405)

        let after = try await scrape()
        #expect(after.requests("/items", 200) == 3)
        #expect(after.requests("/items/{id}", 200) == 1)
        #expect(after.requests("/items/{id}", 400) == 1)
        #expect(after.requests("/items/{id}/detail", 200) == 4)
        #expect(after.requests("other", 404) == 1)
        #expect(after.requests("/metrics", 405) == 1)
        #expect(after.durationCount("/items") == 3)
        #expect(after.durationBucket("/items", le: "5.0") == 3)
        #expect(after["listserver_http_request_duration_seconds_sum{route=\"/items\"}"] > 0)
        #expect(after["listserver_detail_cache_hits_total"] == 1)
        #expect(after["listserver_detail_cache_misses_total"] == 3)
        #expect(after["listserver_detail_store_fetches_total"] == 3)
        #expect(after["listserver_detail_cache_evictions_total"] == 1)
        #expect(after["listserver_detail_cache_entries"] == 2)
        #expect(after["listserver_http_requests_in_flight"] == 0)

        // Counters never go back, and a scrape with nothing new changes nothing.
        let again = try await scrape()
        #expect(
            again.samples.filter { $0.key.contains("_total") } == after.samples.filter { $0.key.contains("_total") })
    }

    @Test("in-flight requests and open connections are summed over the loops")
    func gaugesSumTheLoops() async throws {
        let first = LoopObserver(metrics: metrics, accessLog: nil)
        let second = LoopObserver(metrics: metrics, accessLog: nil)
        first.connectionsChanged(to: 3)
        second.connectionsChanged(to: 4)
        let waiting = first.begin(HTTPRequest(method: .get, target: "/items/1/detail"), route: Route.itemDetail.label)
        _ = second.begin(HTTPRequest(method: .get, target: "/items/2/detail"), route: Route.itemDetail.label)
        var text = try await scrape()
        #expect(text["listserver_http_connections_open"] == 7)
        #expect(text["listserver_http_requests_in_flight"] == 2)
        first.end(waiting, HTTPResponse(status: 200))
        first.connectionsChanged(to: 0)
        text = try await scrape()
        #expect(text["listserver_http_connections_open"] == 4)
        #expect(text["listserver_http_requests_in_flight"] == 1)
        #expect(text.requests("/items/{id}/detail", 200) == 1)
    }

    @Test("a refused head counts as a rejection by status, and as a request on route other")
    func rejections() async throws {
        let observer = LoopObserver(metrics: metrics, accessLog: nil)
        let marker = observer.begin(HTTPRequest(method: .get, target: ConnectionGuard.markerTarget), route: .other)
        observer.rejected(marker, HeadRejection(.headersTooLarge, detail: "too large"))
        let text = try await scrape()
        #expect(text[#"listserver_http_requests_rejected_total{status="431"}"#] == 1)
        #expect(text[#"listserver_http_requests_rejected_total{status="400"}"#] == 0)
        #expect(text.requests("other", 431) == 1)
    }

    @Test("GET, HEAD and OPTIONS only; with metrics off there is no /metrics")
    func methodsAndDisabled() async throws {
        #expect(router.respond("/metrics", method: .delete).status == 405)
        #expect(router.respond("/metrics", method: .delete).headers["Allow"] == "GET, HEAD, OPTIONS")
        #expect(router.respond("/metrics", method: .options).status == 204)
        #expect(await router.respondHeld("/metrics", method: .head).status == 200)
        let plain = RouterFixture.router(metrics: false)
        let missing = plain.respond("/metrics")
        #expect(missing.status == 404)
        #expect(missing.headers["Content-Type"] == "application/problem+json")
        #expect(plain.respond("/metrics/").status == 404)
        for method in [HTTPMethod.options, .delete, .head] {
            #expect(plain.respond("/metrics", method: method).status == 404, "\(method.name) with metrics off")
        }
    }

    @Test(
        "requests are counted under their route's template, or other",
        arguments: [
            ("/items", Route.items), ("/items?page=2&limit=5", .items), ("/items/42", .item),
            ("/items/abc?x=1", .item), ("/items/42/detail", .itemDetail), ("/items/42/detail?_=1", .itemDetail),
            ("/items/42/image", .itemImage), ("/items/42/image.webp?w=10", .itemImageFile),
            ("/healthz", .healthz), ("/readyz", .readyz), ("/metrics", .metrics), ("/metrics?x", .metrics),
            ("/openapi.yaml", .openAPIYAML), ("/openapi.json", .openAPIJSON), ("/", .app), ("/app/app.js", .appFile),
            ("/app/x/y", nil), ("/items/", nil),
            ("/items//detail", nil), ("/items/1/", nil), ("/items/1/details", nil), ("/itemsx", nil),
            ("/items/1/detail/x", nil), ("/nope", nil), ("*", nil), ("", nil),
            ("/%69tems/%34%32", .item), ("/items%2F42", nil), ("/items/%zz", nil),
            ("http://example.com/items/1/detail?x", .itemDetail), ("HTTP://h", .app),
            (ConnectionGuard.markerTarget, nil), ("/admin/reset", .adminReset), ("/admin/reset?x", .adminReset),
            ("/admin", nil), ("/admin/reset/x", nil), ("/items/changes", .changes),
            ("/items/changes?since=3", .changes), ("/items/events", .events), ("/items/events/", nil),
            ("/conversations/events", .conversationEvents),
            ("/admin/datasets/ui-1", .adminDataset),
            ("/admin/datasets/bad%20name", .adminDataset), ("/admin/datasets/", nil),
            ("/admin/datasets", .adminDatasets), ("/admin/datasets?after=a", .adminDatasets),
            ("/admin/journal", .adminJournal), ("/admin/journal/events", .adminJournalEvents),
            ("/admin/journal.har", .adminJournalHAR), ("/admin/report?client=a", .adminReport),
            ("/admin/journal/", nil), ("/admin/journal.json", nil),
            ("/v2/list", .picsumList), ("/id/3/info", .picsumIDInfo), ("/seed/s/info", .picsumSeedInfo),
            ("/id/3/200", .picsumIDSquare), ("/id/3/200/300.jpg", .picsumIDSized), ("/seed/s/200", .picsumSeedSquare),
            ("/seed/s/2/3", .picsumSeedSized), ("/200.webp", .picsumSquare), ("/200/300", .picsumSized),
            ("/conversations", .conversations), ("/conversations/3", .conversation),
            ("/conversations/3/messages", .conversationMessages), ("/conversations/", nil),
            ("/conversations/3/replies", nil), ("/conversations/3/messages/7", .conversationMessage),
            ("/conversations/3/read", .conversationRead), ("/conversations/3/messages/", nil),
        ])
    func routeLabels(target: String, expected: Route?) {
        for method in [HTTPMethod.get, .post, .options, .delete] {
            let label = router.match(HTTPRequest(method: method, target: target)).label
            #expect(label == expected?.label ?? .other, "\(method.name)")
            #expect(metrics.routeNames[metrics.slot(of: label)] == expected?.facts.template ?? "other")
        }
    }

    @Test("every route has a resource that names it: each is reachable and counted under its own template")
    func everyRouteHasAResource() {
        let resources: [Router.Resource] = [
            .items, .item("1"), .itemDetail("1"), .itemImage("1", fileExtension: nil),
            .itemImage("1", fileExtension: "png"), .probe(ready: false), .probe(ready: true), .openAPI(.yaml),
            .openAPI(.json), .metrics, .adminReset, .adminDataset("ui-1"), .adminDatasets,
            .adminDatasetProfile("ui-1"), .changes, .events,
            .picsumList, .picsumInfo(.id("1")), .picsumInfo(.seed("s")), .picsumImage(.id("1"), sizes: ["2"]),
            .picsumImage(.id("1"), sizes: ["2", "3"]), .picsumImage(.seed("s"), sizes: ["2"]),
            .picsumImage(.seed("s"), sizes: ["2", "3"]), .picsumImage(.random, sizes: ["2"]),
            .picsumImage(.random, sizes: ["2", "3"]), .appIndex, .webApp("app.js"),
            .auth(revoke: false), .auth(revoke: true), .adminJournal(.entries), .adminJournal(.events),
            .adminJournal(.har), .adminJournal(.report), .conversations, .conversation("1"),
            .conversationMessages("1"), .conversationMessage("1", "2"), .conversationRead("1"), .conversationEvents,
        ]
        #expect(Set(resources.map(\.route)) == Set(Route.allCases), "one resource per route")
        #expect(Set(metrics.routeNames).count == Route.allCases.count + 1, "templates are distinct")
    }
}
