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

/// The router a conformance case runs on.
enum ConformanceRouter: Sendable {
    /// The defaults: an instant store, CORS `*`, no admin token.
    case plain
    /// `admin.token` configured (`Self.adminToken`), so a reset without it is 401.
    case adminToken
}

/// One request and the status it must get; its response must conform to the spec.
struct ConformanceCase: Sendable, CustomTestStringConvertible {
    /// The path template in the spec, e.g. `/items/{id}`.
    let template: String
    let target: String
    /// The lower-case methods to send it with, each documented on the template.
    var methods = ["get", "head"]
    var headers: HTTPHeaders = [:]
    var body = ""
    var fromLoopback = true
    var router = ConformanceRouter.plain
    let status: Int

    var testDescription: String { "\(methods) \(target) \(headers.description) → \(status)" }
}

@Suite("OpenAPI: openapi.yaml matches the router")
struct OpenAPIConformanceTests {
    let spec = OpenAPISpec.embedded
    var conformance: ResponseConformance { ResponseConformance(spec: spec) }

    /// Responses only the connection layer gives (strict HTTP, shutdown); the router never does.
    static let connectionLayerResponses: Set<String> = [
        "RequestTimeout", "LengthRequired", "ContentTooLarge", "URITooLong", "HeaderFieldsTooLarge",
        "HTTPVersionNotSupported", "NotImplemented", "ShuttingDown",
    ]

    /// The token of the `.adminToken` router.
    static let adminToken = "conformance-token"

    /// Requests that reach the statuses the routes give on their own. Cases run in order on one router per kind:
    /// the first detail request is a miss (with `Server-Timing`), the next a hit; the resets come last.
    static let cases: [ConformanceCase] =
        [
            .init(template: "/items", target: "/items", status: 200),
            .init(template: "/items", target: "/items?page=2&limit=5&_=1700000000", status: 200),
            .init(template: "/items", target: "/items?page=100&limit=100", status: 200),  // the last page
            .init(template: "/items", target: "/items?page=9007199254740992&limit=1", status: 200),  // past the end
            .init(template: "/items", target: "/items?page=3&limit=4&order=desc", status: 200),
            .init(template: "/items", target: "/items?order=desc&limit=2", status: 200),  // cursor paging from the end
            .init(template: "/items", target: "/items?after=9990&limit=5", status: 200),  // has_more
            .init(template: "/items", target: "/items?after=9999", status: 200),  // nothing new: next_cursor 9999
            .init(template: "/items", target: "/items?before=3&order=asc", status: 200),
            .init(template: "/items", target: "/items", headers: ["If-None-Match": "*"], status: 304),
            .init(template: "/items", target: "/items?after=5", headers: ["If-None-Match": "W/\"x\", *"], status: 304),
            .init(template: "/items", target: "/items?page=0", status: 400),
            .init(template: "/items", target: "/items?limit=101", status: 400),
            .init(template: "/items", target: "/items?page=1&page=2", status: 400),
            .init(template: "/items", target: "/items?_=%zz", status: 400),
            .init(template: "/items", target: "/items?order=up", status: 400),
            .init(template: "/items", target: "/items?page=1&after=3", status: 400),
            .init(template: "/items", target: "/items?after=1&before=9", status: 400),
            .init(template: "/items/{id}", target: "/items/0", status: 200),
            .init(template: "/items/{id}", target: "/items/9999?x=%zz", status: 200),
            .init(template: "/items/{id}", target: "/items/7", headers: ["If-None-Match": "*"], status: 304),
            .init(template: "/items/{id}", target: "/items/10000", status: 404),
            .init(template: "/items/{id}", target: "/items/18446744073709551615", status: 404),
            .init(template: "/items/{id}", target: "/items/18446744073709551616", status: 400),
            .init(template: "/items/{id}", target: "/items/-1", status: 400),
            .init(template: "/items/{id}", target: "/items/%zz", status: 400),
            .init(template: "/items/{id}/detail", target: "/items/42/detail", status: 200),
            .init(template: "/items/{id}/detail", target: "/items/42/detail", status: 200),
            .init(
                template: "/items/{id}/detail", target: "/items/42/detail", headers: ["Pragma": "no-cache"], status: 200
            ),
            .init(
                template: "/items/{id}/detail", target: "/items/43/detail", headers: ["If-None-Match": "*"], status: 304
            ),
            .init(template: "/items/{id}/detail", target: "/items/4.2/detail", status: 400),
            .init(template: "/items/{id}/detail", target: "/items/10000/detail", status: 404),
            .init(template: "/healthz", target: "/healthz", status: 200),
            .init(template: "/readyz", target: "/readyz?x=%zz", status: 200),
            .init(template: "/openapi.json", target: "/openapi.json", status: 200),
            .init(template: "/openapi.json", target: "/openapi.json?x=%zz", status: 200),
            .init(template: "/openapi.yaml", target: "/openapi.yaml", status: 200),
        ] + optionsCases + resetCases

