import Testing

@testable import ListServer

/// CORS for browser clients: the fields on every response, preflight OPTIONS, and the origin list.
@Suite("Router: CORS")
struct RouterCORSTests {
    static let exposed = "Link, X-Total-Count, X-Cache, Server-Timing, ETag, Retry-After, X-Request-Id"

    @Test(
        "by default every response lets any origin read it and exposes the API's fields",
        arguments: ["/items", "/items/9", "/nope", "/items?page=x"])
    func anyOrigin(target: String) {
        let response = RouterFixture.router().respond(target, headers: ["Origin": "https://app.example"])
        #expect(response.headers["Access-Control-Allow-Origin"] == "*")
        #expect(response.headers["Access-Control-Expose-Headers"] == Self.exposed)
    }

    @Test("a preflight gets 204 with the methods, the asked-for headers and a max age")
    func preflight() {
        let router = RouterFixture.router()
        let response = router.respond(
            "/items/3/detail", method: .options,
            headers: [
                "Origin": "http://localhost:3000", "Access-Control-Request-Method": "GET",
                "Access-Control-Request-Headers": "x-client-id, cache-control",
            ])
        #expect(response.status == 204)
        #expect(response.body.isEmpty)
        #expect(response.headers["Allow"] == "GET, HEAD, OPTIONS")
        #expect(response.headers["Access-Control-Allow-Origin"] == "*")
        #expect(response.headers["Access-Control-Allow-Methods"] == "GET, HEAD, POST, OPTIONS")
        #expect(response.headers["Access-Control-Allow-Headers"] == "x-client-id, cache-control")
        #expect(response.headers["Access-Control-Max-Age"] == "600")

        let malformed = router.respond(
            "/items", method: .options,
            headers: [
                "Origin": "http://localhost:3000", "Access-Control-Request-Method": "GET",
                "Access-Control-Request-Headers": "x(y)",
            ])
        #expect(malformed.headers["Access-Control-Allow-Headers"] == CORSPolicy.allowedHeaders)
    }

    @Test("OPTIONS without preflight fields answers Allow; on an unknown path it is 404")
    func plainOptions() {
        let router = RouterFixture.router()
        let items = router.respond("/items", method: .options)
        #expect(items.status == 204)
        #expect(items.headers["Allow"] == "GET, HEAD, OPTIONS")
        #expect(items.headers["Access-Control-Allow-Methods"] == nil)
        #expect(router.respond("/admin/reset", method: .options).headers["Allow"] == "POST, OPTIONS")
        #expect(router.respond("/nowhere", method: .options).status == 404)
    }

    @Test("a list of origins echoes a listed Origin with Vary: Origin, and allows no other")
    func listedOrigins() {
        let service = ServiceOptions(cors: CORSPolicy(origins: .only(["https://a.example", "http://localhost:3000"])))
        let router = RouterFixture.router(service: service)
        let listed = router.respond("/items", headers: ["Origin": "http://localhost:3000"])
        #expect(listed.headers["Access-Control-Allow-Origin"] == "http://localhost:3000")
        #expect(listed.headers["Vary"] == "Origin")
        let other = router.respond("/items", headers: ["Origin": "https://evil.example"])
        #expect(other.headers["Access-Control-Allow-Origin"] == nil)
        #expect(other.headers["Vary"] == "Origin")
        let preflight = router.respond(
            "/items", method: .options,
            headers: ["Origin": "https://evil.example", "Access-Control-Request-Method": "GET"])
        #expect(preflight.headers["Access-Control-Allow-Methods"] == nil)
    }

    @Test("with CORS off no CORS field is sent")
    func off() {
        let router = RouterFixture.router(service: ServiceOptions(cors: nil))
        let response = router.respond("/items", headers: ["Origin": "https://a.example"])
        #expect(!response.headers.contains { $0.name.hasPrefix("Access-Control-") })
        #expect(response.headers["Vary"] == nil)
    }
}
