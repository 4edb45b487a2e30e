import Configuration
import ListDomain

/// Everything the server needs to start, with every value validated and `threads` resolved.
///
/// Build it with ``load(options:environment:activeProcessorCount:)``, which layers command-line flags, environment
/// variables, a JSON file and the built-in ``defaults``; the keys are ``SettingKey``'s cases, described by its table
/// (`SettingKey+Table.swift`). Each property's doc names its key. Tests may build one directly:
/// `Settings(threads: 1)`.
struct Settings: Sendable, Equatable {
    /// ``SettingKey/host``: the address to listen on, an IPv4/IPv6 literal or `localhost`.
    var host = "0.0.0.0"

    /// ``SettingKey/port``: the TCP port to listen on; 0 lets the system pick a free one.
    var port = 8080

    /// ``SettingKey/threads``: the number of event-loop threads, always at least 1 once loaded.
    ///
    /// The config value 0 means "one per active processor"; loading resolves it, so the rest of the server sees
    /// a concrete number. Only ``defaults`` holds the unresolved 0.
    var threads: Int

    /// ``SettingKey/itemCount``: how many items the list has.
    var itemCount: UInt64 = 10_000

    /// ``SettingKey/seed``: the seed of the deterministic item generator.
    var seed: UInt64 = 42

    /// ``SettingKey/pageLatencyMs``: extra latency of every list (`/items`) response, in milliseconds; 0 for none.
    var pageLatencyMs = 0

    /// ``SettingKey/growEveryMs``: the interval, in milliseconds, at which one new item joins the list; 0 means the
    /// list never grows.
    var growEveryMs = 0

    /// ``SettingKey/latencyDistribution``: the shape of the simulated store latency, and so which of the
    /// `store.latency.*` values below apply (see ``LatencyKind``).
    var latencyDistribution = LatencyKind.uniform

    /// ``SettingKey/latencyMinMs``: the shortest latency of the `uniform` distribution, in milliseconds; at most
    /// ``latencyMaxMs`` when the distribution is `uniform`.
    var latencyMinMs = 500

    /// ``SettingKey/latencyMaxMs``: the longest latency of the `uniform` distribution and the cap of the `lognormal`
    /// one, in milliseconds.
    var latencyMaxMs = 2000

    /// ``SettingKey/latencyFixedMs``: the latency of the `fixed` distribution, in milliseconds.
    var latencyFixedMs = 1000

    /// ``SettingKey/latencyMedianMs``: the median of the `lognormal` distribution, in milliseconds; at most
    /// ``latencyMaxMs`` when the distribution is `lognormal`.
    var latencyMedianMs = 800

    /// ``SettingKey/latencySpread``: the sigma of the natural logarithm of the `lognormal` latency, in 0...4.
    var latencySpread = 0.5

    /// ``SettingKey/cacheCapacity``: how many item details the cache holds.
    var cacheCapacity = 100_000

    /// `image.latency.*`: the slow store's latency for an image fetch, read like `store.latency.*`; uniform
    /// 500–1500 ms by default, as the photo list post delays its pictures.
    var imageLatencyDistribution = LatencyKind.uniform
    var imageLatencyMinMs = 500
    var imageLatencyMaxMs = 1500
    var imageLatencyFixedMs = 1000
    var imageLatencyMedianMs = 800
    var imageLatencySpread = 0.5

    /// ``SettingKey/imageCacheBytes``: the most encoded image bytes kept (64 MiB).
    var imageCacheBytes = 64 << 20

    /// ``SettingKey/imageWorkers``: threads that draw and encode images (`0` in the file or flags: one per active
    /// processor).
    var imageWorkers = 2

    /// ``SettingKey/imageQueueLimit``: the most images waiting for a worker before requests get 503.
    var imageQueueLimit = 64

    /// ``SettingKey/imageProgressive``: whether JPEGs are progressive unless a request says.
    var imageProgressive = false

    /// ``SettingKey/picsumEnabled``: whether Lorem Picsum's routes are served.
    var picsumEnabled = true

    /// ``SettingKey/publicURL``: the base of absolute URLs the server writes; none uses each request's `Host`.
    var publicURL = PublicURL.none

    /// ``SettingKey/defaultLimit`` and ``SettingKey/maxLimit``.
    var paging = PagingSettings(defaultLimit: 20, maxLimit: 100)

    /// `http.max_*` and `http.*_timeout_ms`: request sizes, connections and deadlines.
    var limits = HTTPLimits()

    /// ``SettingKey/dataPath``: the SQLite file where writes are kept, created with its folder when missing; `:memory:`
    /// keeps them only while the server runs. Never empty once loaded.
    var dataPath = "./data/listserver.sqlite"

    /// ``SettingKey/dataSynchronous``: how durable an acknowledged write is (see ``DataSynchronous``).
    var dataSynchronous = DataSynchronous.full

