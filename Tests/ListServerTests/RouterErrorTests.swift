import Foundation
import Testing

@testable import ListServer

@Suite("Router: unknown paths, other methods, malformed targets")
struct RouterErrorTests {
    let router = RouterFixture.router()

    /// Checks the RFC 9457 members of a problem response and returns its body.
    @discardableResult
    private func expectProblem(
        _ response: HTTPResponse, status: Int, type: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> [String: Any] {
        #expect(response.status == status, sourceLocation: sourceLocation)
        #expect(response.headers["Content-Type"] == "application/problem+json", sourceLocation: sourceLocation)
        let json = try #require(response.jsonObject, sourceLocation: sourceLocation)
        #expect(json["type"] as? String == "urn:listserver:problem:" + type, sourceLocation: sourceLocation)
        #expect(uint64(json["status"]) == UInt64(status), sourceLocation: sourceLocation)
        #expect((json["title"] as? String)?.isEmpty == false, sourceLocation: sourceLocation)
        #expect((json["detail"] as? String)?.isEmpty == false, sourceLocation: sourceLocation)
        #expect(Set(json.keys) == ["type", "title", "status", "detail"], sourceLocation: sourceLocation)
        return json
    }

    @Test(
        "unknown paths are 404",
        arguments: [
            "/foo", "/items/", "/items/42/", "/items/42/detail/x", "/items/42/detail/", "/items/42/details",
            "/items//detail", "/Items", "/items%2F42", "//items", "/items.json", "/items/42/x/detail/y/z",
        ])
    func unknownPath(target: String) throws {
        for method in [HTTPMethod.get, .head, .post] {
            let json = try expectProblem(router.respond(target, method: method), status: 404, type: "not-found")
            #expect(json["title"] as? String == "Not found")
        }
    }

    @Test("the 404 detail quotes the path")
    func unknownPathDetail() {
        #expect(router.respond("/items/").jsonObject?["detail"] as? String == "there is no resource at \"/items/\"")
    }

    @Test(
        "a known path with a method it does not answer is 405 with Allow listing the methods it does",
        arguments: [
            HTTPMethod.post, .put, .delete, .patch, .trace, .connect, .other("PROPFIND"), .other("get"),
            .other("options"),
        ])
    func methodNotAllowed(method: HTTPMethod) throws {
        var checked = 0
        for (target, allow) in Self.knownTargets where !Self.answers(allow, method) {
            let response = router.respond(target, method: method)
            let json = try expectProblem(response, status: 405, type: "method-not-allowed")
            #expect(response.headers["Allow"] == allow, "\(method.name) \(target)")
            #expect(json["title"] as? String == "Method not allowed")
            let detail = try #require(json["detail"] as? String)
            #expect(detail.hasPrefix("\"\(method.name)\" is not allowed on \""), "\(method.name) \(target)")
            #expect(detail.hasSuffix("; use \(allow)"), "\(method.name) \(target)")
            checked += 1
        }
        // Every method here is refused on most of the known paths (POST, PATCH and DELETE each have a route on one
        // or two of them): the loop must not have skipped them all.
        #expect(checked >= Self.knownTargets.count / 2, "\(method.name) was 405 on only \(checked) targets")
    }

    /// Whether `method` is one of the methods an `Allow` value lists (methods are case-sensitive).
    static func answers(_ allow: String, _ method: HTTPMethod) -> Bool {
        allow.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces) == method.name }
    }

    /// Targets on known paths and their `Allow`, some with an id, name or query the route would refuse: the method
    /// is checked first.
    static let knownTargets: [(target: String, allow: String)] = [
        ("/items", "GET, HEAD, POST, OPTIONS"), ("/items?page=0", "GET, HEAD, POST, OPTIONS"),
        ("/items/42", "GET, HEAD, PATCH, DELETE, OPTIONS"), ("/items/abc", "GET, HEAD, PATCH, DELETE, OPTIONS"),
        ("/items/99999/detail", "GET, HEAD, OPTIONS"), ("/items/1/detail", "GET, HEAD, OPTIONS"),
        ("/items/changes", "GET, HEAD, OPTIONS"), ("/items/changes?since=x", "GET, HEAD, OPTIONS"),
        ("/items/events", "GET, OPTIONS"), ("/healthz", "GET, HEAD, OPTIONS"),
        ("/admin/reset", "POST, OPTIONS"), ("/admin/datasets/ui-test-1", "DELETE, OPTIONS"),
        ("/admin/datasets/bad%20name", "DELETE, OPTIONS"),
    ]

    @Test("HEAD on the event stream is 405: a stream has no length to announce")
    func headOnEvents() throws {
        let response = router.respond("/items/events", method: .head)
        try expectProblem(response, status: 405, type: "method-not-allowed")
        #expect(response.headers["Allow"] == "GET, OPTIONS")
    }

    @Test("OPTIONS on a known path is 204 with Allow and no body, whatever the id, name or query")
    func options() {
        for (target, allow) in Self.knownTargets {
            let response = router.respond(target, method: .options)
            #expect(response.status == 204, "\(target)")
            #expect(response.headers["Allow"] == allow, "\(target)")
            #expect(response.headers["Content-Type"] == nil, "\(target)")
            #expect(response.body.isEmpty, "\(target)")
        }
        #expect(router.respond("/items/42/x", method: .options).status == 404)
    }

    @Test("a target that is not a path is 400", arguments: ["", "*", "items", "ftp://host/items"])
    func notAPath(target: String) throws {
        try expectProblem(router.respond(target), status: 400, type: "invalid-request-target")
    }

    @Test(
        "broken percent-encoding in the path is 400, before the method is considered",
        arguments: [
            "/items/%zz", "/items%4", "/%00", "/items/1/%FF",
        ])
    func brokenPath(target: String) throws {
        try expectProblem(router.respond(target), status: 400, type: "invalid-request-target")
        try expectProblem(router.respond(target, method: .post), status: 400, type: "invalid-request-target")
    }

    @Test(
        "a query that does not decode is 400 on every route, the event stream and routes that read no query included",
        arguments: [
            "/items/events?dataset=%00", "/items/events?dataset=%zz", "/items/events?since=%FF", "/healthz?x=%zz",
            "/readyz?%00", "/openapi.json?v=%C3", "/items/1?a=%4", "/items/1/detail?x=%zz", "/items/1/image?cb=%00",
            "/v2/list?page=%zz", "/?x=%zz", "/items/changes?x=%00", "/items?page=1&x=%zz", "/items/1?x=%FF%FE",
        ])
    func undecodableQuery(target: String) throws {
        let json = try expectProblem(router.respond(target), status: 400, type: "invalid-request-target")
        #expect((json["detail"] as? String)?.contains("%") == true, "the detail quotes what did not decode")
    }

    @Test("only 405 and 503 problems carry extra headers besides those every response has")
    func problemHeaders() {
        let expected: HTTPHeaders = ["Content-Type": "application/problem+json", "Cache-Control": "no-cache"]
        #expect(router.respond("/nope").headers == expected)
        #expect(router.respond("/items?page=0").headers == expected)
        let cors: HTTPHeaders = [
            "Content-Type": "application/problem+json", "Cache-Control": "no-cache",
            "Access-Control-Allow-Origin": "*", "Access-Control-Expose-Headers": CORSPolicy.exposedHeaders,
        ]
        #expect(router.respond("/nope", headers: ["Origin": "https://app.example"]).headers == cors)
    }

    @Test("every problem kind has its own absolute type URI")
    func distinctTypes() {
        let types = Problem.Kind.allCases.map { "\($0.type)" }
        #expect(Set(types).count == Problem.Kind.allCases.count)
        #expect(types.allSatisfy { $0.hasPrefix("urn:listserver:problem:") })
    }
}
