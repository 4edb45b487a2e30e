import Foundation
import Testing

@testable import ListServer

@Suite("OpenAPI: the document, its compiled-in copy, and the routes that serve it")
struct OpenAPIDocumentTests {
    /// `openapi.yaml` at the root of the package this file belongs to.
    static let fileURL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("openapi.yaml")

    /// FNV-1a, 64 bits, as `Sources/ListServer/Generated/openapi-embed.py` computes it.
    static func fnv1a64(_ bytes: some Sequence<UInt8>) -> UInt64 {
        bytes.reduce(0xCBF2_9CE4_8422_2325) { hash, byte in (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
    }

    @Test("the compiled-in YAML is openapi.yaml byte for byte (else run scripts/openapi-embed.sh)")
    func embeddedCopyIsCurrent() throws {
        let onDisk = String(decoding: try Data(contentsOf: Self.fileURL), as: UTF8.self)
        let embedded = OpenAPIDocument.yaml
        let diskLines = onDisk.split(separator: "\n", omittingEmptySubsequences: false)
        let embeddedLines = embedded.split(separator: "\n", omittingEmptySubsequences: false)
        let firstDifference =
            diskLines.indices.first { $0 >= embeddedLines.count || diskLines[$0] != embeddedLines[$0] }
            ?? diskLines.count
        let identical = onDisk.utf8.elementsEqual(embedded.utf8)
        #expect(
            identical,
            """
            openapi.yaml and Sources/ListServer/Generated/OpenAPIDocument.swift differ from line \
            \(firstDifference + 1) (\(onDisk.utf8.count) and \(embedded.utf8.count) bytes): run scripts/openapi-embed.sh
            """)
    }

    @Test("the compiled-in JSON was converted from exactly the compiled-in YAML")
    func jsonMatchesYAML() {
        #expect(Self.fnv1a64(OpenAPIDocument.yaml.utf8) == OpenAPIDocument.yamlFNV1a64)
        #expect(Self.fnv1a64("a".utf8) == 0xAF63_DC4C_8601_EC8C)  // the published FNV-1a 64 test vector
    }

    @Test("the JSON is an OpenAPI 3.1 document whose info and paths are those of the YAML text")
    func jsonDocument() throws {
        let spec = OpenAPISpec.embedded
        #expect(spec.root["openapi"] == .string("3.1.0"))
        let title = try #require(spec.root["info"]?["title"]?.string)
        #expect(OpenAPIDocument.yaml.contains("\n  title: \(title)\n"))
        for path in spec.paths {
            #expect(OpenAPIDocument.yaml.contains("\n  \(path):\n"), "\(path)")
        }
        #expect(spec.paths == Route.table.map(\.template).sorted())  // RouteTableTests: the rest of each route
    }

    @Test(
        "GET and HEAD serve each document with its media type, whatever the query",
        arguments: [
            ("/openapi.yaml", "application/yaml", OpenAPIDocument.yaml),
            ("/openapi.json?_=1", "application/json; charset=utf-8", OpenAPIDocument.json),
            ("http://localhost:8080/openapi.json", "application/json; charset=utf-8", OpenAPIDocument.json),
        ])
    func served(target: String, contentType: String, document: String) {
        let router = RouterFixture.router()
        for method in [HTTPMethod.get, .head] {
            let response = router.respond(target, method: method)
            #expect(response.status == 200)
            #expect(response.headers == ["Content-Type": contentType, "Cache-Control": "no-cache"])
            #expect(response.body == Array(document.utf8))
        }
    }

    @Test(
        "other methods on the documents are 405 with Allow: GET, HEAD, OPTIONS",
        arguments: ["/openapi.yaml", "/openapi.json"])
    func otherMethods(target: String) {
        let response = RouterFixture.router().respond(target, method: .post)
        #expect(response.status == 405)
        #expect(response.headers["Allow"] == "GET, HEAD, OPTIONS")
    }
}
