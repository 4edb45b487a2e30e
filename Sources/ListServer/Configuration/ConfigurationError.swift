/// A configuration problem, described in one line that names the key, where its value came from, the value and
/// what was expected.
///
/// Examples:
/// ```
/// store.latency.min_ms (--latency-min-ms) = 3000 must be <= store.latency.max_ms (2000)
/// http.port (env LISTSERVER_PORT) = "abc" must be an integer in 0...65535
/// http.host (file /etc/listserver.json) = "example.com" must be an IPv4/IPv6 literal or "localhost"
/// faults.rate (env LISTSERVER_FAULT_RATE) = "abc" must be a number in 0...1
/// admin.token (env LISTSERVER_ADMIN_TOKEN) = <redacted> must be empty or 1...256 visible ASCII characters …: byte 6 is 0x20
/// config file /etc/listserver.json (--config): unknown key "http.prot"; known keys: http.host, …
/// ```
struct ConfigurationError: Error, Equatable, CustomStringConvertible {
    /// The config key at fault (``SettingKey/port``), or `config` for a problem with the file itself.
    let key: String

    /// Where the bad value came from; for a problem with the file as a whole, ``ConfigurationSource/file(path:)``.
    let source: ConfigurationSource

    /// The whole message, one line.
    let description: String

    /// A value that is out of range or otherwise invalid: `http.port (--port) = 70000 must be in 0...65535`.
    static func invalidValue(
        _ key: SettingKey,
        from source: ConfigurationSource,
        value: String,
        requirement: String
    ) -> Self {
        .init(
            key: key.name,
            source: source,
            description: "\(key.name) (\(source.label(for: key))) = \(value) must be \(requirement)"
        )
    }

    /// A value that is not of the key's type: `http.port (env LISTSERVER_PORT) = "abc" must be an integer in 0...65535`.
    static func wrongType(_ key: SettingKey, from source: ConfigurationSource, value: String) -> Self {
        let expected =
            switch key.valueKind {
            case .integer: "an integer \(key.requirement)"
            case .double: "a number \(key.requirement)"
            case .string: "a string, \(key.requirement)"
            case .boolean: key.requirement
            }
        return invalidValue(key, from: source, value: value, requirement: expected)
    }

    /// A problem with the configuration file as a whole: unreadable, not JSON, an unknown key.
    ///
    /// - Parameters:
    ///   - path: The file's path, as given.
    ///   - namedBy: Where the path came from: `--config` or `LISTSERVER_CONFIG`.
    ///   - problem: What is wrong, starting with a verb or a colon: `: unknown key "http.prot"`.
    static func file(_ path: String, namedBy: String, _ problem: String) -> Self {
        .init(key: "config", source: .file(path: path), description: "config file \(path) (\(namedBy))\(problem)")
    }
}

/// Where a configuration value came from, in order of precedence.
enum ConfigurationSource: Sendable, Equatable {
    /// A command-line flag, such as `--port`.
    case commandLine

    /// An environment variable, such as `LISTSERVER_PORT`.
    case environment

    /// The JSON configuration file at this path.
    case file(path: String)

    /// The built-in default.
    case builtInDefault

    /// How messages name this source for `key`: `--port`, `env LISTSERVER_PORT`, `file x.json` or `default`.
    func label(for key: SettingKey) -> String {
        switch self {
        case .commandLine: key.flag
        case .environment: "env \(key.environmentVariable)"
        case .file(let path): "file \(path)"
        case .builtInDefault: "default"
        }
    }
}
