import ArgumentParser
import Configuration

/// The command line of `ListServer`: one optional flag per setting, plus `--config` and `--health-check`.
///
/// Every flag is optional so that an absent flag lets the environment, the file or the default decide; ArgumentParser
/// parses the syntax and the types (so `--port abc` fails here, exit code 64), and
/// ``Settings/load(options:environment:activeProcessorCount:)`` checks the ranges. It is a `ParsableCommand` (a
/// `ParsableArguments` with a ``configuration``) only so that `--help` shows the tool name, an overview and the
/// environment variables; nothing calls `run()`.
struct CommandLineOptions: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ListServer",
        abstract: "Serves a paged list of generated items as JSON, with a slow, cached detail store.",
        discussion: discussion
    )

    @Option(name: .customLong(SettingKey.host.flagName), help: help(.host))
    var host: String?

    @Option(name: .customLong(SettingKey.port.flagName), help: help(.port))
    var port: Int?

    @Option(name: .customLong(SettingKey.threads.flagName), help: help(.threads))
    var threads: Int?

    @Option(name: .customLong(SettingKey.maxRequestLineBytes.flagName), help: help(.maxRequestLineBytes))
    var maxRequestLineBytes: Int?

    @Option(name: .customLong(SettingKey.maxHeaderBytes.flagName), help: help(.maxHeaderBytes))
    var maxHeaderBytes: Int?

    @Option(name: .customLong(SettingKey.maxHeaderCount.flagName), help: help(.maxHeaderCount))
    var maxHeaderCount: Int?

    @Option(name: .customLong(SettingKey.maxBodyBytes.flagName), help: help(.maxBodyBytes))
    var maxBodyBytes: Int?

    @Option(name: .customLong(SettingKey.maxConnections.flagName), help: help(.maxConnections))
    var maxConnections: Int?

    @Option(name: .customLong(SettingKey.headerTimeoutMs.flagName), help: help(.headerTimeoutMs))
    var headerTimeoutMs: Int?

    @Option(name: .customLong(SettingKey.idleTimeoutMs.flagName), help: help(.idleTimeoutMs))
    var idleTimeoutMs: Int?

    @Option(name: .customLong(SettingKey.writeTimeoutMs.flagName), help: help(.writeTimeoutMs))
    var writeTimeoutMs: Int?

    @Option(name: .customLong(SettingKey.bodyTimeoutMs.flagName), help: help(.bodyTimeoutMs))
    var bodyTimeoutMs: Int?

    @Option(name: .customLong(SettingKey.minBodyRate.flagName), help: help(.minBodyRate))
    var minBodyRate: Int?

    @Option(name: .customLong(SettingKey.reservedConnections.flagName), help: help(.reservedConnections))
    var reservedConnections: Int?

    @Option(name: .customLong(SettingKey.maxOutputBytes.flagName), help: help(.maxOutputBytes))
    var maxOutputBytes: Int?

    @Option(name: .customLong(SettingKey.itemCount.flagName), help: help(.itemCount))
    var itemCount: Int?

    @Option(name: .customLong(SettingKey.seed.flagName), help: help(.seed))
    var seed: Int?

    @Option(name: .customLong(SettingKey.pageLatencyMs.flagName), help: help(.pageLatencyMs))
    var pageLatencyMs: Int?

    @Option(name: .customLong(SettingKey.growEveryMs.flagName), help: help(.growEveryMs))
    var growEveryMs: Int?

    @Option(name: .customLong(SettingKey.latencyDistribution.flagName), help: help(.latencyDistribution))
    var latencyDistribution: String?

    @Option(name: .customLong(SettingKey.latencyMinMs.flagName), help: help(.latencyMinMs))
    var latencyMinMs: Int?

    @Option(name: .customLong(SettingKey.latencyMaxMs.flagName), help: help(.latencyMaxMs))
    var latencyMaxMs: Int?

    @Option(name: .customLong(SettingKey.latencyFixedMs.flagName), help: help(.latencyFixedMs))
    var latencyFixedMs: Int?

    @Option(name: .customLong(SettingKey.latencyMedianMs.flagName), help: help(.latencyMedianMs))
    var latencyMedianMs: Int?

    @Option(name: .customLong(SettingKey.latencySpread.flagName), help: help(.latencySpread))
    var latencySpread: Double?

    @Option(name: .customLong(SettingKey.cacheCapacity.flagName), help: help(.cacheCapacity))
    var cacheCapacity: Int?

    @Option(name: .customLong(SettingKey.imageLatencyDistribution.flagName), help: help(.imageLatencyDistribution))
    var imageLatencyDistribution: String?

    @Option(name: .customLong(SettingKey.imageLatencyMinMs.flagName), help: help(.imageLatencyMinMs))
    var imageLatencyMinMs: Int?

    @Option(name: .customLong(SettingKey.imageLatencyMaxMs.flagName), help: help(.imageLatencyMaxMs))
    var imageLatencyMaxMs: Int?

    @Option(name: .customLong(SettingKey.imageLatencyFixedMs.flagName), help: help(.imageLatencyFixedMs))
    var imageLatencyFixedMs: Int?

    @Option(name: .customLong(SettingKey.imageLatencyMedianMs.flagName), help: help(.imageLatencyMedianMs))
    var imageLatencyMedianMs: Int?

    @Option(name: .customLong(SettingKey.imageLatencySpread.flagName), help: help(.imageLatencySpread))
    var imageLatencySpread: Double?

    @Option(name: .customLong(SettingKey.imageCacheBytes.flagName), help: help(.imageCacheBytes))
    var imageCacheBytes: Int?

    @Option(name: .customLong(SettingKey.imageWorkers.flagName), help: help(.imageWorkers))
    var imageWorkers: Int?

    @Option(name: .customLong(SettingKey.imageQueueLimit.flagName), help: help(.imageQueueLimit))
    var imageQueueLimit: Int?

    @Option(name: .customLong(SettingKey.imageMaxUploadBytes.flagName), help: help(.imageMaxUploadBytes))
    var imageMaxUploadBytes: Int?

    @Flag(
        name: .customLong(SettingKey.imageProgressive.flagName), inversion: .prefixedNo,
        help: help(.imageProgressive))
    var imageProgressive: Bool?

    @Flag(
        name: .customLong(SettingKey.picsumEnabled.flagName), inversion: .prefixedNo, help: help(.picsumEnabled))
    var picsum: Bool?

    @Option(name: .customLong(SettingKey.publicURL.flagName), help: help(.publicURL))
    var publicURL: String?

    @Option(name: .customLong(SettingKey.defaultLimit.flagName), help: help(.defaultLimit))
    var defaultLimit: Int?

    @Option(name: .customLong(SettingKey.maxLimit.flagName), help: help(.maxLimit))
    var maxLimit: Int?

    @Option(name: .customLong(SettingKey.dataPath.flagName), help: help(.dataPath))
    var dataPath: String?

    @Option(name: .customLong(SettingKey.dataSynchronous.flagName), help: help(.dataSynchronous))
    var dataSynchronous: String?

    @Option(name: .customLong(SettingKey.dataURL.flagName), help: help(.dataURL))
    var dataURL: String?

    @Option(name: .customLong(SettingKey.dataPoolSize.flagName), help: help(.dataPoolSize))
    var dataPoolSize: Int?

    @Option(name: .customLong(SettingKey.idempotencyTTLSeconds.flagName), help: help(.idempotencyTTLSeconds))
    var idempotencyTTLSeconds: Int?

    @Option(name: .customLong(SettingKey.changesKept.flagName), help: help(.changesKept))
    var changesKept: Int?

    @Option(name: .customLong(SettingKey.maxDatasets.flagName), help: help(.maxDatasets))
    var maxDatasets: Int?

    @Option(name: .customLong(SettingKey.datasetTTLSeconds.flagName), help: help(.datasetTTLSeconds))
    var datasetTTLSeconds: Int?

    @Option(name: .customLong(SettingKey.maxDatasetBytes.flagName), help: help(.maxDatasetBytes))
    var maxDatasetBytes: Int?

    @Option(name: .customLong(SettingKey.maxMemoryBytes.flagName), help: help(.maxMemoryBytes))
    var maxMemoryBytes: Int?

    @Option(name: .customLong(SettingKey.heartbeatMs.flagName), help: help(.heartbeatMs))
    var heartbeatMs: Int?

    @Option(name: .customLong(SettingKey.maxWaitMs.flagName), help: help(.maxWaitMs))
    var maxWaitMs: Int?

    @Option(name: .customLong(SettingKey.eventBufferBytes.flagName), help: help(.eventBufferBytes))
    var eventBufferBytes: Int?

    @Option(name: .customLong(SettingKey.eventBufferedBytes.flagName), help: help(.eventBufferedBytes))
    var eventBufferedBytes: Int?

    @Option(name: .customLong(SettingKey.journalCapacity.flagName), help: help(.journalCapacity))
    var journalCapacity: Int?

    @Option(name: .customLong(SettingKey.journalMaxBytes.flagName), help: help(.journalMaxBytes))
    var journalMaxBytes: Int?

    @Option(name: .customLong(SettingKey.journalMaxInFlightHint.flagName), help: help(.journalMaxInFlightHint))
    var journalMaxInFlightHint: Int?

    @Option(name: .customLong(SettingKey.chatConversations.flagName), help: help(.chatConversations))
    var chatConversations: Int?

    @Option(
        name: .customLong(SettingKey.chatMessagesPerConversation.flagName), help: help(.chatMessagesPerConversation))
    var chatMessagesPerConversation: Int?

    @Option(name: .customLong(SettingKey.maxDelayMs.flagName), help: help(.maxDelayMs))
    var maxDelayMs: Int?

    @Option(name: .customLong(SettingKey.faultRate.flagName), help: help(.faultRate))
    var faultRate: Double?

    @Option(name: .customLong(SettingKey.faultKinds.flagName), help: help(.faultKinds))
    var faultKinds: String?

    @Option(name: .customLong(SettingKey.faultSeed.flagName), help: help(.faultSeed))
    var faultSeed: Int?

    @Option(name: .customLong(SettingKey.hangMs.flagName), help: help(.hangMs))
    var hangMs: Int?

    @Option(name: .customLong(SettingKey.retryAfterSeconds.flagName), help: help(.retryAfterSeconds))
    var retryAfterSeconds: Int?

    /// The admin secret; given here it is visible to other users of the machine (`ps`), so prefer the environment
    /// or the file. Never printed back.
    @Option(name: .customLong(SettingKey.adminToken.flagName), help: help(.adminToken))
    var adminToken: String?

    @Option(name: .customLong(SettingKey.corsAllowOrigin.flagName), help: help(.corsAllowOrigin))
    var corsAllowOrigin: String?

    @Option(name: .customLong(SettingKey.adminAllowedOrigins.flagName), help: help(.adminAllowedOrigins))
    var adminAllowedOrigins: String?

    @Option(name: .customLong(SettingKey.shutdownGraceMs.flagName), help: help(.shutdownGraceMs))
    var shutdownGraceMs: Int?

    @Flag(
        name: .customLong(SettingKey.metricsEnabled.flagName), inversion: .prefixedNo, help: help(.metricsEnabled))
    var metrics: Bool?

    @Option(name: .customLong(SettingKey.logLevel.flagName), help: help(.logLevel))
    var logLevel: String?

    @Option(name: .customLong(SettingKey.logFormat.flagName), help: help(.logFormat))
    var logFormat: String?

    @Flag(name: .customLong(SettingKey.accessLog.flagName), inversion: .prefixedNo, help: help(.accessLog))
    var accessLog: Bool?

    @Option(
        name: .customLong("config"),
        help: ArgumentHelp(
            "JSON configuration file (nested keys, see config/listserver.json). Env: \(SettingKey.configFileVariable).",
            valueName: "path"
        )
    )
    var config: String?

    @Flag(
        name: .customLong("health-check"),
        help: ArgumentHelp(
            "Do not serve: ask the server configured by the same flags, environment and file for GET /healthz on "
                + "this machine's loopback, print one line, and exit 0 on a 200 within 2 s, else 1 (Docker HEALTHCHECK)."
        )
    )
    var healthCheck = false

    /// The settings given on the command line, keyed by config key, for the `InMemoryProvider` on top of the chain.
    var configValues: [AbsoluteConfigKey: ConfigValue] {
        let strings: [(SettingKey, String?)] = [
            (.host, host), (.logLevel, logLevel), (.logFormat, logFormat), (.latencyDistribution, latencyDistribution),
            (.imageLatencyDistribution, imageLatencyDistribution), (.faultKinds, faultKinds), (.adminToken, adminToken),
            (.corsAllowOrigin, corsAllowOrigin), (.adminAllowedOrigins, adminAllowedOrigins),
            (.dataPath, dataPath), (.dataSynchronous, dataSynchronous), (.dataURL, dataURL), (.publicURL, publicURL),
        ]
        let booleans: [(SettingKey, Bool?)] = [
            (.metricsEnabled, metrics), (.accessLog, accessLog), (.picsumEnabled, picsum),
            (.imageProgressive, imageProgressive),
        ]
        let doubles: [(SettingKey, Double?)] = [
            (.latencySpread, latencySpread), (.imageLatencySpread, imageLatencySpread), (.faultRate, faultRate),
        ]
        let integers: [(SettingKey, Int?)] = [
            (.port, port), (.threads, threads), (.dataPoolSize, dataPoolSize),
            (.maxRequestLineBytes, maxRequestLineBytes), (.maxHeaderBytes, maxHeaderBytes),
            (.maxHeaderCount, maxHeaderCount), (.maxBodyBytes, maxBodyBytes), (.maxConnections, maxConnections),
            (.headerTimeoutMs, headerTimeoutMs), (.idleTimeoutMs, idleTimeoutMs), (.writeTimeoutMs, writeTimeoutMs),
            (.bodyTimeoutMs, bodyTimeoutMs), (.minBodyRate, minBodyRate), (.reservedConnections, reservedConnections),
            (.maxOutputBytes, maxOutputBytes),
            (.itemCount, itemCount), (.seed, seed), (.pageLatencyMs, pageLatencyMs), (.growEveryMs, growEveryMs),
            (.latencyMinMs, latencyMinMs), (.latencyMaxMs, latencyMaxMs), (.latencyFixedMs, latencyFixedMs),
            (.latencyMedianMs, latencyMedianMs), (.cacheCapacity, cacheCapacity),
            (.imageLatencyMinMs, imageLatencyMinMs), (.imageLatencyMaxMs, imageLatencyMaxMs),
            (.imageLatencyFixedMs, imageLatencyFixedMs), (.imageLatencyMedianMs, imageLatencyMedianMs),
            (.imageCacheBytes, imageCacheBytes), (.imageWorkers, imageWorkers), (.imageQueueLimit, imageQueueLimit),
            (.imageMaxUploadBytes, imageMaxUploadBytes),
            (.defaultLimit, defaultLimit), (.maxLimit, maxLimit),
            (.idempotencyTTLSeconds, idempotencyTTLSeconds), (.changesKept, changesKept),
            (.maxDatasets, maxDatasets), (.datasetTTLSeconds, datasetTTLSeconds),
            (.maxDatasetBytes, maxDatasetBytes), (.maxMemoryBytes, maxMemoryBytes),
            (.heartbeatMs, heartbeatMs), (.maxWaitMs, maxWaitMs), (.eventBufferBytes, eventBufferBytes),
            (.eventBufferedBytes, eventBufferedBytes), (.journalCapacity, journalCapacity),
            (.journalMaxBytes, journalMaxBytes), (.journalMaxInFlightHint, journalMaxInFlightHint),
            (.chatConversations, chatConversations), (.chatMessagesPerConversation, chatMessagesPerConversation),
            (.maxDelayMs, maxDelayMs),
            (.faultSeed, faultSeed), (.hangMs, hangMs), (.retryAfterSeconds, retryAfterSeconds),
            (.shutdownGraceMs, shutdownGraceMs),
        ]
        var values: [AbsoluteConfigKey: ConfigValue] = [:]
        for case (let key, let value?) in strings {
            values[key.absoluteKey] = ConfigValue(.string(value), isSecret: key.isSecret)
        }
        for case (let key, let value?) in integers {
            values[key.absoluteKey] = ConfigValue(.int(value), isSecret: false)
        }
        for case (let key, let value?) in doubles {
            values[key.absoluteKey] = ConfigValue(.double(value), isSecret: false)
        }
        for case (let key, let value?) in booleans {
            values[key.absoluteKey] = ConfigValue(.bool(value), isSecret: false)
        }
        return values
    }

    /// The help of one setting's flag: what it means, its range, default and environment variable; an unset
    /// secret's default as `none` (a set one would show as `<set>`, as ``Settings/text(of:)`` hides it).
    private static func help(_ key: SettingKey) -> ArgumentHelp {
        let defaultText = Settings.defaults.text(of: key)
        let shownDefault = key.isSecret && defaultText == "<none>" ? "none" : defaultText
        if key.valueKind == .boolean {
            return ArgumentHelp(
                """
                \(key.meaning) --no-\(key.flagName) turns it off; default \(shownDefault); \
                env \(key.environmentVariable), \(key.requirement).
                """
            )
        }
        return ArgumentHelp(
            """
            \(key.meaning) Must be \(key.requirement); default \(shownDefault); \
            env \(key.environmentVariable).
            """,
            valueName: key.valueName
        )
    }

    /// The overview's second part: precedence and every environment variable with its config key.
    private static var discussion: String {
        let width = SettingKey.allCases.map(\.environmentVariable.count).max() ?? 0
        let rows = SettingKey.allCases.map { key in
            key.environmentVariable.padded(to: width) + "  " + key.name
        }
        return """
            Each setting is taken from the first of these that has it: a command-line flag, an environment variable, \
            the JSON file named by --config or \(SettingKey.configFileVariable), the built-in default.

            ENVIRONMENT VARIABLES (config key in the JSON file):
            \((rows + [SettingKey.configFileVariable.padded(to: width) + "  (path of the JSON file)"])
                .map { "  " + $0 }.joined(separator: "\n"))
            """
    }
}

extension String {
    /// This string with spaces appended up to `length` characters.
    fileprivate func padded(to length: Int) -> String {
        self + String(repeating: " ", count: max(0, length - count))
    }
}
