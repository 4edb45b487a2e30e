import Logging
import Testing

@testable import ListServer

/// The `metrics.enabled`, `log.level`, `log.format` and `log.access` keys: defaults, every source, and the messages
/// for values that are not allowed.
@Suite("Configuration: metrics and logging")
struct ConfigurationObservabilityTests {
    typealias Support = ConfigurationTestSupport

    /// Where this test writes its JSON files.
    let temporary = TemporaryDirectory()

    @Test func theDefaultsMeasureAndLogEveryRequestAsTextAtInfo() {
        let defaults = Settings.defaults
        #expect(defaults.metricsEnabled)
        #expect(defaults.logging == LoggingSettings(level: .info, format: .text, accessLog: true))
        #expect(defaults.text(of: .metricsEnabled) == "true")
        #expect(defaults.text(of: .logLevel) == "info")
        #expect(defaults.text(of: .logFormat) == "text")
        #expect(defaults.text(of: .accessLog) == "true")
    }

    @Test func theKindsAndRequirementsAreThoseOfTheTable() {
        #expect(SettingKey.metricsEnabled.valueKind == .boolean)
        #expect(SettingKey.accessLog.valueKind == .boolean)
        #expect(SettingKey.logLevel.valueKind == .string)
        #expect(SettingKey.logFormat.valueKind == .string)
        #expect(SettingKey.port.valueKind == .integer)
        #expect(SettingKey.metricsEnabled.requirement == "true or false")
        #expect(SettingKey.logLevel.requirement == "one of trace, debug, info, notice, warning, error, critical")
        #expect(SettingKey.logFormat.requirement == "one of text, json")
        for key in [SettingKey.metricsEnabled, .logLevel, .logFormat, .accessLog] {
            #expect(key.bounds == nil)
        }
    }

    @Test func flagPairsTurnBooleansOnAndOff() async throws {
        let off = try await Support.load(["--no-metrics", "--no-access-log"])
        #expect(!off.metricsEnabled)
        #expect(!off.logging.accessLog)
        let on = try await Support.load(
            ["--metrics", "--access-log"],
            environment: ["LISTSERVER_METRICS": "false", "LISTSERVER_ACCESS_LOG": "false"])
        #expect(on.metricsEnabled)
        #expect(on.logging.accessLog)
        let options = try CommandLineOptions.parse(["--no-metrics"])
        #expect(options.configValues[SettingKey.metricsEnabled.absoluteKey]?.content == .bool(false))
        #expect(options.configValues[SettingKey.accessLog.absoluteKey] == nil)
    }

    @Test(arguments: [("false", false), ("true", true), ("0", false), ("1", true), ("no", false), ("YES", true)])
    func booleansFromTheEnvironment(_ text: String, _ value: Bool) async throws {
        let settings = try await Support.load(environment: ["LISTSERVER_METRICS": text, "LISTSERVER_ACCESS_LOG": text])
        #expect(settings.metricsEnabled == value)
        #expect(settings.logging.accessLog == value)
    }

    @Test func levelsAndFormatsInAnyCase() async throws {
        for level in Logger.Level.allCases {
            #expect(try await Support.load(["--log-level", level.rawValue]).logging.level == level)
            let upper = try await Support.load(environment: ["LISTSERVER_LOG_LEVEL": level.rawValue.uppercased()])
            #expect(upper.logging.level == level)
        }
        #expect(try await Support.load(["--log-format", "JSON"]).logging.format == .json)
        #expect(try await Support.load(environment: ["LISTSERVER_LOG_FORMAT": "text"]).logging.format == .text)
    }

    @Test func theFileTakesJSONBooleansAndStrings() async throws {
        let path = try temporary.file(
            #"{"metrics": {"enabled": false}, "log": {"level": "warning", "format": "json", "access": false}}"#)
        let settings = try await Support.load(["--config", path])
        #expect(!settings.metricsEnabled)
        #expect(settings.logging == LoggingSettings(level: .warning, format: .json, accessLog: false))
        #expect(
            settings.summary.hasSuffix(
                "metrics.enabled=false log.level=warning log.format=json log.access=false "
                    + "config=\(path)"))
    }

    @Test func valuesThatAreNotAllowedAreNamed() async throws {
        let level = try await Support.loadError(["--log-level", "loud"])
        #expect(
            level?.description
                == #"log.level (--log-level) = "loud" must be one of trace, debug, info, notice, warning, error, critical"#
        )
        #expect(level?.source == .commandLine)
        let format = try await Support.loadError(environment: ["LISTSERVER_LOG_FORMAT": "xml"])
        #expect(format?.description == #"log.format (env LISTSERVER_LOG_FORMAT) = "xml" must be one of text, json"#)
        #expect(format?.source == .environment)
        let metrics = try await Support.loadError(environment: ["LISTSERVER_METRICS": "maybe"])
        #expect(metrics?.description == #"metrics.enabled (env LISTSERVER_METRICS) = "maybe" must be true or false"#)
    }

    @Test func wrongTypesInTheFileAreNamed() async throws {
        let number = try temporary.file(#"{"metrics": {"enabled": 0}}"#)
        let numberError = try await Support.loadError(["--config", number])
        #expect(numberError?.description == "metrics.enabled (file \(number)) = 0 must be true or false")
        #expect(numberError?.source == .file(path: number))
        let quoted = try temporary.file(#"{"log": {"access": "false"}}"#)
        let quotedError = try await Support.loadError(["--config", quoted])
        #expect(quotedError?.description == #"log.access (file \#(quoted)) = "false" must be true or false"#)
        let format = try temporary.file(#"{"log": {"format": 1}}"#)
        let formatError = try await Support.loadError(["--config", format])
        #expect(formatError?.description == "log.format (file \(format)) = 1 must be a string, one of text, json")
        let level = try temporary.file(#"{"log": {"level": "verbose"}}"#)
        let levelError = try await Support.loadError(["--config", level])
        #expect(
            levelError?.description.hasPrefix(#"log.level (file \#(level)) = "verbose" must be one of trace, "#) == true
        )
    }

    @Test func helpShowsTheFlagPairs() {
        let help = CommandLineOptions.helpMessage(columns: 200)
        #expect(help.contains("--metrics/--no-metrics"))
        #expect(help.contains("--access-log/--no-access-log"))
        #expect(help.contains("--log-level <level>"))
        #expect(help.contains("--log-format <format>"))
    }
}
