import Configuration
import FoundationEssentials
import Glibc
import ListDomain
import Logging

/// Loading ``Settings``: the layers (flags, environment, file, defaults) read through swift-configuration, each
/// value checked against its key's row of the table, then the checks that involve several keys.
extension Settings {
    /// Loads and validates the settings from the command line, the environment, a JSON file and the defaults.
    ///
    /// Each key is taken from the first of these that has it: a flag that was given, its environment variable, the
    /// JSON file named by `--config` (or `LISTSERVER_CONFIG` when there is no `--config`), the built-in default.
    /// In the JSON file the dotted keys are nested objects: `{"store": {"latency": {"min_ms": 500}}}`.
    ///
    /// The keys are the cases of ``SettingKey``; their flags, environment variables, ranges and meanings are its
    /// table (`SettingKey+Table.swift`), and their defaults are ``defaults``. `--help`, the README's configuration
    /// table and the shipped `config/listserver.json` are printed from or checked against those, so none of it is
    /// written here again.
    ///
    /// Booleans are JSON `true`/`false` in the file and `true`/`false` (or `1`/`0`, `yes`/`no`) in the environment;
    /// on the command line each is a pair of flags. Doubles are JSON numbers in the file and decimals (`0.3`)
    /// elsewhere; not-a-number and infinities are refused.
    ///
    /// Why this composition: ArgumentParser parses the flags, not swift-configuration's `CommandLineArgumentsProvider`,
    /// because it gives an excellent `--help` (every flag with its meaning, range, default and variable), typed
    /// parsing with precise messages, and exit code 64 for unknown flags, where the provider accepts any `--key value`
    /// and cannot describe or reject one. swift-configuration then does what it is built for, the layering: the flags
    /// that were given become an `InMemoryProvider` on top; the environment is an `EnvironmentVariablesProvider`
    /// behind a `KeyMappingProvider` that maps each key to the variable of the table (the provider's own encoding
    /// would make `STORE_LATENCY_MIN_MS` of `store.latency.min_ms`); the file is an `InMemoryProvider` of the
    /// values ``ConfigurationFile`` parsed, checked for unknown keys and converted; and the defaults, taken from
    /// ``defaults``, are an `InMemoryProvider` at the bottom. Because the bottom layer has every key, each read is a
    /// `required…` read, which throws on a value of the wrong type; `int(forKey:default:)` would silently return the
    /// default instead.
    ///
    /// - Parameters:
    ///   - options: The parsed command line.
    ///   - environment: The process environment (`ProcessInfo.processInfo.environment`); only `LISTSERVER_*`
    ///     variables are read. An empty `LISTSERVER_CONFIG` counts as unset.
    ///   - activeProcessorCount: What `http.threads = 0` resolves to.
    /// - Returns: Settings whose every value is within its range, with ``configFile`` set when a file was read.
    /// - Throws: ``ConfigurationError`` for the first problem found, naming the key, the source and the value.
    static func load(
        options: CommandLineOptions,
        environment: [String: String],
        activeProcessorCount: Int = ProcessInfo.processInfo.activeProcessorCount
    ) async throws(ConfigurationError) -> Settings {
        let file = try await configurationFile(options: options, environment: environment)
        let secretKeys = SettingKey.allCases.filter(\.isSecret)  // marked for swift-configuration, too
        var layers: [(provider: any ConfigProvider, source: ConfigurationSource)] = [
            (InMemoryProvider(name: "command line", values: options.configValues), .commandLine),
            (
                KeyMappingProvider(
                    upstream: EnvironmentVariablesProvider(
                        environmentVariables: environment,
                        secretsSpecifier: .specific(Set(secretKeys.map(\.environmentVariable)))
                    ),
                    keyMapper: environmentVariableKey
                ), .environment
            ),
        ]
        if let file {
            layers.append((file.provider, .file(path: file.path)))
        }
        let defaultValues = Dictionary(
            uniqueKeysWithValues: SettingKey.allCases.map {
                ($0.absoluteKey, ConfigValue(defaults.content(of: $0), isSecret: $0.isSecret))
            }
        )
        layers.append((InMemoryProvider(name: "defaults", values: defaultValues), .builtInDefault))
        let reader = LayeredReader(layers: layers, environment: environment, file: file)

        let host = try reader.string(.host)
        guard HostAddress.isValid(host) else {
            throw .invalidValue(
                .host,
                from: reader.source(of: .host),
                value: #""\#(host)""#,
                requirement: SettingKey.host.requirement
            )
        }
        let threads = try reader.int(.threads)
        let imageWorkers = try reader.int(.imageWorkers)
        let settings = Settings(
            host: host,
            port: try reader.int(.port),
            threads: threads == 0 ? max(1, activeProcessorCount) : threads,
            itemCount: UInt64(try reader.int(.itemCount)),
            seed: UInt64(try reader.int(.seed)),
            pageLatencyMs: try reader.int(.pageLatencyMs),
            growEveryMs: try reader.int(.growEveryMs),
            latencyDistribution: try reader.choice(.latencyDistribution, of: LatencyKind.self),
            latencyMinMs: try reader.int(.latencyMinMs),
            latencyMaxMs: try reader.int(.latencyMaxMs),
            latencyFixedMs: try reader.int(.latencyFixedMs),
            latencyMedianMs: try reader.int(.latencyMedianMs),
            latencySpread: try reader.double(.latencySpread),
            cacheCapacity: try reader.int(.cacheCapacity),
            imageLatencyDistribution: try reader.choice(.imageLatencyDistribution, of: LatencyKind.self),
            imageLatencyMinMs: try reader.int(.imageLatencyMinMs),
            imageLatencyMaxMs: try reader.int(.imageLatencyMaxMs),
            imageLatencyFixedMs: try reader.int(.imageLatencyFixedMs),
            imageLatencyMedianMs: try reader.int(.imageLatencyMedianMs),
            imageLatencySpread: try reader.double(.imageLatencySpread),
            imageCacheBytes: try reader.int(.imageCacheBytes),
            imageWorkers: imageWorkers == 0 ? max(1, activeProcessorCount) : imageWorkers,
            imageQueueLimit: try reader.int(.imageQueueLimit),
            imageProgressive: try reader.bool(.imageProgressive),
            picsumEnabled: try reader.bool(.picsumEnabled),
            publicURL: try reader.parsed(.publicURL, PublicURL.init(parsing:)),
            paging: PagingSettings(defaultLimit: try reader.int(.defaultLimit), maxLimit: try reader.int(.maxLimit)),
            limits: try limits(reader),
            dataPath: try reader.string(.dataPath),
            dataSynchronous: try reader.choice(.dataSynchronous, of: DataSynchronous.self),
            dataURL: try reader.parsed(.dataURL, PostgresURL.setting(parsing:)),
            dataPoolSize: try reader.int(.dataPoolSize),
            idempotencyTTLSeconds: try reader.int(.idempotencyTTLSeconds),
            changesKept: try reader.int(.changesKept),
            maxDatasets: try reader.int(.maxDatasets),
            datasetTTLSeconds: try reader.int(.datasetTTLSeconds),
            maxDatasetBytes: try reader.int(.maxDatasetBytes),
            maxMemoryBytes: try reader.int(.maxMemoryBytes),
            heartbeatMs: try reader.int(.heartbeatMs),
            maxWaitMs: try reader.int(.maxWaitMs),
            eventBufferBytes: try reader.int(.eventBufferBytes),
            eventBufferedBytes: try reader.int(.eventBufferedBytes),
            journal: JournalSettings(
                capacity: try reader.int(.journalCapacity), maxBytes: try reader.int(.journalMaxBytes),
                maxInFlightHint: try reader.int(.journalMaxInFlightHint), maxDatasets: try reader.int(.maxDatasets) + 1),
            chat: ChatSettings(
                conversations: try reader.int(.chatConversations),
                messagesPerConversation: UInt64(try reader.int(.chatMessagesPerConversation))),
            maxDelayMs: try reader.int(.maxDelayMs),
            faultRate: try reader.double(.faultRate),
            faultKinds: try reader.parsed(.faultKinds, FaultMix.init(parsing:)),
            faultSeed: UInt64(try reader.int(.faultSeed)),
            hangMs: try reader.int(.hangMs),
            retryAfterSeconds: try reader.int(.retryAfterSeconds),
            adminToken: try reader.parsed(.adminToken, AdminToken.init(parsing:)),
            adminAllowedOrigins: try reader.parsed(.adminAllowedOrigins, CORSOrigins.init(parsing:)),
            corsAllowOrigin: try reader.parsed(.corsAllowOrigin, CORSOrigins.init(parsing:)),
            shutdownGrace: .milliseconds(try reader.int(.shutdownGraceMs)),
            metricsEnabled: try reader.bool(.metricsEnabled),
            logging: LoggingSettings(
                level: try reader.choice(.logLevel, of: Logger.Level.self),
                format: try reader.choice(.logFormat, of: LogFormat.self),
                accessLog: try reader.bool(.accessLog)),
            configFile: file?.path
        )
        guard !settings.dataPath.isEmpty else {
            throw .invalidValue(
                .dataPath,
                from: reader.source(of: .dataPath),
                value: #""""#,
                requirement: SettingKey.dataPath.requirement
            )
        }
        try requireLatencyOrder(
            settings.latencyDistribution, min: (.latencyMinMs, settings.latencyMinMs),
            median: (.latencyMedianMs, settings.latencyMedianMs), max: (.latencyMaxMs, settings.latencyMaxMs), reader)
        try requireLatencyOrder(
            settings.imageLatencyDistribution, min: (.imageLatencyMinMs, settings.imageLatencyMinMs),
            median: (.imageLatencyMedianMs, settings.imageLatencyMedianMs),
            max: (.imageLatencyMaxMs, settings.imageLatencyMaxMs), reader)
        try requireAtMost(.defaultLimit, settings.paging.defaultLimit, .maxLimit, settings.paging.maxLimit, reader)
        try requireAtMost(.maxDatasetBytes, settings.maxDatasetBytes, .maxMemoryBytes, settings.maxMemoryBytes, reader)
        try requireAtMost(
            .maxRequestLineBytes, settings.limits.maxRequestLineBytes,
            .maxHeaderBytes, settings.limits.maxHeaderBytes, reader)
        return settings
    }