    /// OPTIONS on every path, plain and as a CORS preflight (whose answer has the preflight fields).
    static let optionsCases: [ConformanceCase] = [
        ("/items", "/items?page=0"), ("/items/{id}", "/items/abc"), ("/items/{id}/detail", "/items/42/detail"),
        ("/healthz", "/healthz"), ("/readyz", "/readyz"), ("/openapi.json", "/openapi.json"),
        ("/openapi.yaml", "/openapi.yaml"), ("/admin/reset", "/admin/reset"),
    ].flatMap { template, target in
        [
            ConformanceCase(template: template, target: target, methods: ["options"], status: 204),
            ConformanceCase(
                template: template, target: target, methods: ["options"],
                headers: [
                    "Origin": "http://localhost:3000", "Access-Control-Request-Method": "GET",
                    "Access-Control-Request-Headers": "x-client-id, if-none-match",
                ],
                status: 204),
        ]
    }

    /// `POST /admin/reset`: allowed, with a bad body, without the configured token, and from another host.
    static let resetCases: [ConformanceCase] = [
        .init(template: "/admin/reset", target: "/admin/reset", methods: ["post"], status: 200),
        .init(template: "/admin/reset", target: "/admin/reset", methods: ["post"], body: "{\"seed\": 7}", status: 200),
        .init(
            template: "/admin/reset", target: "/admin/reset", methods: ["post"], body: "{\"seed\": -1}", status: 400),
        .init(template: "/admin/reset", target: "/admin/reset", methods: ["post"], body: "reset", status: 400),
        .init(
            template: "/admin/reset", target: "/admin/reset", methods: ["post"], fromLoopback: false, status: 403),
        .init(template: "/admin/reset", target: "/admin/reset", methods: ["post"], router: .adminToken, status: 401),
        .init(
            template: "/admin/reset", target: "/admin/reset", methods: ["post"],
            headers: ["Authorization": "Bearer wrong"], router: .adminToken, status: 401),
        .init(
            template: "/admin/reset", target: "/admin/reset", methods: ["post"],
            headers: ["Authorization": "Bearer \(adminToken)"], fromLoopback: false, router: .adminToken,
            status: 200),
    ]

