import Testing

@testable import ListServer

/// `/healthz` and `/readyz` on request values.
@Suite("Router: health and readiness")
struct RouterHealthTests {
    let router = RouterFixture.router()

    @Test(
        "GET and HEAD answer 200 with the status object, uncacheable",
        arguments: [("/healthz", #"{"status":"ok"}"#), ("/readyz", #"{"status":"ready","store":"ok"}"#)])
    func probes(target: String, body: String) {
        for method in [HTTPMethod.get, .head] {
            let response = router.respond(target, method: method)
            #expect(response.status == 200)
            #expect(response.headers["Content-Type"] == "application/json; charset=utf-8")
            // Their own no-store, not the no-cache every other response gets on top of it.
            #expect(response.headers.values(for: "Cache-Control") == ["no-store"])
            #expect(response.text == body)
        }
    }

    @Test("a query string is ignored", arguments: ["/healthz?verbose=1", "/readyz?_=123"])
    func queryIgnored(target: String) {
        #expect(router.respond(target).status == 200)
    }

    @Test(
        "other methods are 405 with Allow: GET, HEAD, OPTIONS",
        arguments: [HTTPMethod.post, .put, .delete, .patch, .other("PROBE")])
    func otherMethods(method: HTTPMethod) {
        for target in ["/healthz", "/readyz"] {
            let response = router.respond(target, method: method)
            #expect(response.status == 405)
            #expect(response.headers["Allow"] == "GET, HEAD, OPTIONS")
            #expect(response.headers["Content-Type"] == "application/problem+json")
            #expect(response.jsonObject?["type"] as? String == "urn:listserver:problem:method-not-allowed")
        }
    }

    @Test("OPTIONS is 204 with Allow and no body", arguments: ["/healthz", "/readyz"])
    func options(target: String) {
        let response = router.respond(target, method: .options)
        #expect(response.status == 204)
        #expect(response.headers["Allow"] == "GET, HEAD, OPTIONS")
        #expect(response.body.isEmpty)
    }

    @Test(
        "only the exact paths are probes",
        arguments: ["/healthz/", "/readyz/x", "/Healthz", "/health", "/ready", "/healthz/readyz"])
    func nearMisses(target: String) {
        #expect(router.respond(target).status == 404)
    }

    @Test("percent-encoded letters name the same probe")
    func percentEncoded() {
        #expect(router.respond("/%68ealthz").status == 200)
    }
}
