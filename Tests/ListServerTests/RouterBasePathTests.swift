import ListDomain
import Testing

@testable import ListServer

/// `/d/<name>/…`: a dataset as a base URL means what `X-Dataset: <name>` means, and every URL it answers keeps the
/// base (Router+BasePath.swift).
@Suite("Router: a dataset as a base URL")
struct RouterBasePathTests {
    static let host = "127.0.0.1:8080"

    /// One request of the walk: a path without the base, and what it carries.
    struct Step: Sendable, CustomStringConvertible {
        let method: HTTPMethod
        let path: String
        var headers: HTTPHeaders = [:]
        var body: [UInt8] = []

        var description: String { "\(method.name) \(path)" }
    }

    /// A request of every route (``Route``), in an order whose writes later steps read: created, patched, uploaded,
    /// removed, deleted, reset, dropped.
    static func walk() throws -> [Step] {
        let png = try ImageCodecs().encode(
            RGBImage(width: 4, height: 2, pixels: [UInt8](repeating: 200, count: 24)), as: .png)
        let json: HTTPHeaders = ["Content-Type": "application/json"]
        return [
            Step(method: .get, path: "/items?page=2&limit=3"),
            Step(method: .get, path: "/items?after=5&limit=2"),
            Step(method: .post, path: "/items", headers: json, body: Array(#"{"label":"under a base"}"#.utf8)),
            Step(method: .get, path: "/items/10000"),
            Step(method: .patch, path: "/items/10000", headers: json, body: Array(#"{"label":"patched"}"#.utf8)),
            Step(method: .get, path: "/items?page=1&limit=2&order=desc"),
            Step(method: .get, path: "/items?before=10001&order=desc&limit=2"),
            Step(method: .get, path: "/items/3/detail"),
            Step(method: .put, path: "/items/4/image", headers: ["Content-Type": "image/png"], body: png),
            Step(method: .get, path: "/items/4/image"),
            Step(method: .get, path: "/items/5/image.png?w=20&h=20"),
            Step(method: .delete, path: "/items/4/image"),
            Step(method: .get, path: "/v2/list?page=2&limit=2"),
            Step(method: .get, path: "/id/3/info"),
            Step(method: .get, path: "/seed/abc/info"),
            Step(method: .get, path: "/id/3/20"),
            Step(method: .get, path: "/id/3/20/10.webp"),
            Step(method: .get, path: "/seed/abc/20?grayscale"),
            Step(method: .get, path: "/seed/abc/20/10"),
            Step(method: .get, path: "/20"),
            Step(method: .get, path: "/20/10?blur=2"),
            Step(method: .get, path: "/items/changes?since=0"),
            Step(method: .get, path: "/items/events"),
            Step(method: .get, path: "/conversations/events"),
            Step(method: .delete, path: "/items/10000"),
            Step(method: .get, path: "/healthz"),
            Step(method: .get, path: "/readyz"),
            Step(method: .get, path: "/openapi.json"),
            Step(method: .get, path: "/openapi.yaml"),
            Step(method: .get, path: "/"),
            Step(method: .get, path: "/app/app.js"),
            Step(method: .get, path: "/metrics"),
            Step(method: .get, path: "/admin/datasets"),
            Step(method: .get, path: "/admin/journal?limit=5"),
            Step(method: .get, path: "/admin/journal/events"),
            Step(method: .get, path: "/admin/journal.har"),
            Step(method: .get, path: "/admin/report"),
            Step(method: .get, path: "/conversations?limit=3"),
            Step(method: .get, path: "/conversations/2"),
            Step(method: .get, path: "/conversations/0/messages?around=50&limit=5"),
            Step(method: .post, path: "/conversations/0/messages", headers: json, body: Array(#"{"text":"hi"}"#.utf8)),
            Step(method: .get, path: "/conversations/0/messages/3"),
            Step(method: .post, path: "/conversations/0/read", headers: json, body: Array(#"{"up_to":3}"#.utf8)),
            Step(method: .delete, path: "/admin/journal"),
            Step(
                method: .put, path: "/admin/datasets/x/profile", headers: json,
                body: Array(#"{"script":[{"match":{"route":"/items/{id}/detail"},"respond":{"status":503}}]}"#.utf8)),
            Step(method: .get, path: "/admin/datasets/x/profile"),
            Step(method: .delete, path: "/admin/datasets/x/profile"),
            Step(method: .post, path: "/auth/token"),
            Step(method: .post, path: "/auth/revoke"),
            Step(method: .post, path: "/admin/reset"),
            Step(method: .delete, path: "/admin/datasets/x"),
        ]
    }

    /// What an answer to a request with `X-Dataset: x` becomes under `/d/x`: its server-relative and absolute URLs
    /// (in `Link`, `Location` and JSON bodies) moved under the base, nothing else changed. The OpenAPI document is
    /// the same text either way (it names the base itself).
    static func underBase(_ response: HTTPResponse, route: Route) -> HTTPResponse {
        let root = "http://\(host)"
        func moved(_ url: Substring) -> String {
            if url.hasPrefix(root + "/") { return root + "/d/x" + url.dropFirst(root.count) }
            if url.hasPrefix("/") { return "/d/x" + url }
            return String(url)
        }
        var expected = response
        var headers = HTTPHeaders()
        for (name, value) in response.headers {
            switch name {
            case "Location":
                headers.add(name, moved(value[...]))
            case "Link":
                var links: [String] = []
                for link in value.split(separator: ", <", omittingEmptySubsequences: false) {
                    let text = link.hasPrefix("<") ? link.dropFirst() : link
                    let close = text.firstIndex(of: ">")!
                    links.append("<" + moved(text[..<close]) + text[close...])
                }
                headers.add(name, links.joined(separator: ", "))
            default:
                headers.add(name, value)
            }
        }
        expected.headers = headers
        let json = response.headers["Content-Type"].map { $0.contains("json") } ?? false
        if json && route != .openAPIJSON {
            expected.body = Array(
                response.text
                    .replacing(#""image_url":"/"#, with: #""image_url":"/d/x/"#)
                    .replacing("\"\(root)/", with: "\"\(root)/d/x/")
                    .utf8)
        }
        return expected
    }

    @Test("every route under /d/x/ answers what X-Dataset: x answers, with every URL under /d/x/")
    func everyRoute() async throws {
        let viaHeader = RouterFixture.router(store: MemoryListStore(), metrics: true)
        let viaBase = RouterFixture.router(store: MemoryListStore(), metrics: true)
        var routes: Set<Route> = []
        for step in try Self.walk() {
            var headers = step.headers
            headers.add("Host", Self.host)
            let plain = HTTPRequest(method: step.method, target: step.path, headers: headers, body: step.body)
            let route = try #require(try? viaHeader.match(plain).resource.get().route, "\(step)")
            routes.insert(route)
            var named = headers
            named.add("X-Dataset", "x")
            let expected = await viaHeader.answer(
                HTTPRequest(method: step.method, target: step.path, headers: named, body: step.body))
            let answer = await viaBase.answer(
                HTTPRequest(method: step.method, target: "/d/x" + step.path, headers: headers, body: step.body))
            #expect(expected.status < 400 || route == .adminDataset, "\(step): \(expected.status) \(expected.text)")
            let underBase = Self.underBase(expected, route: route)
            #expect(answer.status == underBase.status, "\(step)")
            // Server-Timing says how long the encoder took this time.
            #expect(answer.headers.without("Server-Timing") == underBase.headers.without("Server-Timing"), "\(step)")
            // /metrics counts this walk and the allocator's bytes, which differ between two routers; a token is
            // random.
            let same = route == .metrics || route == .authToken || answer.body == underBase.body
            #expect(same, "\(step): \(answer.text.prefix(300)) against \(underBase.text.prefix(300))")
        }
        #expect(routes == Set(Route.allCases), "routes the walk misses: \(Set(Route.allCases).subtracting(routes))")
    }

    @Test("what a dataset is written under /d/a/ is in dataset a, and nowhere else")
    func isolation() async throws {
        let router = RouterFixture.router(store: MemoryListStore())
        let created = await router.write(.post, "/d/a/items", json: #"{"label":"only in a"}"#)
        #expect(created.status == 201)
        #expect(created.headers["Location"] == "/d/a/items/10000")
        #expect(created.text.contains(#""image_url":"/d/a/items/10000/image""#))
        #expect(await router.respondHeld("/items/10000", headers: ["X-Dataset": "a"]).status == 200)
        #expect(await router.respondHeld("/d/a/items/10000").status == 200)
        #expect(await router.respondHeld("/d/b/items/10000").status == 404)
        #expect(await router.respondHeld("/items/10000").status == 404)
    }

    @Test("a replayed write gets the URLs of the request that retried it, under a base or not")
    func idempotentReplay() async throws {
        let router = RouterFixture.router(store: MemoryListStore())
        let first = await router.write(
            .post, "/items", json: #"{"label":"once"}"#, headers: ["X-Dataset": "x", "Idempotency-Key": "k1"])
        #expect(first.status == 201)
        let underBase = await router.write(
            .post, "/d/x/items", json: #"{"label":"once"}"#, headers: ["Idempotency-Key": "k1"])
        #expect(underBase.headers["Idempotent-Replayed"] == "true")
        #expect(underBase.headers["Location"] == "/d/x/items/10000")
        #expect(underBase.text == first.text.replacing(#""image_url":"/"#, with: #""image_url":"/d/x/"#))
        let again = await router.write(
            .post, "/items", json: #"{"label":"once"}"#, headers: ["X-Dataset": "x", "Idempotency-Key": "k1"])
        #expect(again.headers["Location"] == "/items/10000")
        #expect(again.text == first.text)
        let second = await router.write(
            .post, "/d/x/items", json: #"{"label":"twice"}"#, headers: ["Idempotency-Key": "k2"])
        #expect(second.text.contains(#""image_url":"/d/x/items/10001/image""#))
        let replayed = await router.write(
            .post, "/items", json: #"{"label":"twice"}"#, headers: ["X-Dataset": "x", "Idempotency-Key": "k2"])
        #expect(replayed.headers["Location"] == "/items/10001")
        #expect(replayed.text.contains(#""image_url":"/items/10001/image""#))
    }

    @Test(
        "a field or a query that names another dataset than the path is 400; the same one is fine",
        arguments: [
            ("/d/a/items", ["X-Dataset": "b"], 400),
            ("/d/a/items?dataset=b", [:], 400),
            ("/d/a/items/3/image?dataset=b", [:], 400),
            ("/d/a/items/events?dataset=b", [:], 400),
            ("/d/a/items?%64ataset=b", [:], 400),
            ("/d/a/items", ["X-Dataset": "a"], 200),
            ("/d/a/items/3/image?dataset=a&w=10&h=10", [:], 200),
        ] as [(String, HTTPHeaders, Int)])
    func conflicts(target: String, headers: HTTPHeaders, status: Int) async {
        let router = RouterFixture.router(store: MemoryListStore())
        let answer = await router.respondHeld(target, headers: headers)
        #expect(answer.status == status, "\(answer.text)")
        if status == 400 { #expect(answer.text.contains("the path names dataset")) }
    }

    @Test(
        "a dataset name in the path that breaks the rule is 400 invalid-request-target",
        arguments: [
            "/d//items", "/d/a%20b/items", "/d/a%2Fb/items", "/d/../items", "/d/./items", "/d/a b/items",
            "/d/" + String(repeating: "n", count: 65) + "/items", "/d/",
        ])
    func invalidNames(target: String) {
        let router = RouterFixture.router(store: MemoryListStore())
        let answer = router.respond(target)
        #expect(answer.status == 400)
        #expect(answer.jsonObject?["type"] as? String == "urn:listserver:problem:invalid-request-target")
    }

    @Test("the bare base is 308 to the app under it, query kept; /d and /dx are other paths")
    func bareBase() {
        let router = RouterFixture.router(store: MemoryListStore())
        let bare = router.respond("/d/run-42")
        #expect(bare.status == 308)
        #expect(bare.headers["Location"] == "/d/run-42/")
        #expect(router.respond("/d/run-42?view=chat").headers["Location"] == "/d/run-42/?view=chat")
        // Nothing a client sent reaches a header raw (the connection layer refuses such a target before this).
        #expect(router.respond("/d/run-42?a=\r\nX: 1 é").headers["Location"] == "/d/run-42/?a=%0D%0AX:%201%20%C3%A9")
        #expect(router.respond("/d/run-42/").status == 200)  // the app's page
        #expect(router.respond("/d").status == 404)
        #expect(router.respond("/dx/items").status == 404)
    }

    @Test("an absolute-form target names its dataset by path too")
    func absoluteForm() async {
        let router = RouterFixture.router(store: MemoryListStore())
        let answer = await router.respondHeld("http://127.0.0.1:8080/d/a/items?page=1&limit=1")
        #expect(answer.status == 200)
        #expect(answer.headers["Link"]?.hasPrefix("</d/a/items?page=1&limit=1>") == true)
    }
}

extension HTTPHeaders {
    /// These fields but those called `name`.
    fileprivate func without(_ name: String) -> HTTPHeaders {
        var kept = HTTPHeaders()
        for field in self where field.name != name { kept.add(field.name, field.value) }
        return kept
    }
}
