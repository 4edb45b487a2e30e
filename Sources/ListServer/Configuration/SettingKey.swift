import Configuration

/// One configurable setting: its config key, command-line flag, environment variable and allowed range.
///
/// This enum is the configuration table of the README in code form: the flags of ``CommandLineOptions``, the
/// environment mapping and the messages of ``ConfigurationError`` all come from here, so they cannot drift apart.
/// Default values live in ``Settings/defaults``.
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
    case itemCount = "items.count"
    case seed = "items.seed"
    case latencyMinMs = "store.latency.min_ms"
    case latencyMaxMs = "store.latency.max_ms"
    case cacheCapacity = "cache.capacity"
    case defaultLimit = "paging.default_limit"
    case maxLimit = "paging.max_limit"
    case shutdownGraceMs = "shutdown.grace_ms"

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

    /// The static range of an integer setting; `nil` for the host, which is a string.
    ///
    /// Relations between keys (`min_ms <= max_ms`, `default_limit <= max_limit`,
    /// `max_request_line_bytes <= max_header_bytes`) are checked in ``Settings/load``.
    var bounds: ClosedRange<Int>? { row.bounds }

    /// The placeholder for the value in `--help`: `<ms>`.
    var valueName: String { row.valueName }

    /// What the setting means, one sentence for `--help` and the README table.
    var meaning: String { row.meaning }

    /// The requirement a value must meet, as error messages and `--help` state it: `0...65535`.
    var requirement: String {
        switch self {
        case .host: #"an IPv4/IPv6 literal or "localhost""#
        case .defaultLimit: "in 1...\(SettingKey.maxLimit.name)"
        default: bounds.map { "in \($0.lowerBound)...\($0.upperBound)" } ?? ""
        }
    }

    /// The row of the table for this key.
    private var row: (flag: String, environment: String, bounds: ClosedRange<Int>?, valueName: String, meaning: String)
    {
        switch self {
        case .host:
            ("host", "LISTSERVER_HOST", nil, "address", "Address to listen on.")
        case .port:
            ("port", "LISTSERVER_PORT", 0...65_535, "port", "TCP port to listen on; 0 picks any free port.")
        case .threads:
            ("threads", "LISTSERVER_THREADS", 0...256, "n", "Event-loop threads; 0 means one per active processor.")
        case .maxRequestLineBytes:
            (
                "max-request-line-bytes", "LISTSERVER_MAX_REQUEST_LINE_BYTES", 64...1_048_576, "bytes",
                "Longest request line; a longer one gets 414."
            )
        case .maxHeaderBytes:
            (
                "max-header-bytes", "LISTSERVER_MAX_HEADER_BYTES", 256...1_048_576, "bytes",
                "Longest request head (request line, header lines, line endings); a longer one gets 431."
            )
        case .maxHeaderCount:
            (
                "max-header-count", "LISTSERVER_MAX_HEADER_COUNT", 1...1000, "n",
                "Most header fields in a request; more get 431."
            )
        case .maxBodyBytes:
            (
                "max-body-bytes", "LISTSERVER_MAX_BODY_BYTES", 0...16_777_216, "bytes",
                "Largest Content-Length accepted; a larger one gets 413."
            )
        case .maxConnections:
            (
                "max-connections", "LISTSERVER_MAX_CONNECTIONS", 1...1_000_000, "n",
                "Most client connections open at once."
            )
        case .headerTimeoutMs:
            (
                "header-timeout-ms", "LISTSERVER_HEADER_TIMEOUT_MS", 100...3_600_000, "ms",
                "Time a client has to send a whole request head; then 408 and close."
            )
        case .idleTimeoutMs:
            (
                "idle-timeout-ms", "LISTSERVER_IDLE_TIMEOUT_MS", 100...3_600_000, "ms",
                "Time an idle keep-alive connection stays open."
            )
        case .writeTimeoutMs:
            (
                "write-timeout-ms", "LISTSERVER_WRITE_TIMEOUT_MS", 100...3_600_000, "ms",
                "Time a client may take to read a response before it is dropped."
            )
        case .itemCount:
            ("item-count", "LISTSERVER_ITEM_COUNT", 0...(1 << 53), "n", "Number of items in the list.")
        case .seed:
            ("seed", "LISTSERVER_SEED", 0...Int(Int64.max), "n", "Seed of the deterministic item generator.")
        case .latencyMinMs:
            ("latency-min-ms", "LISTSERVER_LATENCY_MIN_MS", 0...600_000, "ms", "Shortest simulated store latency.")
        case .latencyMaxMs:
            ("latency-max-ms", "LISTSERVER_LATENCY_MAX_MS", 0...600_000, "ms", "Longest simulated store latency.")
        case .cacheCapacity:
            ("cache-capacity", "LISTSERVER_CACHE_CAPACITY", 1...10_000_000, "n", "Item details the cache holds.")
        case .defaultLimit:
            ("default-limit", "LISTSERVER_DEFAULT_LIMIT", 1...10_000, "n", "Page size when a request gives no limit.")
        case .maxLimit:
            ("max-limit", "LISTSERVER_MAX_LIMIT", 1...10_000, "n", "Largest page size a request may ask for.")
        case .shutdownGraceMs:
            (
                "shutdown-grace-ms", "LISTSERVER_SHUTDOWN_GRACE_MS", 0...600_000, "ms",
                "Time requests in flight get to finish after SIGTERM/SIGINT; what is left then gets 503."
            )
        }
    }
}
