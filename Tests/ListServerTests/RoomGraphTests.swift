import Foundation
import Testing

/// The rooms of `Sources/ListServer` against the README's table of which room uses which ("How it is built").
///
/// A room "uses" another when a file of it names a type declared at the top level of a file of the other: the type
/// names are read from the sources (comments dropped, the generated files' text left out), which finds a new arrow
/// as soon as one is written, without a build. Calls of methods a room adds to another's type are not seen; the
/// table names those arrows by hand (`HTTP1/` renders problems through `JSON/`).
@Suite("Rooms: which room uses which")
struct RoomGraphTests {
    /// Every room's rows: the rooms it may use.
    static func readmeTable() throws -> [String: Set<String>] {
        let readme = try String(contentsOfFile: ConfigurationTestSupport.readmePath, encoding: .utf8)
        let section = try #require(readme.components(separatedBy: "**Which room uses which.**").dropFirst().first)
        var table: [String: Set<String>] = [:]
        for line in section.split(separator: "\n").prefix(while: { !$0.hasPrefix("**") }) where line.hasPrefix("| `") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count == 2 else { continue }
            let uses = Set(rooms(in: cells[1]))
            for room in rooms(in: cells[0]) { table[room] = uses }
        }
        return table
    }

    /// The room names in a cell: "`HTTP/`, `JSON/`" → ["HTTP", "JSON"].
    static func rooms(in cell: String) -> [String] {
        cell.split(separator: ",").compactMap { part in
            let name = part.trimmingCharacters(in: CharacterSet(charactersIn: " `/"))
            return name.isEmpty || name == "nothing" ? nil : name
        }
    }

    static var sourcesFolder: URL { URL(fileURLWithPath: ConfigurationTestSupport.packageFile("Sources/ListServer")) }

    /// The rooms on disk.
    static func roomsOnDisk() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: sourcesFolder.path).filter { name in
            var isFolder: ObjCBool = false
            return FileManager.default.fileExists(
                atPath: sourcesFolder.appendingPathComponent(name).path, isDirectory: &isFolder) && isFolder.boolValue
        }.sorted()
    }

    /// Each room's Swift files, comments dropped.
    static func sources() throws -> [String: [(file: String, text: String)]] {
        var sources: [String: [(file: String, text: String)]] = [:]
        for room in try roomsOnDisk() {
            let folder = sourcesFolder.appendingPathComponent(room)
            let files = try #require(FileManager.default.enumerator(atPath: folder.path))
            for case let file as String in files where file.hasSuffix(".swift") {
                let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
                sources[room, default: []].append((file, withoutComments(text)))
            }
        }
        return sources
    }

    /// `text` without its `//` comments (a `//` inside a string literal cuts the rest of its line: harmless here).
    static func withoutComments(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.range(of: "//").map { line[..<$0.lowerBound] } ?? line
        }.joined(separator: "\n")
    }

    static let declarationKeywords: Set<String> = ["struct", "class", "enum", "protocol", "actor", "typealias"]
    static let modifiers: Set<String> = [
        "public", "package", "internal", "fileprivate", "private", "final", "indirect", "nonisolated",
    ]

    /// The types a file declares: at the top level (a line that starts with the declaration), or nested (any).
    static func declarations(in text: String, topLevelOnly: Bool) -> Set<String> {
        var names: Set<String> = []
        for line in text.split(separator: "\n") {
            if topLevelOnly, line.first?.isWhitespace ?? true { continue }
            let words = line.split(whereSeparator: { $0 == " " || $0 == ":" || $0 == "<" || $0 == "{" })
            var index = 0
            while index < words.count, words[index].hasPrefix("@") || modifiers.contains(String(words[index])) {
                index += 1
            }
            if index + 1 < words.count, declarationKeywords.contains(String(words[index])) {
                names.insert(String(words[index + 1]))
            }
        }
        return names
    }

    /// The capitalized identifiers `text` names, except those right after a `.` (members, nested types).
    static func typeNames(in text: String) -> Set<String> {
        var names: Set<String> = []
        var current = ""
        var afterDot = false
        var previous: Character = " "
        for character in text + " " {
            if character.isLetter || character.isNumber || character == "_" {
                if current.isEmpty { afterDot = previous == "." }
                current.append(character)
            } else {
                if let first = current.first, first.isUppercase, !afterDot { names.insert(current) }
                current = ""
            }
            previous = character
        }
        return names
    }

    /// Which room each top-level type is declared in.
    static func owners(_ sources: [String: [(file: String, text: String)]]) -> [String: String] {
        var owners: [String: String] = [:]
        for (room, files) in sources {
            for file in files {
                for name in declarations(in: file.text, topLevelOnly: true) { owners[name] = room }
            }
        }
        return owners
    }

    @Test("the table names every room once and its arrows make no cycle")
    func tableIsAGraph() throws {
        let table = try Self.readmeTable()
        #expect(Set(table.keys) == Set(try Self.roomsOnDisk()))
        for (room, uses) in table {
            #expect(!uses.contains(room), "\(room) uses itself")
            #expect(uses.isSubset(of: Set(table.keys)), "\(room) names rooms that do not exist")
        }
        // Depth-first: a room reached again while it is still open closes a cycle.
        var state: [String: Bool] = [:]  // false: open, true: done
        func visit(_ room: String, _ path: [String]) {
            if state[room] == true { return }
            guard state[room] == nil else {
                Issue.record("a cycle: \((path + [room]).joined(separator: " -> "))")
                return
            }
            state[room] = false
            for next in (table[room] ?? []).sorted() { visit(next, path + [room]) }
            state[room] = true
        }
        for room in table.keys.sorted() { visit(room, []) }
    }

    @Test("no room uses a type declared in a room its row does not name")
    func sourcesFollowTheTable() throws {
        let table = try Self.readmeTable()
        let sources = try Self.sources()
        let owners = Self.owners(sources)
        #expect(owners["Router"] == "Routes" && owners["LoopServer"] == "LibEvent", "the scan finds declarations")
        for (room, files) in sources where room != "Generated" {  // generated text names types in its prose
            let own = files.reduce(into: Set<String>()) {
                $0.formUnion(Self.declarations(in: $1.text, topLevelOnly: false))
            }
            for file in files {
                for name in Self.typeNames(in: file.text) where !own.contains(name) {
                    guard let owner = owners[name], owner != room else { continue }
                    #expect(
                        table[room]?.contains(owner) == true,
                        "\(room)/\(file.file) uses \(name) of \(owner)/, which the README's table does not let it")
                }
            }
        }
    }

    @Test("the scan sees real arrows: the loop server uses the router, the observability, the settings; HTTP/ no JSON")
    func scanFindsKnownArrows() throws {
        let sources = try Self.sources()
        let owners = Self.owners(sources)
        let loopServer = try #require(sources["LibEvent"]?.first { $0.file == "LoopServer.swift" })
        let used = Set(Self.typeNames(in: loopServer.text).compactMap { owners[$0] })
        #expect(used.isSuperset(of: ["Routes", "Observability", "Configuration"]))
        let problem = try #require(sources["HTTP"]?.first { $0.file == "Problem.swift" })
        #expect(!Self.typeNames(in: problem.text).contains("JSONWriter"), "HTTP/ renders no JSON")
    }
}
