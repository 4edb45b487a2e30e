import Foundation
import Testing

@testable import ListServer

/// The embedded OpenAPI document, parsed, with `$ref` resolution for local references (`#/components/...`).
struct OpenAPISpec: Sendable {
    /// The whole document.
    let root: JSONValue

    /// The document the server serves (``OpenAPIDocument/json``).
    static let embedded: OpenAPISpec = {
        do {
            return OpenAPISpec(root: try JSONValue(parsing: Array(OpenAPIDocument.json.utf8)))
        } catch {
            fatalError("OpenAPIDocument.json does not parse: \(error)")
        }
    }()

    /// The methods an OpenAPI path item may hold operations for.
    static let operationMethods = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]

    /// `value` with `$ref`s followed until it is not a reference (nil for a dangling one).
    func resolve(_ value: JSONValue) -> JSONValue? {
        var current = value
        var hops = 0
        while let reference = current["$ref"]?.string {
            guard reference.hasPrefix("#/"), hops < 16 else { return nil }
            var target: JSONValue? = root
            for token in reference.dropFirst(2).split(separator: "/", omittingEmptySubsequences: false) {
                let name = String(token).replacing("~1", with: "/").replacing("~0", with: "~")
                target = target?[name]
            }
            guard let target else { return nil }
            current = target
            hops += 1
        }
        return current
    }

    /// The path templates, sorted.
    var paths: [String] { (root["paths"]?.object ?? [:]).keys.sorted() }

    /// The operations of `path`, by lower-case method.
    func operations(_ path: String) -> [String: JSONValue] {
        let item = root["paths"]?[path]?.object ?? [:]
        return item.filter { Self.operationMethods.contains($0.key) }
    }

    /// A response under `components/responses`, resolved.
    func componentResponse(_ name: String) -> JSONValue? {
        root["components"]?["responses"]?[name].flatMap(resolve)
    }
}

/// Checks JSON values against the subset of JSON Schema 2020-12 the spec uses; any other keyword is an error, so
/// the spec cannot quietly use a constraint this checker would ignore.
struct SchemaChecker {
    let spec: OpenAPISpec

    /// Keywords checked.
    static let assertions: Set<String> = [
        "$ref", "type", "const", "enum", "allOf", "oneOf", "properties", "required", "additionalProperties", "items",
        "minItems", "maxItems", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength",
        "maxLength", "pattern",
    ]
    /// Keywords that only annotate (JSON Schema treats `format` as an annotation by default).
    static let annotations: Set<String> = ["description", "title", "examples", "default", "format"]

    /// Every violation of `schema` by `value`, each prefixed with a JSON path; empty when it conforms.
    func violations(of value: JSONValue, against schema: JSONValue, at path: String = "$") -> [String] {
        guard let schema = schema.object else {
            return ["\(path): schema is not an object"]
        }
        var found: [String] = []
        for keyword in schema.keys.sorted()
        where !Self.assertions.contains(keyword) && !Self.annotations.contains(keyword) {
            found.append("\(path): unsupported keyword \"\(keyword)\"")
        }
        if let reference = schema["$ref"] {
            if let target = spec.resolve(.object(["$ref": reference])) {
                found += violations(of: value, against: target, at: path)
            } else {
                found.append("\(path): dangling $ref \(reference)")
            }
        }
        for part in schema["allOf"]?.array ?? [] {
            found += violations(of: value, against: part, at: path)
        }
        if let parts = schema["oneOf"]?.array {
            found += oneOfViolations(value, parts, path)
        }
        if let types = schema["type"] {
            let allowed = types.array?.compactMap(\.string) ?? [types.string].compactMap { $0 }
            if !allowed.contains(where: { Self.value(value, hasType: $0) }) {
                found.append("\(path): \(Self.describe(value)) is not of type \(allowed.joined(separator: " or "))")
            }
        }
        if let constant = schema["const"], value != constant {
            found.append("\(path): \(Self.describe(value)) is not \(Self.describe(constant))")
        }
        if let options = schema["enum"]?.array, !options.contains(value) {
            found.append("\(path): \(Self.describe(value)) is not one of \(options.map(Self.describe))")
        }
        switch value {
        case .number(let text): found += numberViolations(Double(text) ?? .nan, schema, path)
        case .string(let text): found += stringViolations(text, schema, path)
        case .array(let elements): found += arrayViolations(elements, schema, path)
        case .object(let members): found += objectViolations(members, schema, path)
        case .null, .bool: break
        }
        return found
    }