    /// ``SettingKey/dataURL``: the PostgreSQL database where writes are kept instead of ``dataPath``; nil for SQLite.
    /// Shown only with its password hidden.
    var dataURL: PostgresURL?

    /// ``SettingKey/dataPoolSize``: the connections to the PostgreSQL store, each on a thread of its own.
    var dataPoolSize = 4

    /// ``SettingKey/idempotencyTTLSeconds``: how long an `Idempotency-Key` and its first answer are kept, in seconds.
    var idempotencyTTLSeconds = 86_400

    /// ``SettingKey/changesKept``: how many recent changes per dataset the change feed keeps for replay.
    var changesKept = 100_000

    /// ``SettingKey/maxDatasets``: the most datasets (named lists with writes) kept at once.
    var maxDatasets = 10_000

    /// ``SettingKey/datasetTTLSeconds``: how long a dataset nobody uses is kept, in seconds; 0 keeps it for ever.
    var datasetTTLSeconds = 604_800

    /// ``SettingKey/maxDatasetBytes``: the memory one list's writes may take, both copies counted (32 MiB: some 100,000
    /// items with short labels).
    var maxDatasetBytes = 33_554_432

    /// ``SettingKey/maxMemoryBytes``: the memory the lists in memory may take together (128 MiB).
    var maxMemoryBytes = 134_217_728

    /// ``SettingKey/heartbeatMs``: the interval of the comment line that keeps an idle event stream open, in
    /// milliseconds.
    var heartbeatMs = 15_000

    /// ``SettingKey/maxWaitMs``: the longest `wait_ms` a long-poll of `/items/changes` may ask for, in milliseconds.
    var maxWaitMs = 30_000

    /// ``SettingKey/eventBufferBytes``: how many unsent bytes an event-stream subscriber may fall behind by before it
    /// is dropped: what a burst of events needs (256 KiB is some 1,000 changes of a full item).
    var eventBufferBytes = 262_144

    /// ``SettingKey/eventBufferedBytes``: how many unsent bytes all event-stream subscribers together may hold; past it
    /// the slowest are dropped first.
    var eventBufferedBytes = 67_108_864

    /// ``SettingKey/journalCapacity``, ``SettingKey/journalMaxBytes``, ``SettingKey/journalMaxInFlightHint``: the
    /// request journal's bounds and the report card's hint.
    var journal = JournalSettings()
    /// ``SettingKey/chatConversations`` and ``SettingKey/chatMessagesPerConversation``: the generated chat.
    var chat = ChatSettings()

    /// ``SettingKey/maxDelayMs``: the largest `?delay_ms` a request may ask for, in milliseconds.
    var maxDelayMs = 30_000

    /// ``SettingKey/faultRate``: the share of data requests (`/items…`) that get an injected fault, in 0...1.
    var faultRate = 0.0

    /// ``SettingKey/faultKinds``: which faults are injected and their relative weights.
    var faultKinds = FaultMix.all

    /// ``SettingKey/faultSeed``: the seed of the fault draws.
    var faultSeed: UInt64 = 1

    /// ``SettingKey/hangMs``: how long a `hang` fault holds a request before the connection is closed, in milliseconds.
    var hangMs = 10_000

    /// ``SettingKey/retryAfterSeconds``: the `Retry-After` of injected 503 and 429 answers, in seconds.
    var retryAfterSeconds = 1

    /// ``SettingKey/adminToken``: the secret the admin endpoints require; without one they accept loopback clients
    /// only. Never printed: ``summary`` shows `<set>` or `<none>`.
    var adminToken = AdminToken.none

    /// ``SettingKey/adminAllowedOrigins``: the web origins, besides the server's own, whose pages may call the admin
    /// endpoints (`.none`: only its own; `.any`: every one).
    var adminAllowedOrigins = CORSOrigins.none

    /// ``SettingKey/corsAllowOrigin``: which browser origins may read the answers.
    var corsAllowOrigin = CORSOrigins.any

    /// ``SettingKey/shutdownGraceMs``: how long requests in flight get to finish after SIGTERM or SIGINT.
    var shutdownGrace = Duration.milliseconds(8000)

    /// ``SettingKey/metricsEnabled``: whether `GET /metrics` is served and requests are measured.
    var metricsEnabled = true

