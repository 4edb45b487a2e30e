import Configuration
import Logging

/// One configurable setting: its config key, command-line flag, environment variable and allowed range.
///
/// This enum is the configuration table of the README in code form: the flags of ``CommandLineOptions``, the
/// environment mapping and the messages of ``ConfigurationError`` all come from here, so they cannot drift apart.
/// The rows themselves are in `SettingKey+Table.swift`; default values live in ``Settings/defaults``.
enum SettingKey: String, CaseIterable, Sendable {
    case host = "http.host"
    case port = "http.port"
    case threads = "http.threads"
    case maxRequestLineBytes = "http.max_request_line_bytes"
    case maxHeaderBytes = "http.max_header_bytes"
    case maxHeaderCount = "http.max_header_count"
    case maxBodyBytes = "http.max_body_bytes"
    case maxConnections = "http.max_connections"
    case headerTimeoutMs = "http.header_timeout_ms"
    case idleTimeoutMs = "http.idle_timeout_ms"
    case writeTimeoutMs = "http.write_timeout_ms"
    case bodyTimeoutMs = "http.body_timeout_ms"
    case minBodyRate = "http.min_body_rate"
    case reservedConnections = "http.reserved_connections"
    case maxOutputBytes = "http.max_output_bytes"
    case itemCount = "items.count"
    case seed = "items.seed"
    case pageLatencyMs = "items.latency_ms"
    case growEveryMs = "items.grow_every_ms"
    case latencyDistribution = "store.latency.distribution"
    case latencyMinMs = "store.latency.min_ms"
    case latencyMaxMs = "store.latency.max_ms"
    case latencyFixedMs = "store.latency.fixed_ms"
    case latencyMedianMs = "store.latency.median_ms"
    case latencySpread = "store.latency.spread"
    case cacheCapacity = "cache.capacity"
    case imageLatencyDistribution = "image.latency.distribution"
    case imageLatencyMinMs = "image.latency.min_ms"
    case imageLatencyMaxMs = "image.latency.max_ms"
    case imageLatencyFixedMs = "image.latency.fixed_ms"
    case imageLatencyMedianMs = "image.latency.median_ms"
    case imageLatencySpread = "image.latency.spread"
    case imageCacheBytes = "image.cache_bytes"
    case imageWorkers = "image.workers"
    case imageQueueLimit = "image.queue_limit"
    case imageMaxUploadBytes = "image.max_upload_bytes"
    case imageProgressive = "image.progressive"
    case picsumEnabled = "picsum.enabled"
    case publicURL = "server.public_url"
    case defaultLimit = "paging.default_limit"
    case maxLimit = "paging.max_limit"
    case dataPath = "data.path"
    case dataSynchronous = "data.synchronous"
    case dataURL = "data.url"
    case dataPoolSize = "data.pool_size"
    case idempotencyTTLSeconds = "data.idempotency_ttl_s"
    case changesKept = "data.changes_kept"
    case maxDatasets = "data.max_datasets"
    case datasetTTLSeconds = "data.dataset_ttl_s"
    case maxDatasetBytes = "data.max_dataset_bytes"
    case maxMemoryBytes = "data.max_memory_bytes"
    case heartbeatMs = "events.heartbeat_ms"
    case maxWaitMs = "events.max_wait_ms"
    case eventBufferBytes = "events.max_buffer_bytes"
    case eventBufferedBytes = "events.max_buffered_bytes"
    case journalCapacity = "journal.capacity"
    case journalMaxBytes = "journal.max_bytes"
    case journalMaxInFlightHint = "journal.max_in_flight_hint"
    case chatConversations = "chat.conversations"
    case chatMessagesPerConversation = "chat.messages_per_conversation"
    case maxDelayMs = "delay.max_ms"
    case faultRate = "faults.rate"
    case faultKinds = "faults.kinds"
    case faultSeed = "faults.seed"
    case hangMs = "faults.hang_ms"
    case retryAfterSeconds = "faults.retry_after_s"
    case adminToken = "admin.token"
    case adminAllowedOrigins = "admin.allowed_origins"
    case corsAllowOrigin = "cors.allow_origin"
    case shutdownGraceMs = "shutdown.grace_ms"
    case metricsEnabled = "metrics.enabled"
    case logLevel = "log.level"
    case logFormat = "log.format"
    case accessLog = "log.access"

    /// The environment variable that names the JSON configuration file.
    static let configFileVariable = "LISTSERVER_CONFIG"

    /// The command-line flag that names the JSON configuration file.
    static let configFileFlag = "--config"

    /// The dotted config key, as written in the JSON file (nested) and in error messages: `store.latency.min_ms`.
    var name: String { rawValue }

