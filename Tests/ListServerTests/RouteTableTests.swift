import ListDomain
import Testing

@testable import ListServer

/// The route table (``Route``) against `openapi.yaml`, both ways, and against the router: every fact a route has
/// in the table is what the spec says of its path and what the router does.
@Suite("Routes: one table, the same as openapi.yaml and the router")
struct RouteTableTests {
    let spec = OpenAPISpec.embedded

    @Test("the table's templates are exactly the spec's paths, each once")
    func templatesArePaths() {
        let templates = Route.table.map(\.template)
        #expect(Set(templates).count == templates.count, "a template twice")
        #expect(Set(templates) == Set(spec.paths), "in the table only: \(Set(templates).subtracting(spec.paths))")
        #expect(Set(spec.paths).isSubset(of: templates), "in the spec only: \(Set(spec.paths).subtracting(templates))")
    }

    @Test("a route's methods and OPTIONS are the operations its path documents", arguments: Route.allCases)
    func methodsAreOperations(route: Route) {
        let documented = Set(spec.operations(route.facts.template).keys.map { $0.uppercased() })
        #expect(documented == Set(route.facts.methods.map(\.name) + ["OPTIONS"]), "\(route.facts.template)")
        #expect(route.facts.allow.hasSuffix("OPTIONS"))
    }

    @Test(
        "the flags are what the spec says: ?dataset=, a stream, admin security, faults, the picsum gate",
        arguments: Route.allCases)
    func flagsAreTheSpecs(route: Route) {
        let facts = route.facts
        let get = spec.operations(facts.template)["get"]
        let parameters = (get?["parameters"]?.array ?? []).compactMap { $0["$ref"]?.string }
        #expect(parameters.contains("#/components/parameters/DatasetQuery") == facts.datasetQuery, "\(facts.template)")
        let ok = get?["responses"]?["200"].flatMap(spec.resolve)
        let streams = ok?["content"]?.object?.keys.contains { $0.hasPrefix("text/event-stream") } == true
        #expect(streams == facts.stream, "\(facts.template)")
        let operations = spec.operations(facts.template).values
        let secured = operations.contains { $0["security"] != nil }
        #expect(secured == facts.admin, "\(facts.template)")
        // Faults are injected into the data endpoints, the operations that document `fail`.
        let takesFail = operations.contains { operation in
            (operation["parameters"]?.array ?? []).contains { $0["$ref"]?.string == "#/components/parameters/Fail" }
        }
        #expect(takesFail == facts.data, "\(facts.template)")
        let picsum = operations.contains { $0["tags"]?.array?.contains(.string("picsum")) == true }
        #expect(picsum == (facts.gate == .picsum), "\(facts.template)")
        #expect((facts.gate == .metrics) == (facts.template == "/metrics"))
    }

    @Test(
        "OPTIONS and a method a route does not answer get its Allow; its methods are answered",
        arguments: Route.allCases)
    func routerFollowsTheTable(route: Route) async {
        let router = RouterFixture.router()
        let target = Self.example(route.facts.template)
        #expect(router.match(HTTPRequest(method: .get, target: target)).label == route.label, "\(target)")
        let options = router.respond(target, method: .options)
        #expect(options.status == 204 && options.headers["Allow"] == route.facts.allow, "\(target)")
        for method in [HTTPMethod.get, .head, .post, .put, .patch, .delete] {
            let answer = await router.answer(HTTPRequest(method: method, target: target))
            if route.facts.methods.contains(method) {
                #expect(answer.status != 405, "\(method.name) \(target)")
            } else {
                #expect(
                    answer.status == 405 && answer.headers["Allow"] == route.facts.allow, "\(method.name) \(target)")
            }
        }
    }

    @Test("the README's route list is the table: each route once, in order, with its methods and flags")
    func readmeList() throws {
        let readme = try String(contentsOfFile: ConfigurationTestSupport.readmePath, encoding: .utf8)
        let section = try #require(readme.components(separatedBy: "\n### Routes\n").dropFirst().first)
        let rows = (section.components(separatedBy: "\n#").first ?? section).split(separator: "\n")
            .filter { $0.hasPrefix("| `/") }
            .map { line in
                line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
                    .map { $0.trimmingCharacters(in: .whitespaces) }
            }
        #expect(rows.map { $0[0] } == Route.table.map { "`\($0.template)`" })
        for (row, facts) in zip(rows, Route.table) {
            let flag: (Bool) -> String = { $0 ? "yes" : "" }
            #expect(
                Array(row[1...4]) == [
                    facts.methods.map(\.name).joined(separator: ", "), flag(facts.datasetQuery), flag(facts.stream),
                    flag(facts.admin),
                ], "\(facts.template)")
        }
    }

    @Test("each route's flags, read on every request, say what its facts say", arguments: Route.allCases)
    func flagsFollowFacts(route: Route) {
        let (facts, flags) = (route.facts, route.flags)
        let methods: [HTTPMethod] = [
            .get, .head, .post, .put, .patch, .delete, .options, .trace, .connect, .other("X"),
        ]
        for method in methods where method != .options {
            #expect(flags.answers(method) == facts.methods.contains(method), "\(method.name)")
        }
        #expect(
            [flags.admin, flags.data, flags.catchesUp, flags.datasetQuery, flags.decodesQuery]
                == [facts.admin, facts.data, facts.catchesUp, facts.datasetQuery, facts.decodesQuery])
        #expect(flags.gate == facts.gate)
    }

    @Test("a preflight allows every method some route answers, and no other")
    func preflightMethods() {
        let used = Set(Route.table.flatMap(\.methods).map(\.name) + ["OPTIONS"])
        #expect(Set(CORSPolicy.allowedMethods.split(separator: ", ").map(String.init)) == used)
    }

    /// A target at `template`: each `{parameter}` filled with a value its route accepts.
    static func example(_ template: String) -> String {
        let values = [
            "{id}": "3", "{format}": "png", "{seed}": "s", "{size}": "20", "{width}": "20", "{height}": "30",
            "{file}": "app.js", "{name}": "run-1",
        ]
        return values.reduce(template) { $0.replacing($1.key, with: $1.value) }
    }
}