    /// Requests whose statuses come from the control parameters (`fail`, `delay_ms`): injected 500, 503 and 429,
    /// and the 400 of a malformed `delay_ms` on paths that otherwise ignore their query.
    ///
    /// Without them `everyDocumentedStatusIsReached` would miss 500, 429, the injected 503 and those 400s, which
    /// only the controls (`Router+Faults.swift`) produce.
    static let controlCases: [ConformanceCase] =
        ["/items", "/items/{id}", "/items/{id}/detail"].flatMap { template in
            let path = template.replacing("{id}", with: "5")
            return [
                ConformanceCase(template: template, target: path + "?fail=500", status: 500),
                ConformanceCase(template: template, target: path + "?fail=503", status: 503),
                ConformanceCase(template: template, target: path + "?fail=429", status: 429),
                ConformanceCase(template: template, target: path + "?fail=teapot", status: 400),
            ]
        }
        + [
            ("/healthz", "get"), ("/readyz", "get"), ("/openapi.json", "get"), ("/openapi.yaml", "get"),
            ("/items", "options"), ("/items/{id}", "options"), ("/items/{id}/detail", "options"),
            ("/healthz", "options"), ("/readyz", "options"), ("/openapi.json", "options"), ("/openapi.yaml", "options"),
            ("/admin/reset", "options"),
        ].map { template, method in
            ConformanceCase(
                template: template, target: template.replacing("{id}", with: "5") + "?delay_ms=soon",
                methods: method == "get" ? ["get", "head"] : [method], status: 400)
        }

    /// Routes `request` on `router`, awaiting deferred work.
    static func answer(_ request: HTTPRequest, router: Router) async -> HTTPResponse {
        switch router.route(request) {
        case .response(let response): response
        case .deferred(let work): await router.awaitHeld(work)
        case .stream(let stream): HTTPResponse(status: 200, headers: stream.headers)
        }
    }

    /// One router of each kind, shared by the cases that run in one test.
    struct Routers {
        let plain = RouterFixture.router()
        let adminToken: Router = {
            var service = ServiceOptions()
            do {
                service.adminToken = try AdminToken(parsing: OpenAPIConformanceTests.adminToken)
            } catch {
                Issue.record("the test token does not parse: \(error)")
            }
            return RouterFixture.router(service: service)
        }()

        subscript(kind: ConformanceRouter) -> Router {
            switch kind {
            case .plain: plain
            case .adminToken: adminToken
            }
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

    /// The request body of `operation`'s example (its JSON request body's `example`, as compact JSON), or none.
    static func exampleBody(_ operation: JSONValue) -> [UInt8] {
        guard let example = operation["requestBody"]?["content"]?["application/json"]?["example"] else { return [] }
        return Array(compactJSON(example).utf8)
    }

    /// `value` as JSON text (objects with sorted keys; the spec's examples hold integers only).
    static func compactJSON(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool(let flag): String(flag)
        case .number: SchemaChecker.describe(value)
        case .string(let text): "\"\(text)\""
        case .array(let elements): "[" + elements.map(compactJSON).joined(separator: ",") + "]"
        case .object(let members):
            "{"
                + members.sorted { $0.key < $1.key }.map { "\"\($0.key)\":\(compactJSON($0.value))" }
                .joined(separator: ",") + "}"
        }
    }

    /// Sends `item` with each of its methods; returns, per method, the status it got and every way the answer
    /// departs from the case or the spec (empty when it has the case's status and conforms to its documentation).
    func outcomes(of item: ConformanceCase, on routers: Routers) async -> [(
        method: String, status: Int, problems: [String]
    )] {
        var found: [(method: String, status: Int, problems: [String])] = []
        for method in item.methods {
            guard let operation = spec.operations(item.template)[method] else {
                found.append((method, 0, ["\(method) \(item.template) is not documented"]))
                continue
            }
            let request = HTTPRequest(
                method: HTTPMethod(method.uppercased()), target: item.target, headers: item.headers,
                body: Array(item.body.utf8), fromLoopback: item.fromLoopback)
            let response = await Self.answer(request, router: routers[item.router])
            var problems: [String] = []
            if response.status != item.status { problems.append("status \(response.status), not \(item.status)") }
            if let documented = conformance.documented(operation, status: response.status) {
                problems += conformance.violations(of: response, against: documented)
            } else {
                problems.append("status \(response.status) is not documented")
            }
            found.append((method, response.status, problems))
        }
        return found
    }

