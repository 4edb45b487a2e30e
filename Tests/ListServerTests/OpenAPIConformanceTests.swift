import ListDomain
import Testing

@testable import ListServer

/// Checks a router response against what the spec documents for it: status, content type, headers and body.
struct ResponseConformance {
    let spec: OpenAPISpec
    var checker: SchemaChecker { SchemaChecker(spec: spec) }

    /// The documented response of `operation` for `status`, resolved; nil when the status is not documented.
    func documented(_ operation: JSONValue, status: Int) -> JSONValue? {
        operation["responses"]?[String(status)].flatMap(spec.resolve)
    }

    /// Every way `response` departs from `documented`; empty when it conforms.
    func violations(of response: HTTPResponse, against documented: JSONValue) -> [String] {
        var found: [String] = []
        let contentType = response.headers["Content-Type"] ?? ""
        let mediaType = String(contentType.prefix { $0 != ";" }).trimmingCharacters(in: .whitespaces).lowercased()
        let content = documented["content"]?.object ?? [:]
        if content.isEmpty {
            if !response.body.isEmpty { found.append("a body, but no documented content") }
        } else if let media = content[mediaType] {
            if mediaType == "application/json" && contentType != MediaType.json {
                found.append("Content-Type \"\(contentType)\" is not \"\(MediaType.json)\"")
            }
            found += bodyViolations(response.body, mediaType: mediaType, schema: media["schema"])
        } else {
            found.append("Content-Type \"\(contentType)\" is not documented (\(content.keys.sorted()))")
        }

        let headers = (documented["headers"]?.object ?? [:]).compactMapValues(spec.resolve)
        for (name, header) in headers where header["required"] == .bool(true) && response.headers[name] == nil {
            found.append("required header \(name) is missing")
        }
        for (name, value) in response.headers where !HTTPHeaders.namesMatch(name, "Content-Type") {
            guard let header = headers.first(where: { HTTPHeaders.namesMatch($0.key, name) })?.value,
                let schema = header["schema"]
            else {
                found.append("header \(name) is not documented")
                continue
            }
            let headerValue = SchemaChecker.headerValue(value, schema: schema, spec: spec)
            found += checker.violations(of: headerValue, against: schema, at: "header \(name)")
        }
        return found
    }

    private func bodyViolations(_ body: [UInt8], mediaType: String, schema: JSONValue?) -> [String] {
        guard let schema else { return [] }
        switch mediaType {
        case "application/json", "application/problem+json":
            guard let value = try? JSONValue(parsing: body) else { return ["the body is not JSON"] }
            return checker.violations(of: value, against: schema)
        case "application/yaml":
            // No YAML parser here: the YAML is the embedded file, whose JSON twin is the parsed document.
            guard body == Array(OpenAPIDocument.yaml.utf8) else { return ["the YAML body is not openapi.yaml"] }
            return checker.violations(of: spec.root, against: schema)
        default:
            return ["no way to check a \(mediaType) body"]
        }
    }
}

/// One request and the status it must get; its response must conform to the spec.
struct ConformanceCase: Sendable, CustomTestStringConvertible {
    /// The path template in the spec, e.g. `/items/{id}`.
    let template: String
    let target: String
    var headers: HTTPHeaders = [:]
    var failingStore = false
    let status: Int

    var testDescription: String { "\(target) \(headers.description) → \(status)" }
}

@Suite("openapi.yaml matches the router")
struct OpenAPIConformanceTests {
    let spec = OpenAPISpec.embedded
    var conformance: ResponseConformance { ResponseConformance(spec: spec) }

    /// Responses only the connection layer gives (strict HTTP, shutdown); the router never does.
    static let connectionLayerResponses: Set<String> = [
        "RequestTimeout", "LengthRequired", "ContentTooLarge", "URITooLong", "HeaderFieldsTooLarge",
        "HTTPVersionNotSupported", "NotImplemented", "ShuttingDown",
    ]

    /// Statuses documented for a path that only the connection layer gives there: the probes and the description
    /// documents ignore the query, so no route-level 400 reaches them.
    static let connectionLayerOnly: [String: Set<String>] = [
        "/healthz": ["400"], "/readyz": ["400"], "/openapi.json": ["400"], "/openapi.yaml": ["400"],
    ]

