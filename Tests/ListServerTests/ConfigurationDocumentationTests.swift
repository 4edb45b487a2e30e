import Foundation
import Testing

@testable import ListServer

/// The README's configuration table agrees with ``SettingKey`` and ``Settings/defaults``: one row per key, in table
/// order, with its flag, variable and default.
@Suite("Configuration: the README's table")
struct ConfigurationDocumentationTests {
    typealias Support = ConfigurationTestSupport

    /// How the type column starts for each kind of value.
    static let typeNames: [SettingKey.ValueKind: String] = [
        .integer: "int", .double: "double", .string: "string", .boolean: "bool",
    ]

    /// The cells of every README table row that starts with a backquoted config key, in order.
    static func readmeRows() throws -> [[String]] {
        let readme = try String(contentsOfFile: Support.readmePath, encoding: .utf8)
        let section = try #require(readme.components(separatedBy: "\n## Configuration\n").dropFirst().first)
        let table = section.components(separatedBy: "\n## ").first ?? section
        return table.split(separator: "\n")
            .filter { $0.hasPrefix("| `") }
            .map { line in
                line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
                    .map { $0.trimmingCharacters(in: .whitespaces) }
            }
    }

    @Test func everyKeyHasOneRowInTableOrder() throws {
        let rows = try Self.readmeRows()
        #expect(rows.map(\.first) == SettingKey.allCases.map { "`\($0.name)`" })
    }

    @Test func eachRowNamesTheFlagTheVariableAndTheDefault() throws {
        let rows = try Self.readmeRows()
        for row in rows {
            try #require(row.count == 6, "\(row)")
            let name = row[0].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            let key = try #require(SettingKey(rawValue: name), "\(name)")
            #expect(row[1].hasPrefix("`\(key.flag)`"), "\(name)")
            #expect(row[2] == "`\(key.environmentVariable)`", "\(name)")
            #expect(row[3].hasPrefix(Self.typeNames[key.valueKind]!), "\(name): \(row[3])")
            #expect(row[4] == "`\(Support.jsonText(of: key, in: .defaults))`", "\(name)")
        }
    }
}
