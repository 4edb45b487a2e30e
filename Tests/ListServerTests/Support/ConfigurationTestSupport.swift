import Foundation
import Testing

@testable import ListServer

/// Helpers shared by the configuration tests: loading from argument lists and environments, temporary JSON files.
enum ConfigurationTestSupport {
    /// What `http.threads = 0` resolves to in these tests.
    static let processorCount = 6

    /// The built-in defaults as loading resolves them.
    static var resolvedDefaults: Settings {
        var settings = Settings.defaults
        settings.threads = processorCount
        return settings
    }

    /// Loads settings from `arguments` and `environment`, as `Main` would.
    static func load(_ arguments: [String] = [], environment: [String: String] = [:]) async throws -> Settings {
        let options = try CommandLineOptions.parse(arguments)
        return try await Settings.load(options: options, environment: environment, activeProcessorCount: processorCount)
    }

    /// The error loading throws, or `nil` (and a failed expectation) when it succeeds.
    static func loadError(
        _ arguments: [String] = [],
        environment: [String: String] = [:],
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> ConfigurationError? {
        let options = try CommandLineOptions.parse(arguments)
        do {
            let settings = try await Settings.load(options: options, environment: environment)
            Issue.record("expected a ConfigurationError, loaded \(settings.summary)", sourceLocation: sourceLocation)
            return nil
        } catch {
            return error
        }
    }

    /// The command-line arguments that set `key` to `value`: `--port=9001`, or for a Boolean `--metrics` (true) or
    /// `--no-metrics` (false).
    static func flagArguments(_ key: SettingKey, _ value: String) -> [String] {
        guard key.valueKind == .boolean else { return ["\(key.flag)=\(value)"] }
        return [value == "true" ? key.flag : "--no-\(key.flagName)"]
    }

    /// A JSON file body holding only `key`, with `json` (JSON text) as its value, nested as the shipped file is.
    static func fileJSON(_ key: SettingKey, json: String) -> String {
        key.name.split(separator: ".").reversed().reduce(json) { inner, component in
            #"{"\#(component)": \#(inner)}"#
        }
    }

    /// The value of `key` in `settings` as text, a secret included: what ``Settings/text(of:)`` shows, except that
    /// the admin token is its value rather than `<set>`.
    static func valueText(of key: SettingKey, in settings: Settings) -> String {
        switch key {
        case .adminToken: settings.adminToken.value
        case .dataURL: settings.dataURL?.value ?? ""
        default: settings.text(of: key)
        }
    }

    /// The value of `key` in `settings` as JSON text, as the shipped file and the README write it: `"0.0.0.0"`,
    /// `8080`, `0.5`, `true`, and `""` for an unset secret.
    static func jsonText(of key: SettingKey, in settings: Settings) -> String {
        let text = valueText(of: key, in: settings)
        return key.valueKind == .string ? #""\#(text)""# : text
    }

    /// The path of the shipped `config/listserver.json`, found from this source file.
    static var shippedConfigPath: String { packageFile("config/listserver.json") }

    /// The path of the package's `README.md`.
    static var readmePath: String { packageFile("README.md") }

    /// The path of `relativePath` in the package, found from this source file.
    static func packageFile(_ relativePath: String) -> String {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // Support
            .deletingLastPathComponent()  // ListServerTests
            .deletingLastPathComponent()  // Tests
            .deletingLastPathComponent()  // package root
            .appendingPathComponent(relativePath).path
    }
}

/// A fresh temporary directory for one test's JSON files, removed when the test's suite instance goes away.
final class TemporaryDirectory: Sendable {
    /// The directory.
    let url: URL

    init() {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("ListServerTests-\(UUID().uuidString)", isDirectory: true)
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    /// Writes `contents` to a new file in the directory and returns its path.
    func file(_ contents: String) throws -> String {
        let file = url.appendingPathComponent("\(UUID().uuidString).json")
        try Data(contents.utf8).write(to: file)
        return file.path
    }
}