    /// Requests that reach every status a route can give. Detail requests run in order on one router: the first
    /// is a miss (with `Server-Timing`), the next a hit.
    static let cases: [ConformanceCase] = [
        .init(template: "/items", target: "/items", status: 200),
        .init(template: "/items", target: "/items?page=2&limit=5&_=1700000000", status: 200),
        .init(template: "/items", target: "/items?page=100&limit=100", status: 200),  // the last page
        .init(template: "/items", target: "/items?page=9007199254740992&limit=1", status: 200),  // past the end
        .init(template: "/items", target: "/items?page=0", status: 400),
        .init(template: "/items", target: "/items?limit=101", status: 400),
        .init(template: "/items", target: "/items?page=1&page=2", status: 400),
        .init(template: "/items", target: "/items?_=%zz", status: 400),
        .init(template: "/items/{id}", target: "/items/0", status: 200),
        .init(template: "/items/{id}", target: "/items/9999?x=%zz", status: 200),
        .init(template: "/items/{id}", target: "/items/10000", status: 404),
        .init(template: "/items/{id}", target: "/items/18446744073709551615", status: 404),
        .init(template: "/items/{id}", target: "/items/18446744073709551616", status: 400),
        .init(template: "/items/{id}", target: "/items/-1", status: 400),
        .init(template: "/items/{id}", target: "/items/%zz", status: 400),
        .init(template: "/items/{id}/detail", target: "/items/42/detail", status: 200),
        .init(template: "/items/{id}/detail", target: "/items/42/detail", status: 200),
        .init(template: "/items/{id}/detail", target: "/items/42/detail", headers: ["Pragma": "no-cache"], status: 200),
        .init(template: "/items/{id}/detail", target: "/items/4.2/detail", status: 400),
        .init(template: "/items/{id}/detail", target: "/items/10000/detail", status: 404),
        .init(template: "/items/{id}/detail", target: "/items/7/detail", failingStore: true, status: 503),
        .init(template: "/healthz", target: "/healthz", status: 200),
        .init(template: "/readyz", target: "/readyz?x=%zz", status: 200),
        .init(template: "/openapi.json", target: "/openapi.json", status: 200),
        .init(template: "/openapi.json", target: "/openapi.json?x=%zz", status: 200),
        .init(template: "/openapi.yaml", target: "/openapi.yaml", status: 200),
    ]

    /// Routes `request` on `router`, awaiting deferred work.
    static func answer(_ request: HTTPRequest, router: Router) async -> HTTPResponse {
        switch router.route(request) {
        case .response(let response): response
        case .deferred(let work): await work()
        }
    }

    /// A concrete target for `template`: path parameters from their `example`, plus query parameters with examples.
    func exampleTarget(_ template: String, operation: JSONValue) -> String {
        var path = template
        var query: [String] = []
        for parameter in (operation["parameters"]?.array ?? []).compactMap(spec.resolve) {
            guard let name = parameter["name"]?.string, let example = parameter["example"] else { continue }
            let text = example.string ?? SchemaChecker.describe(example)
            switch parameter["in"]?.string {
            case "path": path = path.replacing("{\(name)}", with: text)
            case "query": query.append("\(name)=\(text)")
            default: continue
            }
        }
        return query.isEmpty ? path : path + "?" + query.joined(separator: "&")
    }

    @Test(
        "every documented operation answers its example request with a documented 200",
        arguments: OpenAPISpec.embedded.paths)
    func documentedOperations(template: String) async throws {
        let operations = spec.operations(template)
        #expect(Set(operations.keys) == ["get", "head"])
        let router = RouterFixture.router()
        for (method, operation) in operations.sorted(by: { $0.key < $1.key }) {
            let target = exampleTarget(template, operation: operation)
            #expect(!target.contains("{"), "\(template): a path parameter has no example")
            let response = await Self.answer(
                HTTPRequest(method: HTTPMethod(method.uppercased()), target: target), router: router)
            #expect(response.status == 200, "\(method) \(target)")
            let documented = try #require(conformance.documented(operation, status: response.status))
            #expect(conformance.violations(of: response, against: documented) == [], "\(method) \(target)")
        }
    }

    @Test("HEAD is documented like GET and answered like GET", arguments: OpenAPISpec.embedded.paths)
    func headLikeGet(template: String) async throws {
        let operations = spec.operations(template)
        let get = try #require(operations["get"])
        let head = try #require(operations["head"])
        #expect(head["responses"] == get["responses"])
        #expect(head["parameters"] == get["parameters"])
        let target = exampleTarget(template, operation: get)
        let getResponse = await Self.answer(HTTPRequest(method: .get, target: target), router: RouterFixture.router())
        let headResponse = await Self.answer(HTTPRequest(method: .head, target: target), router: RouterFixture.router())
        #expect(headResponse.status == getResponse.status)
        #expect(headResponse.headers == getResponse.headers)
        #expect(headResponse.body == getResponse.body)  // the LibEvent layer leaves it off the wire
    }

