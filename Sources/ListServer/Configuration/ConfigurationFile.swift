import Configuration
import FoundationEssentials

/// The JSON configuration file: read, checked for unknown keys, and served as an `InMemoryProvider` of its values.
///
/// swift-configuration ignores keys that nobody asks for, so a typo such as `"prot": 9090` would silently leave the
/// port at its default. So this type parses the file itself, with the strict parser that reads request bodies
/// (``RequestJSON``: duplicate keys, trailing commas and numbers out of range are errors naming the byte), checks
/// that every leaf is a key of ``SettingKey``, and converts each value to the one type its setting is read as, by the
/// rules `FileProvider<JSONSnapshot>` applied before (a Boolean read as a number is 1 or 0, a number read as a
/// Boolean is true unless 0, an integer read as a double is exact or refused; ``LayeredReader`` refuses the first
/// two from the text kept in ``values``). Anything else is stored as a value of a type no setting is read as, so
/// reading it fails as a wrong type, naming the file, as it did. `JSONSnapshot` needs swift-configuration's JSON
/// trait, which imports the whole of Foundation (and its ICU data) for `JSONSerialization` (issue 16).
struct ConfigurationFile: Sendable {
    /// The path, as given.
    let path: String

    /// The JSON text of every value in the file, keyed by dotted config key: `["http.port": "8080"]`.
    ///
    /// Error messages quote these (`= "8080"` for a string where a number belongs), and a `true` or `false` here
    /// betrays a Boolean, which the provider serves as the integer 1 or 0 where a number is read.
    let values: [String: String]

    /// The provider that serves the file's values to the `ConfigReader`.
    let provider: InMemoryProvider

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
            throw .file(path, namedBy: namedBy, " cannot be read: \(FileErrorReason.of(error))")
        }
        let json: RequestJSON
        do {
            json = try RequestJSON.parse(Array(data), maxDepth: Self.maximumDepth)
        } catch {
            throw .file(path, namedBy: namedBy, " is not valid JSON: \(error)")
        }
        guard case .object(let members) = json else {
            throw .file(path, namedBy: namedBy, ": the top level must be a JSON object")
        }
        var leaves: [String: RequestJSON] = [:]
        if let twice = Self.collectLeaves(of: members, prefix: "", into: &leaves) {
            throw .file(path, namedBy: namedBy, #": "\#(twice)" is given twice"#)
        }
        try Self.checkKeys(leaves.keys, path: path, namedBy: namedBy)
        var values: [String: String] = [:]
        var provided: [AbsoluteConfigKey: ConfigValue] = [:]
        for (name, leaf) in leaves {
            values[name] = Self.text(of: leaf)
            guard let key = SettingKey(rawValue: name), let content = Self.content(of: leaf, as: key.valueKind) else {
                continue  // null: the key is not in the file, and the next layer decides
            }
            provided[key.absoluteKey] = ConfigValue(content, isSecret: key.isSecret)
        }
        self.path = path
        self.values = values
        provider = InMemoryProvider(name: "file", values: provided)
    }

    /// Nesting beyond settings' two or three levels is a mistake; deeper than this is refused as not valid.
    private static let maximumDepth = 16

    /// Flattens nested objects into dotted keys; the first dotted key given twice (`"http.port"` beside
    /// `"http": {"port"}`), or nil.
    private static func collectLeaves(
        of members: [(key: String, value: RequestJSON)], prefix: String, into leaves: inout [String: RequestJSON]
    ) -> String? {
        for (name, value) in members {
            let key = prefix + name
            if case .object(let nested) = value {
                if let twice = collectLeaves(of: nested, prefix: key + ".", into: &leaves) { return twice }
            } else if leaves.updateValue(value, forKey: key) != nil {
                return key
            }
        }
        return nil
    }

    /// What the provider serves for `value` at a setting read as `kind`; nil for null. A value that cannot be read
    /// as `kind` becomes bytes, which no setting is read as: the read then fails as a wrong type.
    private static func content(of value: RequestJSON, as kind: SettingKey.ValueKind) -> ConfigContent? {
        let unreadable = ConfigContent.bytes([])
        switch (kind, value) {
        case (_, .null): return nil
        case (.string, .string(let text)): return .string(text)
        case (.integer, .bool(let flag)): return .int(flag ? 1 : 0)
        case (.integer, .number(let number)):
            return (number.int ?? Int(exactly: number.double)).map(ConfigContent.int) ?? unreadable
        case (.double, .bool(let flag)): return .double(flag ? 1 : 0)
        case (.double, .number(let number)):
            if let integer = number.int { return Double(exactly: integer).map(ConfigContent.double) ?? unreadable }
            return .double(number.double)
        case (.boolean, .bool(let flag)): return .bool(flag)
        case (.boolean, .number(let number)): return .bool(number.double != 0)
        default: return unreadable
        }
    }

    /// `value` as compact JSON text, as written: numbers by their literal, object keys sorted, slashes unescaped.
    private static func text(of value: RequestJSON) -> String {
        switch value {
        case .null: "null"
        case .bool(let flag): flag ? "true" : "false"
        case .number(let number): number.literal
        case .string(let text):
            {
                var json = JSONWriter(capacity: text.utf8.count + 2)
                json.append(string: text)
                return String(decoding: json.bytes, as: UTF8.self)
            }()
        case .array(let elements): "[" + elements.map(text(of:)).joined(separator: ",") + "]"
        case .object(let members):
            "{"
                + members.sorted { $0.key < $1.key }.map { text(of: .string($0.key)) + ":" + text(of: $0.value) }
                .joined(separator: ",") + "}"
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
}
