// The generator behind the OpenAPIEmbedPlugin build-tool plugin: writes ListServer's `OpenAPIDocument` enum from
// openapi.yaml, at build time, so no generated Swift is committed and a build needs no Python.
//
//   OpenAPIEmbed <openapi.yaml> <OpenAPIDocument.swift>
//
// The JSON is what PyYAML's `safe_load` followed by `json.dumps(indent=2, ensure_ascii=False)` made before (the
// script this replaces): YAML 1.1 scalar resolution as PyYAML does it, keys in the YAML's order, aliases expanded.
import Foundation
import Yams

@main
struct OpenAPIEmbed {
    static func main() throws {
        let arguments = CommandLine.arguments.dropFirst()
        guard arguments.count == 2, let source = arguments.first, let target = arguments.last else {
            fail("usage: OpenAPIEmbed <openapi.yaml> <OpenAPIDocument.swift>")
        }
        let raw = try Data(contentsOf: URL(fileURLWithPath: source))
        guard let text = String(validating: raw, as: UTF8.self) else { fail("\(source): not UTF-8") }
        guard text.hasSuffix("\n"), !text.utf8.contains(UInt8(ascii: "\r")) else {
            fail("\(source): must use LF line endings and end with a newline")
        }
        let document: Node
        do {
            guard let root = try Yams.compose(yaml: text, pyYAMLResolver) else { fail("\(source): empty") }
            document = root
        } catch {
            fail("\(source): \(error)")
        }
        guard let openapi = document.mapping?["openapi"]?.scalar?.string, openapi.hasPrefix("3.1") else {
            fail("\(source): not an OpenAPI 3.1 document")
        }
        var json = JSONWriter()
        do {
            try json.write(document, depth: 0)
        } catch {
            fail("\(source): \(error)")
        }
        json.output += "\n"
        for (name, body) in [("YAML", text), ("JSON", json.output)] where body.contains("\"##") || body.contains("\\##") {
            fail("\(name) text contains a raw-string delimiter; use more # in the generator's delimiter")
        }
        let swift = swiftFile(yaml: text, json: json.output, hash: fnv1a64(raw))
        let targetURL = URL(fileURLWithPath: target)
        if (try? Data(contentsOf: targetURL)) != Data(swift.utf8) {
            try Data(swift.utf8).write(to: targetURL, options: .atomic)
        }
    }