    /// The statuses documented for an operation that a route gives (all but the connection layer's).
    func routeStatuses(_ operation: JSONValue) -> Set<String> {
        let responses = (operation["responses"]?.object ?? [:]).filter { _, response in
            let reference = response["$ref"]?.string ?? ""
            return !Self.connectionLayerResponses.contains { reference == "#/components/responses/\($0)" }
        }
        return Set(responses.keys)
    }

    @Test(
        "every documented operation answers its example request with a documented success",
        arguments: OpenAPISpec.embedded.paths)
    func documentedOperations(template: String) async throws {
        let operations = spec.operations(template)
        #expect(!operations.isEmpty)
        #expect(operations["options"] != nil, "\(template): OPTIONS is answered on every path")
        for (method, operation) in operations.sorted(by: { $0.key < $1.key }) {
            let target = exampleTarget(template, operation: operation)
            #expect(!target.contains("{"), "\(template): a path parameter has no example")
            let success = try #require(
                routeStatuses(operation).compactMap(Int.init).filter { (200..<300).contains($0) }.min(),
                "\(method) \(template) documents no success")
            let request = HTTPRequest(
                method: HTTPMethod(method.uppercased()), target: target, body: Self.exampleBody(operation))
            let response = await Self.answer(request, router: RouterFixture.router())
            #expect(response.status == success, "\(method) \(target)")
            let documented = try #require(conformance.documented(operation, status: response.status))
            #expect(conformance.violations(of: response, against: documented) == [], "\(method) \(target)")
        }
    }

    @Test(
        "HEAD is documented like GET and answered like GET",
        arguments: OpenAPISpec.embedded.paths.filter {
            let operations = OpenAPISpec.embedded.operations($0)
            return operations["get"] != nil || operations["head"] != nil
        })
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
        let routers = Routers()
        for item in Self.cases {
            for outcome in await outcomes(of: item, on: routers) {
                #expect(outcome.problems == [], "\(outcome.method) \(item.target) \(item.headers)")
            }
        }
    }

    @Test("the control parameters give their documented statuses (fail, delay_ms)")
    func controlStatuses() async throws {
        // Fails until the router reads the control parameters: see `controlCases`.
        let routers = Routers()
        for item in Self.controlCases {
            for outcome in await outcomes(of: item, on: routers) {
                #expect(outcome.problems == [], "\(outcome.method) \(item.target)")
            }
        }
    }

    @Test("every documented status but the connection layer's is reached by some case")
    func everyDocumentedStatusIsReached() async throws {
        let routers = Routers()
        var reached: [String: Set<String>] = [:]
        for item in Self.cases + Self.controlCases {
            // A case counts when it got its status and conforms; the two tests above report those that do not.
            for outcome in await outcomes(of: item, on: routers) where outcome.problems.isEmpty {
                reached["\(outcome.method) \(item.template)", default: []].insert(String(outcome.status))
            }
        }
        for template in spec.paths {
            for (method, operation) in spec.operations(template) {
                let missing = routeStatuses(operation).subtracting(reached["\(method) \(template)"] ?? [])
                // Until the control parameters are wired (see `controlCases`): 500, 429, injected 503s, some 400s.
                #expect(missing.isEmpty, "\(method) \(template): no case reaches \(missing.sorted())")
            }
        }
    }

    @Test(
        "methods a path does not document get 405 with Allow listing exactly the documented ones",
        arguments: OpenAPISpec.embedded.paths)
    func undocumentedMethods(template: String) async throws {
        let operations = spec.operations(template)
        let methodNotAllowed = try #require(spec.componentResponse("MethodNotAllowed"))
        let anyOperation = try #require(operations.sorted { $0.key < $1.key }.first?.value)
        let target = exampleTarget(template, operation: anyOperation)
        let documentedMethods = Set(operations.keys.map { $0.uppercased() })
        let router = RouterFixture.router()
        let methods: [HTTPMethod] = [.get, .head, .post, .put, .delete, .options, .patch, .trace, .connect]
        for method in methods where !documentedMethods.contains(method.name) {
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
        for method in [HTTPMethod.get, .head, .post, .options] {
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