    /// `oneOf`: exactly one of `parts` must accept the value; when none does, what each one objects to.
    private func oneOfViolations(_ value: JSONValue, _ parts: [JSONValue], _ path: String) -> [String] {
        let objections = parts.map { violations(of: value, against: $0, at: path) }
        let accepting = objections.filter(\.isEmpty).count
        if accepting == 1 { return [] }
        if accepting > 1 { return ["\(path): \(Self.describe(value)) matches \(accepting) oneOf subschemas, not 1"] }
        return ["\(path): \(Self.describe(value)) matches no oneOf subschema"]
            + objections.enumerated().flatMap { index, found in found.map { "oneOf[\(index)] \($0)" } }
    }

    private func numberViolations(_ number: Double, _ schema: [String: JSONValue], _ path: String) -> [String] {
        var found: [String] = []
        if let bound = schema["minimum"]?.number, number < bound { found.append("\(path): \(number) < \(bound)") }
        if let bound = schema["maximum"]?.number, number > bound { found.append("\(path): \(number) > \(bound)") }
        if let bound = schema["exclusiveMinimum"]?.number, number <= bound {
            found.append("\(path): \(number) <= \(bound)")
        }
        if let bound = schema["exclusiveMaximum"]?.number, number >= bound {
            found.append("\(path): \(number) >= \(bound)")
        }
        return found
    }

    private func stringViolations(_ text: String, _ schema: [String: JSONValue], _ path: String) -> [String] {
        var found: [String] = []
        let length = Double(text.unicodeScalars.count)
        if let bound = schema["minLength"]?.number, length < bound {
            found.append("\(path): \(Self.describe(.string(text))) is shorter than \(Int(bound))")
        }
        if let bound = schema["maxLength"]?.number, length > bound {
            found.append("\(path): \(Self.describe(.string(text))) is longer than \(Int(bound))")
        }
        if let pattern = schema["pattern"]?.string {
            // JSON Schema patterns are unanchored searches (ECMA 262); the spec's are all anchored with ^ and $.
            if let regex = try? NSRegularExpression(pattern: pattern) {
                let range = NSRange(text.startIndex..., in: text)
                if regex.firstMatch(in: text, range: range) == nil {
                    found.append("\(path): \(Self.describe(.string(text))) does not match \(pattern)")
                }
            } else {
                found.append("\(path): pattern \(pattern) does not compile")
            }
        }
        return found
    }

    private func arrayViolations(_ elements: [JSONValue], _ schema: [String: JSONValue], _ path: String) -> [String] {
        var found: [String] = []
        let count = Double(elements.count)
        if let bound = schema["minItems"]?.number, count < bound { found.append("\(path): fewer than \(bound) items") }
        if let bound = schema["maxItems"]?.number, count > bound { found.append("\(path): more than \(bound) items") }
        if let itemSchema = schema["items"] {
            for (index, element) in elements.enumerated() {
                found += violations(of: element, against: itemSchema, at: "\(path)[\(index)]")
            }
        }
        return found
    }

    private func objectViolations(
        _ members: [String: JSONValue], _ schema: [String: JSONValue], _ path: String
    ) -> [String] {
        var found: [String] = []
        for name in schema["required"]?.array?.compactMap(\.string) ?? [] where members[name] == nil {
            found.append("\(path): required member \"\(name)\" is missing")
        }
        let properties = schema["properties"]?.object ?? [:]
        for (name, member) in members.sorted(by: { $0.key < $1.key }) {
            if let memberSchema = properties[name] {
                found += violations(of: member, against: memberSchema, at: "\(path).\(name)")
            } else if let additional = schema["additionalProperties"] {
                if additional == .bool(false) {
                    found.append("\(path): member \"\(name)\" is not allowed")
                } else if additional != .bool(true) {
                    found += violations(of: member, against: additional, at: "\(path).\(name)")
                }
            }
        }
        return found
    }