    /// ``SettingKey/logLevel``, ``SettingKey/logFormat`` and ``SettingKey/accessLog``.
    var logging = LoggingSettings()

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
        case .bodyTimeoutMs: .int(limits.bodyTimeout.wholeMilliseconds)
        case .minBodyRate: .int(limits.minBodyRate)
        case .reservedConnections: .int(limits.reservedConnections)
        case .maxOutputBytes: .int(limits.maxOutputBytes)
        case .itemCount: .int(Int(clamping: itemCount))
        case .seed: .int(Int(clamping: seed))
        case .pageLatencyMs: .int(pageLatencyMs)
        case .growEveryMs: .int(growEveryMs)
        case .latencyDistribution: .string(latencyDistribution.rawValue)
        case .latencyMinMs: .int(latencyMinMs)
        case .latencyMaxMs: .int(latencyMaxMs)
        case .latencyFixedMs: .int(latencyFixedMs)
        case .latencyMedianMs: .int(latencyMedianMs)
        case .latencySpread: .double(latencySpread)
        case .cacheCapacity: .int(cacheCapacity)
        case .imageLatencyDistribution: .string(imageLatencyDistribution.rawValue)
        case .imageLatencyMinMs: .int(imageLatencyMinMs)
        case .imageLatencyMaxMs: .int(imageLatencyMaxMs)
        case .imageLatencyFixedMs: .int(imageLatencyFixedMs)
        case .imageLatencyMedianMs: .int(imageLatencyMedianMs)
        case .imageLatencySpread: .double(imageLatencySpread)
        case .imageCacheBytes: .int(imageCacheBytes)
        case .imageWorkers: .int(imageWorkers)
        case .imageQueueLimit: .int(imageQueueLimit)
        case .imageMaxUploadBytes: .int(limits.maxUploadBytes)
        case .imageProgressive: .bool(imageProgressive)
        case .picsumEnabled: .bool(picsumEnabled)
        case .publicURL: .string(publicURL.text)
        case .defaultLimit: .int(paging.defaultLimit)
        case .maxLimit: .int(paging.maxLimit)
        case .dataPath: .string(dataPath)
        case .dataSynchronous: .string(dataSynchronous.rawValue)
        case .dataURL: .string(dataURL?.value ?? "")
        case .dataPoolSize: .int(dataPoolSize)
        case .idempotencyTTLSeconds: .int(idempotencyTTLSeconds)
        case .changesKept: .int(changesKept)
        case .maxDatasets: .int(maxDatasets)
        case .datasetTTLSeconds: .int(datasetTTLSeconds)
        case .maxDatasetBytes: .int(maxDatasetBytes)
        case .maxMemoryBytes: .int(maxMemoryBytes)
        case .heartbeatMs: .int(heartbeatMs)
        case .maxWaitMs: .int(maxWaitMs)
        case .eventBufferBytes: .int(eventBufferBytes)
        case .eventBufferedBytes: .int(eventBufferedBytes)
        case .journalCapacity: .int(journal.capacity)
        case .journalMaxBytes: .int(journal.maxBytes)
        case .journalMaxInFlightHint: .int(journal.maxInFlightHint)
        case .chatConversations: .int(chat.conversations)
        case .chatMessagesPerConversation: .int(Int(chat.messagesPerConversation))
        case .maxDelayMs: .int(maxDelayMs)
        case .faultRate: .double(faultRate)
        case .faultKinds: .string(faultKinds.text)
        case .faultSeed: .int(Int(clamping: faultSeed))
        case .hangMs: .int(hangMs)
        case .retryAfterSeconds: .int(retryAfterSeconds)
        case .adminToken: .string(adminToken.value)
        case .corsAllowOrigin: .string(corsAllowOrigin.text)
        case .adminAllowedOrigins: .string(adminAllowedOrigins.text)
        case .shutdownGraceMs: .int(shutdownGrace.wholeMilliseconds)
        case .metricsEnabled: .bool(metricsEnabled)
        case .logLevel: .string(logging.level.rawValue)
        case .logFormat: .string(logging.format.rawValue)
        case .accessLog: .bool(logging.accessLog)
        }
    }

    /// The value of `key` as text, unquoted, as the summary and `--help` show it: `0.0.0.0`, `8080`, `0.5`, `true`;
    /// a secret only as `<set>` or `<none>`.
    func text(of key: SettingKey) -> String {
        if key == .dataURL, let dataURL {
            return dataURL.redacted
        }
        if key.isSecret, case .string(let secret) = content(of: key) {
            return secret.isEmpty ? "<none>" : "<set>"
        }
        return switch content(of: key) {
        case .string(let text): text
        case .int(let number): String(number)
        case .double(let number): number.settingText
        case .bool(let flag): String(flag)
        case let other: "\(other)"  // content(of:) makes only strings, numbers and Booleans
        }
    }

    /// One line of `key=value` pairs for the start-up log, in table order, ending with the config file:
    /// `http.host=0.0.0.0 http.port=8080 http.threads=8 … admin.token=<none> … log.access=true config=none`.
    var summary: String {
        let pairs = SettingKey.allCases.map { "\($0.name)=\(text(of: $0))" }
        return (pairs + ["config=\(configFile ?? "none")"]).joined(separator: " ")
    }
}
