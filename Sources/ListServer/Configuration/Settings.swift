import Configuration

/// Everything the server needs to start, with every value validated and `threads` resolved.
///
/// Build it with ``load(options:environment:activeProcessorCount:)``, which layers command-line flags, environment
/// variables, a JSON file and the built-in ``defaults``; the keys are listed in that method's documentation and in
/// ``SettingKey``. Tests may build one directly: `Settings(threads: 1)`.
struct Settings: Sendable, Equatable {
    /// `http.host`: the address to listen on, an IPv4/IPv6 literal or `localhost`.
    var host = "0.0.0.0"

    /// `http.port`: the TCP port to listen on; 0 lets the system pick a free one.
    var port = 8080

    /// `http.threads`: the number of event-loop threads, always at least 1 once loaded.
    ///
    /// The config value 0 means "one per active processor"; loading resolves it, so the rest of the server sees
    /// a concrete number. Only ``defaults`` holds the unresolved 0.
    var threads: Int

    /// `items.count`: how many items the list has.
    var itemCount: UInt64 = 10_000

    /// `items.seed`: the seed of the deterministic item generator.
    var seed: UInt64 = 42

    /// `store.latency.min_ms`: the shortest simulated store latency, in milliseconds.
    var latencyMinMs = 500

    /// `store.latency.max_ms`: the longest simulated store latency, in milliseconds.
    var latencyMaxMs = 2000

    /// `cache.capacity`: how many item details the cache holds.
    var cacheCapacity = 100_000

    /// `paging.default_limit` and `paging.max_limit`.
    var paging = PagingSettings(defaultLimit: 20, maxLimit: 100)

    /// `http.max_*` and `http.*_timeout_ms`: request sizes, connections and deadlines.
    var limits = HTTPLimits()

    /// `shutdown.grace_ms`: how long requests in flight get to finish after SIGTERM or SIGINT.
    var shutdownGrace = Duration.milliseconds(8000)

    /// The configuration file that was read, if any.
    var configFile: String?

    /// The built-in defaults, as configured: `threads` is 0 here ("one per active processor").
    static let defaults = Settings(threads: 0)

    /// The value of `key` in these settings, as swift-configuration content.
    ///
    /// The built-in defaults reach the `ConfigReader` through this, so the property initializers above are the one
    /// place where a default is written. Loaded settings always fit in `Int`; hand-made ones are clamped.
    func content(of key: SettingKey) -> ConfigContent {
        switch key {
        case .host: .string(host)
        case .port: .int(port)
        case .threads: .int(threads)
        case .maxRequestLineBytes: .int(limits.maxRequestLineBytes)
        case .maxHeaderBytes: .int(limits.maxHeaderBytes)
        case .maxHeaderCount: .int(limits.maxHeaderCount)
        case .maxBodyBytes: .int(limits.maxBodyBytes)
        case .maxConnections: .int(limits.maxConnections)
        case .headerTimeoutMs: .int(limits.headerTimeout.wholeMilliseconds)
        case .idleTimeoutMs: .int(limits.idleTimeout.wholeMilliseconds)
        case .writeTimeoutMs: .int(limits.writeTimeout.wholeMilliseconds)
        case .itemCount: .int(Int(clamping: itemCount))
        case .seed: .int(Int(clamping: seed))
        case .latencyMinMs: .int(latencyMinMs)
        case .latencyMaxMs: .int(latencyMaxMs)
        case .cacheCapacity: .int(cacheCapacity)
        case .defaultLimit: .int(paging.defaultLimit)
        case .maxLimit: .int(paging.maxLimit)
        case .shutdownGraceMs: .int(shutdownGrace.wholeMilliseconds)
        }
    }

    /// The value of `key` as text, unquoted, as the summary and `--help` show it: `0.0.0.0`, `8080`.
    func text(of key: SettingKey) -> String {
        switch content(of: key) {
        case .string(let text): text
        case .int(let number): String(number)
        case let other: "\(other)"  // content(of:) makes only strings and ints
        }
    }

    /// One line of `key=value` pairs for the start-up log, in table order, ending with the config file:
    /// `http.host=0.0.0.0 http.port=8080 http.threads=8 … shutdown.grace_ms=8000 config=none`.
    var summary: String {
        let pairs = SettingKey.allCases.map { "\($0.name)=\(text(of: $0))" }
        return (pairs + ["config=\(configFile ?? "none")"]).joined(separator: " ")
    }
}