    /// Whether `value` is an instance of the JSON Schema type `type`.
    static func value(_ value: JSONValue, hasType type: String) -> Bool {
        switch (type, value) {
        case ("null", .null), ("boolean", .bool), ("number", .number), ("string", .string), ("array", .array),
            ("object", .object):
            true
        case ("integer", .number(let text)): Double(text).map { $0.rounded(.towardZero) == $0 } ?? false
        default: false
        }
    }

    /// A short rendering of `value` for messages.
    static func describe(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool(let flag): String(flag)
        case .number(let text): text
        case .string(let text): "\"\(text.prefix(60))\""
        case .array(let elements): "an array of \(elements.count)"
        case .object: "an object"
        }
    }

    /// A header value as its schema reads it: an integer schema reads a plain decimal string as a number.
    static func headerValue(_ text: String, schema: JSONValue, spec: OpenAPISpec) -> JSONValue {
        let resolved = spec.resolve(schema)
        if resolved?["type"]?.string == "integer", let number = UInt64(plainDecimal: text) {
            return .number(String(number))
        }
        return .string(text)
    }
}

@Suite("OpenAPI: the schema checker")
struct OpenAPISchemaTests {
    let spec = OpenAPISpec.embedded
    var checker: SchemaChecker { SchemaChecker(spec: spec) }

    /// The component schema `name` as a `$ref`.
    func schema(_ name: String) -> JSONValue {
        .object(["$ref": .string("#/components/schemas/\(name)")])
    }

    /// Every schema object reachable in the document: those under components/schemas, and every `schema` of a
    /// parameter, header or media type, with their subschemas.
    func allSchemas() -> [(String, JSONValue)] {
        var found: [(String, JSONValue)] = []
        func walkSchema(_ schema: JSONValue, _ path: String) {
            found.append((path, schema))
            for (name, member) in schema["properties"]?.object ?? [:] {
                walkSchema(member, "\(path)/properties/\(name)")
            }
            for keyword in ["allOf", "oneOf"] {
                for (index, part) in (schema[keyword]?.array ?? []).enumerated() {
                    walkSchema(part, "\(path)/\(keyword)/\(index)")
                }
            }
            if let items = schema["items"] { walkSchema(items, "\(path)/items") }
            if let additional = schema["additionalProperties"], additional.object != nil {
                walkSchema(additional, "\(path)/additionalProperties")
            }
        }
        func walk(_ value: JSONValue, _ path: String) {
            switch value {
            case .object(let members):
                for (key, member) in members {
                    if key == "schema" { walkSchema(member, "\(path)/schema") } else { walk(member, "\(path)/\(key)") }
                }
            case .array(let elements):
                for (index, element) in elements.enumerated() { walk(element, "\(path)/\(index)") }
            default: break
            }
        }
        for (name, schema) in spec.root["components"]?["schemas"]?.object ?? [:] {
            walkSchema(schema, "#/components/schemas/\(name)")
        }
        walk(spec.root["paths"] ?? .null, "#/paths")
        walk(spec.root["components"]?["responses"] ?? .null, "#/components/responses")
        walk(spec.root["components"]?["parameters"] ?? .null, "#/components/parameters")
        walk(spec.root["components"]?["headers"] ?? .null, "#/components/headers")
        return found
    }

    @Test("the spec uses only keywords the checker understands, and every $ref resolves")
    func keywordsAreSupported() {
        let schemas = allSchemas()
        #expect(schemas.count > 50)
        for (path, schema) in schemas {
            let keys = Set((schema.object ?? [:]).keys)
            let unknown = keys.subtracting(SchemaChecker.assertions).subtracting(SchemaChecker.annotations)
            #expect(unknown.isEmpty, "\(path) uses \(unknown.sorted())")
            if schema["$ref"] != nil {
                #expect(spec.resolve(schema) != nil, "\(path): dangling $ref")
            }
            if let pattern = schema["pattern"]?.string {
                #expect((try? NSRegularExpression(pattern: pattern)) != nil, "\(path): bad pattern \(pattern)")
            }
        }
    }

