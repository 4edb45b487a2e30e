import Foundation
import Testing

@testable import ListServer

/// `POST /admin/reset`: access rules, the body, and what a reset changes.
@Suite("Router: POST /admin/reset")
struct RouterAdminTests {
    static func reset(body: String = "", headers: HTTPHeaders = [:], fromLoopback: Bool = true) -> HTTPRequest {
        HTTPRequest(
            method: .post, target: "/admin/reset", headers: headers, body: Array(body.utf8), fromLoopback: fromLoopback)
    }

    @Test("without admin.token, loopback clients may reset and others get 403")
    func loopbackOnly() async {
        let router = RouterFixture.router()
        #expect(await router.answer(Self.reset()).status == 200)
        let remote = await router.answer(Self.reset(fromLoopback: false))
        #expect(remote.status == 403)
        #expect(remote.headers["Content-Type"] == "application/problem+json")
    }

    @Test("with admin.token, only the right bearer token gets in, from anywhere")
    func bearerToken() async throws {
        let router = RouterFixture.router(service: ServiceOptions(adminToken: try AdminToken(parsing: "s3cret-token")))
        let cases: [(String?, Int)] = [
            (nil, 401), ("Bearer wrong", 401), ("Bearer s3cret-toke", 401), ("Bearer s3cret-tokenX", 401),
            ("Basic czNjcmV0LXRva2Vu", 401), ("Bearer", 401), ("Bearer s3cret-token", 200),
            ("bearer s3cret-token", 200),
        ]
        for (authorization, status) in cases {
            let headers: HTTPHeaders = authorization.map { ["Authorization": $0] } ?? [:]
            let response = await router.answer(Self.reset(headers: headers, fromLoopback: false))
            #expect(response.status == status, "\(authorization ?? "none")")
            if status == 401 {
                #expect(response.headers["WWW-Authenticate"] == "Bearer realm=\"ListServer admin\"")
                #expect(!response.text.contains("s3cret"), "the token is never echoed")
            }
        }
    }

    @Test(
        "a web page of another origin cannot reset or drop, whatever its Content-Type; nothing changes",
        arguments: [
            ["Origin": "https://evil.example", "Content-Type": "text/plain"], ["Origin": "null"],
            ["Origin": "http://localhost:3000", "Host": "localhost:8080"], ["Sec-Fetch-Site": "cross-site"],
            ["Origin": "https://localhost:8080", "Host": "localhost:9090"],
        ] as [HTTPHeaders])
    func crossSiteRefused(headers: HTTPHeaders) async throws {
        let router = RouterFixture.router()
        let version = uint64(router.respond("/items?limit=1").jsonObject?["version"])
        var fields = headers
        if fields["Host"] == nil { fields.add("Host", "127.0.0.1:8080") }
        let reset = await router.answer(Self.reset(body: "{}", headers: fields))
        #expect(reset.status == 403)
        #expect(reset.jsonObject?["type"] as? String == "urn:listserver:problem:forbidden")
        #expect((reset.jsonObject?["detail"] as? String)?.contains("admin endpoints refuse") == true)
        let drop = await router.answer(
            HTTPRequest(method: .delete, target: "/admin/datasets/run-1", headers: fields, fromLoopback: true))
        #expect(drop.status == 403)
        #expect(uint64(router.respond("/items?limit=1").jsonObject?["version"]) == version, "nothing was reset")
        // The preflight of such a page gets no CORS fields, so a browser never sends the request.
        var preflight = fields
        preflight.add("Access-Control-Request-Method", "POST")
        if preflight["Origin"] == nil { preflight.add("Origin", "https://evil.example") }
        let options = router.respond("/admin/reset", method: .options, headers: preflight)
        #expect(options.status == 204)
        #expect(options.headers["Access-Control-Allow-Methods"] == nil)
    }