    static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("OpenAPIEmbed: \(message)\n".utf8))
        exit(1)
    }

    /// FNV-1a, 64 bits.
    static func fnv1a64(_ bytes: Data) -> UInt64 {
        bytes.reduce(0xCBF2_9CE4_8422_2325) { hash, byte in (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
    }

    /// A multi-line raw string literal whose lines are indented like its closing delimiter (8 spaces); the empty last
    /// line makes the value end with the text's final newline, and blank lines stay empty.
    static func literal(_ body: String) -> String {
        let lines = body.split(separator: "\n", omittingEmptySubsequences: false)
        let indented = lines.map { $0.isEmpty ? "" : "        " + $0 }
        return "##\"\"\"\n" + indented.joined(separator: "\n") + "\n        \"\"\"##"
    }

    static func swiftFile(yaml: String, json: String, hash: UInt64) -> String {
        let hex = String(hash, radix: 16, uppercase: true)
        return """
            // Generated at build time by the OpenAPIEmbedPlugin build-tool plugin (Plugins/OpenAPIEmbedPlugin, running
            // Sources/OpenAPIEmbed) from openapi.yaml. Not committed: edit openapi.yaml and build.

            /// The OpenAPI 3.1 description of the API (`openapi.yaml` at the root of the repository), compiled into the server.
            ///
            /// The server reads no files at run time: it runs from any working directory and in a container, and a SwiftPM
            /// resource would need Foundation's `Bundle`. So a build-tool plugin copies the YAML here verbatim and converts
            /// it to JSON at build time (Yams), rather than the server carrying a YAML parser.
            /// `OpenAPIDocumentTests` fail when `openapi.yaml` and ``yaml`` differ, or when ``json`` was made from other YAML.
            enum OpenAPIDocument {
                /// `openapi.yaml`, byte for byte.
                static let yaml = \(literal(yaml))

                /// The same document as JSON (2-space indentation, keys in the YAML's order).
                static let json = \(literal(json))

                /// FNV-1a (64-bit) of the UTF-8 bytes of the YAML that ``json`` was converted from.
                static let yamlFNV1a64: UInt64 = 0x\(String(repeating: "0", count: 16 - hex.count) + hex)
            }

            """
    }
}

/// PyYAML's implicit resolvers (YAML 1.1), in its order; Yams' default differs (it takes `1e3` for a float, `0o17`
/// for an int), and the JSON must be what PyYAML made.
let pyYAMLResolver: Resolver = {
    do {
        return try Resolver.basic
            .appending(.bool, "^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$")
            .appending(
                .float,
                #"^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?"#
                    + #"|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"#)
            .appending(
                .int,
                #"^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+"#
                    + #"|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$"#)
            .appending(.merge, "^(?:<<)$")
            .appending(.null, "^(?:~|null|Null|NULL|)$")
            .appending(
                .timestamp,
                #"^(?:[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]|[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?"#
                    + #"(?:[Tt]|[ \t]+)[0-9][0-9]?:[0-9][0-9]:[0-9][0-9](?:\.[0-9]*)?"#
                    + #"(?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)$"#)
            .appending(.value, "^(?:=)$")
    } catch {
        OpenAPIEmbed.fail("resolver: \(error)")
    }
}()

struct UnsupportedYAML: Error, CustomStringConvertible {
    let description: String
}

/// Python's `json.dumps(value, indent=2, ensure_ascii=False)`, from a composed YAML node.
struct JSONWriter {
    var output = ""

    mutating func write(_ node: Node, depth: Int) throws {
        switch node {
        case .scalar:
            output += try Self.scalar(node)
        case .sequence(let sequence):
            guard !sequence.isEmpty else { return output += "[]" }
            output += "["
            for (index, element) in sequence.enumerated() {
                output += (index == 0 ? "\n" : ",\n") + Self.indent(depth + 1)
                try write(element, depth: depth + 1)
            }
            output += "\n" + Self.indent(depth) + "]"
        case .mapping(let mapping):
            guard !mapping.isEmpty else { return output += "{}" }
            output += "{"
            for (index, (key, value)) in mapping.enumerated() {
                guard key.tag.description != Tag.Name.merge.rawValue else { throw UnsupportedYAML(description: "merge keys (<<) are not supported") }
                output += (index == 0 ? "\n" : ",\n") + Self.indent(depth + 1) + Self.string(try Self.key(key)) + ": "
                try write(value, depth: depth + 1)
            }
            output += "\n" + Self.indent(depth) + "}"
        case .alias:
            throw UnsupportedYAML(description: "unexpanded alias")
        }
    }

    static func indent(_ depth: Int) -> String { String(repeating: "  ", count: depth) }

    /// A scalar as JSON, converted the way PyYAML's SafeConstructor and then `json` convert it.
    static func scalar(_ node: Node) throws -> String {
        guard let scalar = node.scalar else { throw UnsupportedYAML(description: "not a scalar") }
        switch Tag.Name(rawValue: node.tag.description) {
        case .str: return string(scalar.string)
        case .null: return "null"
        case .bool: return ["yes", "true", "on"].contains(scalar.string.lowercased()) ? "true" : "false"
        case .int: return try integer(scalar.string)
        case .float: return try float(scalar.string)
        default:
            throw UnsupportedYAML(description: "\(scalar.string) (\(node.tag.description)) has no JSON form")
        }
    }

    /// A mapping key as Python's `json` writes a non-string key.
    static func key(_ node: Node) throws -> String {
        guard node.scalar != nil else { throw UnsupportedYAML(description: "a collection as a mapping key") }
        if node.tag.description == Tag.Name.str.rawValue { return node.scalar!.string }
        return try scalar(node)
    }

    /// PyYAML's `construct_yaml_int`, printed as Python prints an int.
    static func integer(_ text: String) throws -> String {
        var digits = text.replacingOccurrences(of: "_", with: "")
        var negative = false
        if let sign = digits.first, sign == "-" || sign == "+" {
            negative = sign == "-"
            digits.removeFirst()
        }
        let magnitude: String
        if digits == "0" {
            return "0"
        } else if digits.hasPrefix("0b") || digits.hasPrefix("0x") || digits.hasPrefix("0") && !digits.contains(":") {
            let radix = digits.hasPrefix("0b") ? 2 : digits.hasPrefix("0x") ? 16 : 8
            let body = digits.dropFirst(radix == 8 ? 1 : 2)
            guard let value = UInt64(body, radix: radix) else {
                throw UnsupportedYAML(description: "integer \(text) out of range")
            }
            magnitude = String(value)
        } else if digits.contains(":") {
            var value: UInt64 = 0
            for part in digits.split(separator: ":") {
                let (times, overflow1) = value.multipliedReportingOverflow(by: 60)
                let (sum, overflow2) = times.addingReportingOverflow(UInt64(part)!)
                guard !overflow1, !overflow2 else { throw UnsupportedYAML(description: "integer \(text) out of range") }
                value = sum
            }
            magnitude = String(value)
        } else {
            magnitude = digits  // decimal, no leading zero: Python prints it as written, at any size
        }
        return negative && magnitude != "0" ? "-" + magnitude : magnitude
    }

    /// PyYAML's `construct_yaml_float`, printed as Python's `json` prints a float (`repr`, and `Infinity`/`NaN`).
    static func float(_ text: String) throws -> String {
        let lower = text.replacingOccurrences(of: "_", with: "").lowercased()
        if lower.hasSuffix(".inf") { return lower.hasPrefix("-") ? "-Infinity" : "Infinity" }
        if lower == ".nan" { return "NaN" }
        guard !lower.contains(":"), let value = Double(lower) else {
            throw UnsupportedYAML(description: "float \(text) is not supported")
        }
        // Swift's description is the shortest round-tripping digits, like Python's repr; both switch to exponent
        // form at 1e16 and below 1e-4 ("1e+16", "1e-05").
        return value.description
    }

    /// A JSON string as Python's `json` writes it with `ensure_ascii=False`.
    static func string(_ value: String) -> String {
        var out = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