    @Test("a real item conforms; a wrong type, a missing member, an extra member and a range violation do not")
    func itemSchema() throws {
        let good = try JSONValue(parsing: Array(RouterFixture.router().respond("/items/42").body))
        #expect(checker.violations(of: good, against: schema("Item")) == [])

        guard case .object(var members) = good else { throw CheckerTestError.notAnObject }
        var wrongType = members
        wrongType["width"] = .string("1600")
        var fraction = members
        fraction["likes"] = .number("1.5")
        var outOfRange = members
        outOfRange["likes"] = .number("1000000001")  // written likes go up to 10^9
        var badColor = members
        badColor["color"] = .string("#ABCDEF")
        var badHash = members
        badHash["blur_hash"] = .string("LV62_KkpVtkpuhkCaykCkWj")  // 23 characters, not 28
        members["extra"] = .null
        let extra = members
        members["extra"] = nil
        members["label"] = nil
        let missing = members
        for bad in [wrongType, fraction, outOfRange, badColor, badHash, extra, missing] {
            #expect(checker.violations(of: .object(bad), against: schema("Item")).count == 1)
        }
    }

    @Test("nullable next_page, allOf with const, and enum are enforced")
    func pageAndProblemSchemas() throws {
        let page = try JSONValue(parsing: Array(RouterFixture.router().respond("/items?page=500").body))
        #expect(page["next_page"] == .null)
        #expect(checker.violations(of: page, against: schema("ItemsPage")) == [])

        let notFound = try #require(spec.componentResponse("NotFound"))
        let notFoundSchema = try #require(notFound["content"]?["application/problem+json"]?["schema"])
        let body = try JSONValue(parsing: Array(RouterFixture.router().respond("/nope").body))
        #expect(checker.violations(of: body, against: notFoundSchema) == [])
        let badRequest = try JSONValue(parsing: Array(RouterFixture.router().respond("/items/x").body))
        #expect(checker.violations(of: badRequest, against: notFoundSchema).count == 2)  // type and status

        let hit = JSONValue.string("HIT")
        let xCache = try #require(spec.root["components"]?["headers"]?["X-Cache"]?["schema"])
        #expect(checker.violations(of: hit, against: xCache) == [])
        #expect(checker.violations(of: .string("hit"), against: xCache).count == 1)
    }

    @Test("oneOf: a page and a cursor page each match exactly one branch; both or neither is a violation")
    func oneOf() throws {
        let pageOrCursor = JSONValue.object(["oneOf": .array([schema("ItemsPage"), schema("CursorPage")])])
        for target in ["/items?page=2&limit=3", "/items?after=5&limit=3", "/items?order=desc"] {
            let body = try JSONValue(parsing: Array(RouterFixture.router().respond(target).body))
            #expect(checker.violations(of: body, against: pageOrCursor) == [], "\(target)")
        }
        let item = try JSONValue(parsing: Array(RouterFixture.router().respond("/items/42").body))
        let neither = checker.violations(of: item, against: pageOrCursor)
        #expect(neither.first == "$: an object matches no oneOf subschema")
        #expect(neither.contains { $0.hasPrefix("oneOf[1] $: required member \"has_more\"") })

        let numberOrInteger = JSONValue.object([
            "oneOf": .array([.object(["type": .string("number")]), .object(["type": .string("integer")])])
        ])
        #expect(checker.violations(of: .number("1.5"), against: numberOrInteger) == [])
        #expect(
            checker.violations(of: .number("2"), against: numberOrInteger) == ["$: 2 matches 2 oneOf subschemas, not 1"]
        )
    }

    @Test("an unsupported keyword is reported rather than ignored")
    func unsupportedKeyword() {
        let schema = JSONValue.object(["type": .string("string"), "contentEncoding": .string("base64")])
        #expect(checker.violations(of: .string("x"), against: schema) == ["$: unsupported keyword \"contentEncoding\""])
    }
}

private enum CheckerTestError: Error {
    case notAnObject
}
