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
    case itemCount = "items.count"
    case seed = "items.seed"
    case latencyMinMs = "store.latency.min_ms"
    case latencyMaxMs = "store.latency.max_ms"
    case cacheCapacity = "cache.capacity"
    case defaultLimit = "paging.default_limit"
    case maxLimit = "paging.max_limit"

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
    /// Relations between keys (`min_ms <= max_ms`, `default_limit <= max_limit`) are checked in ``Settings/load``.
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
        }
    }
}