    @Test("every status a route gives is documented, and the response conforms to it")
    func everyRouteStatus() async throws {
        let router = RouterFixture.router()
        let failing = RouterFixture.router(clock: ImmediateClock(failing: true))
        var seen: [String: Set<String>] = [:]
        for item in Self.cases {
            for method in ["get", "head"] {
                let operation = try #require(spec.operations(item.template)[method], "\(item.template) \(method)")
                let request = HTTPRequest(
                    method: HTTPMethod(method.uppercased()), target: item.target, headers: item.headers)
                let response = await Self.answer(request, router: item.failingStore ? failing : router)
                #expect(response.status == item.status, "\(method) \(item.target)")
                guard let documented = conformance.documented(operation, status: response.status) else {
                    Issue.record("\(method) \(item.target): status \(response.status) is not documented")
                    continue
                }
                #expect(conformance.violations(of: response, against: documented) == [], "\(method) \(item.target)")
                seen["\(method) \(item.template)", default: []].insert(String(response.status))
            }
        }
        // Conversely, every documented status but the connection layer's is reached by some case above.
        for template in spec.paths {
            for (method, operation) in spec.operations(template) {
                let routeStatuses = (operation["responses"]?.object ?? [:]).filter { _, response in
                    let reference = response["$ref"]?.string ?? ""
                    return !Self.connectionLayerResponses.contains { reference == "#/components/responses/\($0)" }
                }
                let expected = Set(routeStatuses.keys).subtracting(Self.connectionLayerOnly[template] ?? [])
                #expect(expected == seen["\(method) \(template)"] ?? [], "\(method) \(template)")
            }
        }
    }

    @Test(
        "methods a path does not document get 405 with Allow listing exactly the documented ones",
        arguments: OpenAPISpec.embedded.paths)
    func undocumentedMethods(template: String) async throws {
        let operations = spec.operations(template)
        let methodNotAllowed = try #require(spec.componentResponse("MethodNotAllowed"))
        let target = exampleTarget(template, operation: try #require(operations["get"]))
        let documentedMethods = Set(operations.keys.map { $0.uppercased() })
        let router = RouterFixture.router()
        for method in [HTTPMethod.post, .put, .delete, .options, .patch, .trace, .connect]
        where !documentedMethods.contains(method.name) {
            let response = await Self.answer(HTTPRequest(method: method, target: target), router: router)
            #expect(response.status == 405, "\(method.name) \(target)")
            let allow = Set(
                (response.headers["Allow"] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
            #expect(allow == documentedMethods, "\(method.name) \(target)")
            #expect(conformance.violations(of: response, against: methodNotAllowed) == [], "\(method.name) \(target)")
        }
    }

    @Test(
        "paths the spec does not have are 404 NotFound, whatever the method",
        arguments: [
            "/", "/items/", "/items/42/", "/items/42/detail/x", "/openapi", "/openapi.yml", "/OPENAPI.JSON",
            "/openapi.json/",
        ])
    func undocumentedPaths(target: String) async throws {
        let notFound = try #require(spec.componentResponse("NotFound"))
        #expect(!spec.paths.contains(target))
        for method in [HTTPMethod.get, .head, .post] {
            let response = await Self.answer(
                HTTPRequest(method: method, target: target), router: RouterFixture.router())
            #expect(response.status == 404, "\(method.name) \(target)")
            #expect(conformance.violations(of: response, against: notFound) == [], "\(method.name) \(target)")
        }
    }

    @Test("every kind of problem has a documented response its body conforms to", arguments: Problem.Kind.allCases)
    func problemKinds(kind: Problem.Kind) throws {
        let problem = Problem(kind, detail: "a detail \"quoted\"", parameter: kind == .invalidParameter ? "limit" : nil)
        let body = try JSONValue(parsing: problem.response().body)
        let responses = (spec.root["components"]?["responses"]?.object ?? [:]).compactMapValues(spec.resolve)
        let conforming = responses.filter { _, response in
            guard let schema = response["content"]?["application/problem+json"]?["schema"] else { return false }
            return conformance.checker.violations(of: body, against: schema).isEmpty
        }
        #expect(
            !conforming.isEmpty,
            "\(kind): no documented problem response accepts \(problem.response().body.count) bytes")
    }
}
