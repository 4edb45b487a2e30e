import Configuration
import Synchronization

/// Reads typed settings through a layered `ConfigReader`, turning every failure into a ``ConfigurationError`` that
/// names the key, the source of the value, the value and the requirement.
///
/// The source of each value comes from swift-configuration itself: the reader reports every lookup to an
/// `AccessReporter`, with one result per provider it asked, in order, stopping at the first that had a value or
/// threw. So the last result's index is the deciding provider, and ``layers`` says which source that is.
struct LayeredReader: Sendable {
    /// The layers, highest precedence first, each with where its values come from.
    private let layers: [(provider: any ConfigProvider, source: ConfigurationSource)]

    /// The raw environment, to quote a value that failed to parse.
    private let environment: [String: String]

    /// The configuration file, if any, to quote a value that failed to parse.
    private let file: ConfigurationFile?

    /// Which layer decided each key read so far.
    private let recorder = DecidingLayerRecorder()

    /// The reader over all layers, reporting to ``recorder``.
    private let reader: ConfigReader

    /// Creates a reader over `layers`, highest precedence first.
    init(
        layers: [(provider: any ConfigProvider, source: ConfigurationSource)],
        environment: [String: String],
        file: ConfigurationFile?
    ) {
        self.layers = layers
        self.environment = environment
        self.file = file
        self.reader = ConfigReader(providers: layers.map(\.provider), accessReporter: recorder)
    }

    /// The integer value of `key`, checked against ``SettingKey/bounds``.
    func int(_ key: SettingKey) throws(ConfigurationError) -> Int {
        let (value, source) = try number(key) { try reader.requiredInt(forKey: $0) }
        if let bounds = key.bounds, !bounds.contains(value) {
            throw .invalidValue(key, from: source, value: String(value), requirement: key.requirement)
        }
        return value
    }

    /// The finite number value of `key`, checked against ``SettingKey/fractionalBounds``.
    ///
    /// The file may write it as any JSON number (`1`, `0.25`); the environment as a decimal (`0.3`). Not-a-number
    /// and infinities are refused as not numbers, and a Boolean in the file as the wrong type.
    func double(_ key: SettingKey) throws(ConfigurationError) -> Double {
        let (value, source) = try number(key) { try reader.requiredDouble(forKey: $0) }
        guard value.isFinite else {
            // Double("nan") and Double("inf") parse, in the environment and on the command line alike.
            throw .wrongType(key, from: source, value: source == .commandLine ? String(value) : rawText(of: key))
        }
        if let bounds = key.fractionalBounds, !bounds.contains(value) {
            throw .invalidValue(key, from: source, value: value.settingText, requirement: key.requirement)
        }
        return value
    }

    /// The number `read` finds for `key`, and the layer it came from; the wrong-type error when it finds none it
    /// can parse, or a Boolean in the file (``ConfigurationFile`` serves a Boolean as 1 or 0, as JSONSnapshot did; one
    /// where a number belongs is a mistake).
    private func number<Value>(
        _ key: SettingKey, _ read: (ConfigKey) throws -> Value
    ) throws(ConfigurationError) -> (value: Value, source: ConfigurationSource) {
        let value: Value
        do {
            value = try read(key.configKey)
        } catch {
            throw .wrongType(key, from: source(of: key), value: rawText(of: key))
        }
        let source = source(of: key)
        if case .file = source, ["true", "false"].contains(file?.values[key.name]) {
            throw .wrongType(key, from: source, value: rawText(of: key))
        }
        return (value, source)
    }

    /// The Boolean value of `key`: `true` or `false` (the environment also takes `1`/`0` and `yes`/`no`).
    func bool(_ key: SettingKey) throws(ConfigurationError) -> Bool {
        let value: Bool
        do {
            value = try reader.requiredBool(forKey: key.configKey)
        } catch {
            throw .wrongType(key, from: source(of: key), value: rawText(of: key))
        }
        let source = source(of: key)
        if case .file = source, !["true", "false"].contains(file?.values[key.name]) {
            // The file serves any number as a Boolean (as JSONSnapshot did); a number where true or false belongs is a
            // mistake.
            throw .wrongType(key, from: source, value: rawText(of: key))
        }
        return value
    }

    /// The value of `key` as one of `Choice`'s (lowercase) raw values, in any case: `json`, `DEBUG`.
    func choice<Choice: RawRepresentable>(_ key: SettingKey, of _: Choice.Type) throws(ConfigurationError) -> Choice
    where Choice.RawValue == String {
        let text = try string(key)
        guard let choice = Choice(rawValue: text.lowercased()) else {
            throw .invalidValue(key, from: source(of: key), value: #""\#(text)""#, requirement: key.requirement)
        }
        return choice
    }

    /// The value of `key` as `parse` reads its text; a failure becomes a message that states the requirement and
    /// then `parse`'s reason: `… must be a comma-separated list of kind[:weight]: unknown fault kind "oops" (…)`.
    ///
    /// The text of a secret key is never quoted, only shown as `<redacted>`.
    func parsed<Value, Failure: Error & CustomStringConvertible>(
        _ key: SettingKey,
        _ parse: (String) throws(Failure) -> Value
    ) throws(ConfigurationError) -> Value {
        let text = try string(key)
        do {
            return try parse(text)
        } catch {
            throw .invalidValue(
                key,
                from: source(of: key),
                value: key.isSecret ? Self.redacted : #""\#(text)""#,
                requirement: "\(key.requirement): \(error.description)"
            )
        }
    }

    /// The string value of `key`; checking it is the caller's business.
    func string(_ key: SettingKey) throws(ConfigurationError) -> String {
        do {
            return try reader.requiredString(forKey: key.configKey)
        } catch {
            throw .wrongType(key, from: source(of: key), value: rawText(of: key))
        }
    }

    /// The layer whose value (or failure) decided the last read of `key`.
    func source(of key: SettingKey) -> ConfigurationSource {
        let index = recorder.decidingIndex(of: key.absoluteKey)
        return index.map { layers[$0].source } ?? .builtInDefault
    }

    /// How messages show the value of a secret key.
    static let redacted = "<redacted>"

    /// The value of `key` as its source wrote it, quoted when it is a string: `"abc"`, `8080`; a secret's value
    /// only as ``redacted``.
    private func rawText(of key: SettingKey) -> String {
        if key.isSecret {
            return Self.redacted
        }
        return switch source(of: key) {
        case .environment:
            environment[key.environmentVariable].map { #""\#($0)""# } ?? "?"
        case .file:
            file?.values[key.name] ?? "?"
        case .commandLine, .builtInDefault:
            "?"  // typed by ArgumentParser or by Settings.defaults: never the wrong type
        }
    }
}

/// Remembers, for each key, the index of the provider that answered the last lookup.
private final class DecidingLayerRecorder: AccessReporter {
    /// Provider index by key.
    private let indices = Mutex<[AbsoluteConfigKey: Int]>([:])

    func report(_ event: AccessEvent) {
        let results = event.providerResults
        let decided: Bool
        switch results.last?.result {
        case .success(let lookup)?: decided = lookup.value != nil
        case .failure?: decided = true
        case nil: decided = false
        }
        let index = decided ? results.count - 1 : nil
        indices.withLock { $0[event.metadata.key] = index }
    }

    /// The index of the provider that decided the last lookup of `key`, `nil` if none had a value.
    func decidingIndex(of key: AbsoluteConfigKey) -> Int? {
        indices.withLock { $0[key] }
    }
}