    /// The key as swift-configuration spells it: `["store", "latency", "min_ms"]`.
    var configKey: ConfigKey { ConfigKey(name) }

    /// The key as providers see it.
    var absoluteKey: AbsoluteConfigKey { AbsoluteConfigKey(configKey) }

    /// The long command-line flag without its dashes: `latency-min-ms`.
    var flagName: String { row.flag }

    /// The command-line flag as typed: `--latency-min-ms`.
    var flag: String { "--\(row.flag)" }

    /// The environment variable that sets this key: `LISTSERVER_LATENCY_MIN_MS`.
    var environmentVariable: String { row.environment }

    /// The static range of an integer setting; `nil` for the other kinds.
    ///
    /// Relations between keys are checked in ``Settings/load(options:environment:activeProcessorCount:)``:
    /// `default_limit <= max_limit` and `max_request_line_bytes <= max_header_bytes` always, `min_ms <= max_ms` only
    /// for the `uniform` latency distribution and `median_ms <= max_ms` only for `lognormal`, the keys each uses.
    var bounds: ClosedRange<Int>? { row.bounds }

    /// The static range of a setting that may have a fractional part; `nil` for the other kinds.
    var fractionalBounds: ClosedRange<Double>? {
        switch self {
        case .latencySpread, .imageLatencySpread: 0...4
        case .faultRate: 0...1
        default: nil
        }
    }

    /// The kinds of value a setting can have.
    enum ValueKind: Sendable {
        /// A whole number: a JSON number without a fraction, a decimal integer in the environment.
        case integer
        /// A finite number: any JSON number, a decimal such as `0.3` in the environment.
        case double
        /// Text, checked by a rule of its own.
        case string
        /// `true` or `false`.
        case boolean
    }

    /// What kind of value this setting takes.
    var valueKind: ValueKind {
        switch self {
        case .host, .logLevel, .logFormat, .latencyDistribution, .imageLatencyDistribution, .faultKinds, .adminToken,
            .corsAllowOrigin, .adminAllowedOrigins, .dataPath, .dataSynchronous, .dataURL, .publicURL:
            .string
        case .metricsEnabled, .accessLog, .picsumEnabled, .imageProgressive: .boolean
        case .latencySpread, .imageLatencySpread, .faultRate: .double
        default: .integer
        }
    }

    /// Whether the value is a secret: never printed in the summary, in `--help` or in an error message.
    /// `data.url` holds one (its password): the summary shows it with the password hidden
    /// (``PostgresURL/redacted``), an error message not at all.
    var isSecret: Bool { self == .adminToken || self == .dataURL }

    /// The placeholder for the value in `--help`: `<ms>`.
    var valueName: String { row.valueName }

    /// What the setting means, one sentence for `--help` and the README table.
    var meaning: String { row.meaning }

    /// The requirement a value must meet, as error messages and `--help` state it: `0...65535`.
    var requirement: String {
        switch self {
        case .host: #"an IPv4/IPv6 literal or "localhost""#
        case .defaultLimit: "in 1...\(SettingKey.maxLimit.name)"
        case .logLevel: "one of " + Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")
        case .logFormat: "one of " + LogFormat.allCases.map(\.rawValue).joined(separator: ", ")
        case .latencyDistribution, .imageLatencyDistribution:
            "one of " + LatencyKind.allCases.map(\.rawValue).joined(separator: ", ")
        case .dataPath: "a non-empty path"
        case .dataSynchronous: "one of " + DataSynchronous.allCases.map(\.rawValue).joined(separator: ", ")
        case .dataURL: "empty, or postgres://[user[:password]@]host[:port]/database[?parameters]"
        case .faultKinds: "a comma-separated list of kind[:weight]"
        case .adminToken: "empty or \(AdminToken.lengths) visible ASCII characters (0x21...0x7E)"
        case .corsAllowOrigin: "*, empty, or a comma-separated list of http(s)://host[:port]"
        case .adminAllowedOrigins: "empty, *, or a comma-separated list of http(s)://host[:port]"
        case .metricsEnabled, .accessLog, .picsumEnabled, .imageProgressive: "true or false"
        case .publicURL: "empty, or http(s)://host[:port] with an optional path"
        default:
            if let bounds = fractionalBounds {
                "in \(bounds.lowerBound.settingText)...\(bounds.upperBound.settingText)"
            } else {
                bounds.map { "in \($0.lowerBound)...\($0.upperBound)" } ?? ""
            }
        }
    }
}

extension Double {
    /// The number as settings show it: whole numbers without a fraction (`0`, `1`), others as Swift prints them
    /// (`0.5`), so the summary, the messages and the JSON file agree.
    var settingText: String {
        if let whole = Int(exactly: self), abs(whole) < 1 << 53 {
            return String(whole)
        }
        return String(self)
    }
}
