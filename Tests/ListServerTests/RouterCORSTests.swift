import Foundation
import Testing

@testable import ListServer

/// CORS for browser clients: the fields on every answer to a request with `Origin`, preflight OPTIONS, and the origin
/// list.
@Suite("Router: CORS")
struct RouterCORSTests {
    static let exposed =
        "Link, X-Total-Count, X-Cache, Server-Timing, ETag, Retry-After, X-Request-Id, Location, Idempotent-Replayed, "
        + "Content-Disposition, Picsum-ID, RateLimit, RateLimit-Policy, WWW-Authenticate, Content-Range, "
        + "Accept-Ranges"
    /// Every method some route answers.
    static let methods = "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS"
    /// The request fields the API reads, allowed when a preflight asks for none or for a malformed list.
    static let readFields =
        "Authorization, Cache-Control, Content-Type, If-Match, If-None-Match, If-Range, Idempotency-Key, Last-Event-ID, "
        + "Pragma, Range, X-Bandwidth-Kbps, X-Client-Id, X-Dataset, X-Request-Id"

    @Test(
        "by default every response lets any origin read it and exposes the API's fields",
        arguments: ["/items", "/items/9", "/nope", "/items?page=x"])
    func anyOrigin(target: String) {
        let response = RouterFixture.router().respond(target, headers: ["Origin": "https://app.example"])
        #expect(response.headers["Access-Control-Allow-Origin"] == "*")
        #expect(response.headers["Access-Control-Expose-Headers"] == Self.exposed)
    }

    @Test("a write's deferred answer and an event stream carry the CORS fields too")
    func writesAndStreams() async {
        let router = RouterFixture.router()
        let created = await router.answer(
            HTTPRequest(
                method: .post, target: "/items",
                headers: ["Origin": "https://app.example", "Content-Type": "application/json"],
                body: Array(#"{"label":"x"}"#.utf8)))
        #expect(created.status == 201)
        #expect(created.headers["Access-Control-Allow-Origin"] == "*")
        #expect(created.headers["Access-Control-Expose-Headers"] == Self.exposed)
        let stream = await router.answer(
            HTTPRequest(method: .get, target: "/items/events", headers: ["Origin": "https://app.example"]))
        #expect(stream.headers["Access-Control-Allow-Origin"] == "*")
        #expect(stream.headers["Access-Control-Expose-Headers"] == Self.exposed)
        #expect(stream.vary.contains(.origin))
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
        #expect(response.headers["Access-Control-Allow-Methods"] == Self.methods)
        #expect(response.headers["Access-Control-Allow-Headers"] == "x-client-id, cache-control")
        #expect(response.headers["Access-Control-Max-Age"] == "600")

        let malformed = router.respond(
            "/items", method: .options,
            headers: [
                "Origin": "http://localhost:3000", "Access-Control-Request-Method": "GET",
                "Access-Control-Request-Headers": "x(y)",
            ])
        #expect(malformed.headers["Access-Control-Allow-Headers"] == Self.readFields)
        #expect(CORSPolicy.allowedHeaders == Self.readFields)
    }

    @Test("a preflight for a write gets the write methods, and the fields a write sends when it names none")
    func writePreflight() {
        let router = RouterFixture.router()
        let response = router.respond(
            "/items/3", method: .options,
            headers: ["Origin": "http://localhost:3000", "Access-Control-Request-Method": "PATCH"])
        #expect(response.status == 204)
        #expect(response.headers["Allow"] == "GET, HEAD, PATCH, DELETE, OPTIONS")
        #expect(response.headers["Access-Control-Allow-Methods"] == Self.methods)
        let allowed = Set(
            (response.headers["Access-Control-Allow-Headers"] ?? "").split(separator: ",").map {
                $0.trimmingCharacters(in: .whitespaces)
            })
        for field in ["Content-Type", "If-Match", "Idempotency-Key", "X-Dataset", "Last-Event-ID"] {
            #expect(allowed.contains(field), "\(field)")
        }
    }

    @Test("OPTIONS without preflight fields answers Allow; on an unknown path it is 404")
    func plainOptions() {
        let router = RouterFixture.router()
        let items = router.respond("/items", method: .options)
        #expect(items.status == 204)
        #expect(items.headers["Allow"] == "GET, HEAD, POST, OPTIONS")
        #expect(items.headers["Access-Control-Allow-Methods"] == nil)
        #expect(router.respond("/items/3/detail", method: .options).headers["Allow"] == "GET, HEAD, OPTIONS")
        #expect(router.respond("/items/events", method: .options).headers["Allow"] == "GET, OPTIONS")
        #expect(router.respond("/admin/reset", method: .options).headers["Allow"] == "POST, OPTIONS")
        #expect(router.respond("/admin/datasets/a", method: .options).headers["Allow"] == "DELETE, OPTIONS")
        #expect(router.respond("/nowhere", method: .options).status == 404)
    }

    @Test("a list of origins echoes a listed Origin with Vary: Origin, and allows no other")
    func listedOrigins() {
        let service = ServiceOptions(cors: CORSPolicy(origins: .only(["https://a.example", "http://localhost:3000"])))
        let router = RouterFixture.router(service: service)
        let listed = router.respond("/items", headers: ["Origin": "http://localhost:3000"])
        #expect(listed.headers["Access-Control-Allow-Origin"] == "http://localhost:3000")
        #expect(listed.vary.contains(.origin))
        let other = router.respond("/items", headers: ["Origin": "https://evil.example"])
        #expect(other.headers["Access-Control-Allow-Origin"] == nil)
        #expect(other.vary.contains(.origin))
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
        #expect(!response.vary.contains(.origin))
    }

    @Test(
        "a request without Origin (curl, a native app) gets no CORS field, and the answer says it varies by Origin",
        arguments: [
            ServiceOptions(), ServiceOptions(cors: CORSPolicy(origins: .only(["https://a.example"]))),
        ])
    func withoutOrigin(service: ServiceOptions) async {
        let router = RouterFixture.router(service: service)
        var answers: [HTTPResponse] = []
        for target in ["/items", "/items/9", "/nope", "/items/3/detail", "/items/3/image", "/items/events"] {
            answers.append(await router.respondHeld(target))
        }
        answers += [
            await router.answer(
                HTTPRequest(
                    method: .post, target: "/items", headers: ["Content-Type": "application/json"],
                    body: Array(#"{"label":"x"}"#.utf8)))
        ]
        for answer in answers {
            #expect(answer.status < 500)
            #expect(!answer.headers.contains { $0.name.hasPrefix("Access-Control-") }, "\(answer.headers)")
            #expect(answer.vary.contains(.origin), "\(answer.status)")
        }
        // The same resource with an Origin gets the fields: what a cache must tell apart.
        let fromPage = router.respond("/items", headers: ["Origin": "https://a.example"])
        #expect(fromPage.headers["Access-Control-Allow-Origin"] != nil && fromPage.vary.contains(.origin))
    }
}