    /// The relations a latency distribution's keys must keep: `min_ms <= max_ms` for `uniform`, `median_ms <=
    /// max_ms` for `lognormal`; `fixed` and `none` use neither (`store.latency.*` and `image.latency.*` alike).
    private static func requireLatencyOrder(
        _ kind: LatencyKind, min: (SettingKey, Int), median: (SettingKey, Int), max: (SettingKey, Int),
        _ reader: LayeredReader
    ) throws(ConfigurationError) {
        switch kind {
        case .uniform: try requireAtMost(min.0, min.1, max.0, max.1, reader)
        case .lognormal: try requireAtMost(median.0, median.1, max.0, max.1, reader)
        case .fixed, .none: break
        }
    }

    /// Reads the `http.max_*` and `http.*_timeout_ms` keys, each checked against its range only.
    private static func limits(_ reader: LayeredReader) throws(ConfigurationError) -> HTTPLimits {
        HTTPLimits(
            maxRequestLineBytes: try reader.int(.maxRequestLineBytes),
            maxHeaderBytes: try reader.int(.maxHeaderBytes),
            maxHeaderCount: try reader.int(.maxHeaderCount),
            maxBodyBytes: try reader.int(.maxBodyBytes),
            maxUploadBytes: try reader.int(.imageMaxUploadBytes),
            maxConnections: try reader.int(.maxConnections),
            headerTimeout: .milliseconds(try reader.int(.headerTimeoutMs)),
            idleTimeout: .milliseconds(try reader.int(.idleTimeoutMs)),
            writeTimeout: .milliseconds(try reader.int(.writeTimeoutMs)),
            bodyTimeout: .milliseconds(try reader.int(.bodyTimeoutMs)),
            minBodyRate: try reader.int(.minBodyRate),
            reservedConnections: try reader.int(.reservedConnections),
            maxOutputBytes: try reader.int(.maxOutputBytes)
        )
    }

