import Configuration
import Foundation

/// The JSON configuration file: read, checked for unknown keys, and served by a `FileProvider<JSONSnapshot>`.
///
/// swift-configuration ignores keys that nobody asks for, so a typo such as `"prot": 9090` would silently leave the
/// port at its default, and it cannot list a snapshot's keys (`JSONSnapshot` keeps them internal). So this type
/// parses the file once itself, just for its structure: every leaf must be a key of ``SettingKey``. The file is
/// therefore read twice at start-up (here and by `FileProvider`); for a file of a few hundred bytes that costs
/// nothing, and it keeps the values' parsing and typing with the library instead of a second implementation here.
/// (Handing our bytes to `JSONSnapshot` directly would need a `RawSpan`, i.e. unsafe pointers outside `LibEvent/`.)
struct ConfigurationFile: Sendable {
    /// The path, as given.
    let path: String

    /// The JSON text of every value in the file, keyed by dotted config key: `["http.port": "8080"]`.
    ///
    /// Error messages quote these (`= "8080"` for a string where a number belongs), and a `true` or `false` here
    /// betrays a Boolean, which `JSONSnapshot` would otherwise read as the integer 1 or 0.
    let values: [String: String]

    /// The provider that serves the file's values to the `ConfigReader`.
    let provider: FileProvider<JSONSnapshot>

    /// Reads and checks the file at `path`.
    ///
    /// - Parameters:
    ///   - path: The file's path, absolute or relative to the working directory.
    ///   - namedBy: Where the path came from, for messages: `--config` or `LISTSERVER_CONFIG`.
    /// - Throws: ``ConfigurationError`` when the file cannot be read, is not a JSON object, or holds a key that is
    ///   not a setting.
    init(path: String, namedBy: String) async throws(ConfigurationError) {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw .file(path, namedBy: namedBy, " cannot be read: \(Self.reason(error))")
        }
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: data)
        } catch {
            let detail = (error as NSError).userInfo[NSDebugDescriptionErrorKey].map { "\($0)" } ?? "\(error)"
            throw .file(path, namedBy: namedBy, " is not valid JSON: \(detail)")
        }
        guard let dictionary = object as? [String: Any] else {
            throw .file(path, namedBy: namedBy, ": the top level must be a JSON object")
        }
        var values: [String: String] = [:]
        Self.collectValues(of: dictionary, prefix: "", into: &values)
        try Self.checkKeys(values.keys, path: path, namedBy: namedBy)
        do {
            let secrets = Set(SettingKey.allCases.filter(\.isSecret).map(\.name))
            provider = try await FileProvider<JSONSnapshot>(
                parsingOptions: .init(secretsSpecifier: .specific(secrets)), filePath: .init(path))
        } catch {
            throw .file(path, namedBy: namedBy, ": \(error)")
        }
        self.path = path
        self.values = values
    }

    /// Flattens nested objects into dotted keys, rendering every other value as JSON text.
    private static func collectValues(of object: [String: Any], prefix: String, into values: inout [String: String]) {
        for (name, value) in object {
            let key = prefix + name
            if let nested = value as? [String: Any] {
                collectValues(of: nested, prefix: key + ".", into: &values)
            } else {
                // Slashes unescaped, so paths and origins read as written: "./data/x.sqlite", not ".\/data\/x.sqlite".
                let json = try? JSONSerialization.data(
                    withJSONObject: value, options: [.fragmentsAllowed, .sortedKeys, .withoutEscapingSlashes])
                values[key] = json.map { String(decoding: $0, as: UTF8.self) } ?? "\(value)"
            }
        }
    }

    /// Throws unless every key is a setting, naming the first offender in sorted order.
    private static func checkKeys(
        _ keys: some Sequence<String>,
        path: String,
        namedBy: String
    ) throws(ConfigurationError) {
        let known = Set(SettingKey.allCases.map(\.name))
        guard let unknown = keys.filter({ !known.contains($0) }).sorted().first else {
            return
        }
        if known.contains(where: { $0.hasPrefix(unknown + ".") }) {
            throw .file(path, namedBy: namedBy, #": "\#(unknown)" must be an object"#)
        }
        let list = SettingKey.allCases.map(\.name).joined(separator: ", ")
        throw .file(path, namedBy: namedBy, #": unknown key "\#(unknown)"; known keys: \#(list)"#)
    }

    /// A short reason why a file could not be read: `no such file`, `permission denied`, `is a directory`.
    private static func reason(_ error: any Error) -> String {
        switch ((error as? CocoaError)?.underlying as? POSIXError)?.code {
        case .ENOENT?: "no such file"
        case .EACCES?: "permission denied"
        case .EISDIR?: "is a directory"
        default: "\(error)"
        }
    }
}