    @Test(
        "the server's own origin, a listed origin and clients without Origin (curl, the generated client) get in",
        arguments: [
            [:], ["Origin": "http://127.0.0.1:8080"], ["Origin": "http://LOCALHOST:8080", "Host": "localhost:8080"],
            ["Origin": "https://lists.example", "Host": "lists.example:443"], ["Origin": "https://dash.example"],
            ["Origin": "https://proxy.example", "Sec-Fetch-Site": "cross-site"], ["Sec-Fetch-Site": "same-origin"],
            ["Origin": "http://example.com", "Host": "example.com:80"],
        ] as [HTTPHeaders])
    func ownOriginAllowed(headers: HTTPHeaders) async throws {
        var service = ServiceOptions()
        service.adminOrigin = AdminOrigin(
            allowed: try CORSOrigins(parsing: "https://dash.example"), publicURL: "https://proxy.example/lists")
        let router = RouterFixture.router(service: service)
        var fields = headers
        if fields["Host"] == nil { fields.add("Host", "127.0.0.1:8080") }
        let reset = await router.answer(Self.reset(headers: fields))
        #expect(reset.status == 200, "\(reset.text)")
        var preflight = fields
        preflight.add("Access-Control-Request-Method", "POST")
        if preflight["Origin"] != nil {
            #expect(
                router.respond("/admin/reset", method: .options, headers: preflight).headers[
                    "Access-Control-Allow-Methods"] != nil)
        }
    }

    @Test("admin.allowed_origins = * lets every origin in, the token and loopback rules still apply")
    func anyOrigin() async throws {
        var service = ServiceOptions()
        service.adminOrigin = AdminOrigin(allowed: .any, publicURL: nil)
        let router = RouterFixture.router(service: service)
        #expect(await router.answer(Self.reset(headers: ["Origin": "https://evil.example"])).status == 200)
        #expect(
            await router.answer(Self.reset(headers: ["Origin": "https://a.example"], fromLoopback: false)).status == 403
        )
    }

    @Test("a reset bumps the version, clears the cache and switches the seed when given")
    func resetEffects() async throws {
        let router = RouterFixture.router()
        let before = router.respond("/items?limit=3")
        #expect(uint64(before.jsonObject?["version"]) == 1)
        _ = await router.respondHeld("/items/5/detail")
        #expect(await router.respondHeld("/items/5/detail").headers["X-Cache"] == "HIT")

        let reset = await router.answer(Self.reset(body: #"{"seed": 7}"#))
        #expect(reset.status == 200)
        let body = try #require(reset.jsonObject)
        #expect(uint64(body["version"]) == 2)
        #expect(uint64(body["seed"]) == 7)
        #expect(uint64(body["count"]) == 10_000)
        #expect(uint64((body["cleared"] as? [String: Any])?["details"]) == 1)

        let after = router.respond("/items?limit=3")
        #expect(uint64(after.jsonObject?["version"]) == 2)
        #expect(
            after.jsonObject?["items"] as? NSArray != before.jsonObject?["items"] as? NSArray, "new seed, new items")
        #expect(await router.respondHeld("/items/5/detail").headers["X-Cache"] == "MISS")

        let again = await router.answer(Self.reset())
        let sameSeed = try #require(again.jsonObject)
        #expect(uint64(sameSeed["seed"]) == 7, "an empty body keeps the seed")
        #expect(uint64(sameSeed["version"]) == 3)
    }

    @Test(
        "a body that is not {\"seed\": S} is a 400 that says what it takes",
        arguments: [
            #"{"sed": 7}"#, #"{"seed": -1}"#, #"{"seed": 1.5}"#, #"{"seed": "7"}"#, "[7]", "seed=7", "{",
            #"{"seed": 1, "seed": 2}"#, #"{"seed": 9223372036854775808}"#, #"{"seed": {"x": 1}}"#,
        ])
    func badBody(body: String) async {
        let response = await RouterFixture.router().answer(Self.reset(body: body))
        #expect(response.status == 400)
        #expect(response.jsonObject?["type"] as? String == "urn:listserver:problem:invalid-body")
        #expect((response.jsonObject?["detail"] as? String)?.contains("seed") == true)
    }

    @Test("other methods on /admin/reset get 405 with Allow: POST, OPTIONS; a GET never resets")
    func methods() {
        let router = RouterFixture.router()
        for method in [HTTPMethod.get, .head, .put, .delete] {
            let response = router.respond("/admin/reset", method: method)
            #expect(response.status == 405)
            #expect(response.headers["Allow"] == "POST, OPTIONS")
        }
        // Allow is the resource's own: /items answers POST too, but not PUT.
        #expect(router.respond("/items", method: .put).headers["Allow"] == "GET, HEAD, POST, OPTIONS")
    }
}