    /// Reads the file named by `--config`, or else by `LISTSERVER_CONFIG`; `nil` when neither names one.
    private static func configurationFile(
        options: CommandLineOptions,
        environment: [String: String]
    ) async throws(ConfigurationError) -> ConfigurationFile? {
        if let path = options.config {
            return try await ConfigurationFile(path: path, namedBy: SettingKey.configFileFlag)
        }
        if let path = environment[SettingKey.configFileVariable], !path.isEmpty {
            return try await ConfigurationFile(path: path, namedBy: SettingKey.configFileVariable)
        }
        return nil
    }

    /// Maps a config key to its `LISTSERVER_*` variable; the encoder keeps such a one-component key as it is.
    @Sendable
    private static func environmentVariableKey(_ key: AbsoluteConfigKey) -> AbsoluteConfigKey {
        guard let setting = SettingKey(rawValue: key.components.joined(separator: ".")) else {
            return AbsoluteConfigKey(["listserver"] + key.components)  // not a setting: nothing reads it
        }
        return AbsoluteConfigKey([setting.environmentVariable])
    }

    /// Throws unless `value` (of `key`) is at most `limit` (of `limitKey`):
    /// `store.latency.min_ms (--latency-min-ms) = 3000 must be <= store.latency.max_ms (2000)`.
    private static func requireAtMost(
        _ key: SettingKey,
        _ value: Int,
        _ limitKey: SettingKey,
        _ limit: Int,
        _ reader: LayeredReader
    ) throws(ConfigurationError) {
        guard value <= limit else {
            throw .invalidValue(
                key,
                from: reader.source(of: key),
                value: String(value),
                requirement: "<= \(limitKey.name) (\(limit))"
            )
        }
    }
}
