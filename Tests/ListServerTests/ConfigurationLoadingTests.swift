import Foundation
import Testing

@testable import ListServer

/// Loading settings: defaults, precedence per key, the environment names of the table, the shipped file.
@Suite("Configuration: loading and precedence")
struct ConfigurationLoadingTests {
    typealias Support = ConfigurationTestSupport

    /// Where this test writes its JSON files.
    let temporary = TemporaryDirectory()

    /// The environment variable of every key, exactly as the README table spells it.
    static let tableEnvironmentNames: [SettingKey: String] = [
        .host: "LISTSERVER_HOST", .port: "LISTSERVER_PORT", .threads: "LISTSERVER_THREADS",
        .maxRequestLineBytes: "LISTSERVER_MAX_REQUEST_LINE_BYTES", .maxHeaderBytes: "LISTSERVER_MAX_HEADER_BYTES",
        .maxHeaderCount: "LISTSERVER_MAX_HEADER_COUNT", .maxBodyBytes: "LISTSERVER_MAX_BODY_BYTES",
        .maxConnections: "LISTSERVER_MAX_CONNECTIONS", .headerTimeoutMs: "LISTSERVER_HEADER_TIMEOUT_MS",
        .idleTimeoutMs: "LISTSERVER_IDLE_TIMEOUT_MS", .writeTimeoutMs: "LISTSERVER_WRITE_TIMEOUT_MS",
        .itemCount: "LISTSERVER_ITEM_COUNT", .seed: "LISTSERVER_SEED",
        .latencyMinMs: "LISTSERVER_LATENCY_MIN_MS", .latencyMaxMs: "LISTSERVER_LATENCY_MAX_MS",
        .cacheCapacity: "LISTSERVER_CACHE_CAPACITY", .defaultLimit: "LISTSERVER_DEFAULT_LIMIT",
        .maxLimit: "LISTSERVER_MAX_LIMIT", .shutdownGraceMs: "LISTSERVER_SHUTDOWN_GRACE_MS",
        .chatConversations: "LISTSERVER_CHAT_CONVERSATIONS",
        .chatMessagesPerConversation: "LISTSERVER_CHAT_MESSAGES_PER_CONVERSATION",
        .metricsEnabled: "LISTSERVER_METRICS", .logLevel: "LISTSERVER_LOG_LEVEL",
        .logFormat: "LISTSERVER_LOG_FORMAT", .accessLog: "LISTSERVER_ACCESS_LOG",
        .latencyDistribution: "LISTSERVER_LATENCY_DISTRIBUTION", .latencyFixedMs: "LISTSERVER_LATENCY_FIXED_MS",
        .latencyMedianMs: "LISTSERVER_LATENCY_MEDIAN_MS", .latencySpread: "LISTSERVER_LATENCY_SPREAD",
        .pageLatencyMs: "LISTSERVER_PAGE_LATENCY_MS", .growEveryMs: "LISTSERVER_GROW_EVERY_MS",
        .maxDelayMs: "LISTSERVER_MAX_DELAY_MS", .faultRate: "LISTSERVER_FAULT_RATE",
        .faultKinds: "LISTSERVER_FAULT_KINDS", .faultSeed: "LISTSERVER_FAULT_SEED", .hangMs: "LISTSERVER_HANG_MS",
        .retryAfterSeconds: "LISTSERVER_RETRY_AFTER_S", .adminToken: "LISTSERVER_ADMIN_TOKEN",
        .corsAllowOrigin: "LISTSERVER_CORS_ALLOW_ORIGIN", .dataPath: "LISTSERVER_DATA_PATH",
        .dataSynchronous: "LISTSERVER_DATA_SYNCHRONOUS", .dataURL: "LISTSERVER_DATA_URL",
        .dataPoolSize: "LISTSERVER_DATA_POOL_SIZE", .idempotencyTTLSeconds: "LISTSERVER_IDEMPOTENCY_TTL_S",
        .changesKept: "LISTSERVER_CHANGES_KEPT", .heartbeatMs: "LISTSERVER_HEARTBEAT_MS",
        .maxWaitMs: "LISTSERVER_MAX_WAIT_MS", .eventBufferBytes: "LISTSERVER_EVENT_BUFFER_BYTES",
        .imageLatencyDistribution: "LISTSERVER_IMAGE_LATENCY_DISTRIBUTION",
        .imageLatencyMinMs: "LISTSERVER_IMAGE_LATENCY_MIN_MS", .imageLatencyMaxMs: "LISTSERVER_IMAGE_LATENCY_MAX_MS",
        .imageLatencyFixedMs: "LISTSERVER_IMAGE_LATENCY_FIXED_MS",
        .imageLatencyMedianMs: "LISTSERVER_IMAGE_LATENCY_MEDIAN_MS",
        .imageLatencySpread: "LISTSERVER_IMAGE_LATENCY_SPREAD", .imageCacheBytes: "LISTSERVER_IMAGE_CACHE_BYTES",
        .imageWorkers: "LISTSERVER_IMAGE_WORKERS", .imageQueueLimit: "LISTSERVER_IMAGE_QUEUE_LIMIT",
        .imageMaxUploadBytes: "LISTSERVER_IMAGE_MAX_UPLOAD_BYTES",
        .imageProgressive: "LISTSERVER_IMAGE_PROGRESSIVE",
        .picsumEnabled: "LISTSERVER_PICSUM", .publicURL: "LISTSERVER_PUBLIC_URL",
        .bodyTimeoutMs: "LISTSERVER_BODY_TIMEOUT_MS", .minBodyRate: "LISTSERVER_MIN_BODY_RATE",
        .reservedConnections: "LISTSERVER_RESERVED_CONNECTIONS", .maxDatasets: "LISTSERVER_MAX_DATASETS",
        .datasetTTLSeconds: "LISTSERVER_DATASET_TTL_S", .eventBufferedBytes: "LISTSERVER_EVENT_BUFFERED_BYTES",
        .adminAllowedOrigins: "LISTSERVER_ADMIN_ALLOWED_ORIGINS",
        .maxDatasetBytes: "LISTSERVER_MAX_DATASET_BYTES", .maxMemoryBytes: "LISTSERVER_MAX_MEMORY_BYTES",
        .maxOutputBytes: "LISTSERVER_MAX_OUTPUT_BYTES", .journalCapacity: "LISTSERVER_JOURNAL_CAPACITY",
        .journalMaxBytes: "LISTSERVER_JOURNAL_MAX_BYTES",
        .journalMaxInFlightHint: "LISTSERVER_JOURNAL_MAX_IN_FLIGHT_HINT",
    ]

    /// A valid value for every key, in three variants so layers can be told apart: each differs from the default
    /// (a Boolean and `data.synchronous` have only one other value, so their variants alternate and still tell
    /// neighbouring layers apart).
    static func value(_ key: SettingKey, variant: Int) -> String {
        switch key {
        case .host: ["127.0.0.1", "::1", "localhost"][variant]
        case .port: String(9001 + variant)
        case .threads: String(2 + variant)
        case .maxRequestLineBytes: String(4000 + variant)
        case .maxHeaderBytes: String(9000 + variant)
        case .maxHeaderCount: String(10 + variant)
        case .maxBodyBytes: String(variant)
        case .maxConnections: String(64 + variant)
        case .headerTimeoutMs: String(1500 + variant)
        case .idleTimeoutMs: String(2500 + variant)
        case .writeTimeoutMs: String(3500 + variant)
        case .bodyTimeoutMs: String(4500 + variant)
        case .minBodyRate: String(variant)
        case .reservedConnections: String(2 + variant)
        case .maxOutputBytes: String(2_000_000 + variant)
        case .maxDatasets: String(100 + variant)
        case .datasetTTLSeconds: String(variant)
        case .maxDatasetBytes: String(1_000_000 + variant)
        case .maxMemoryBytes: String(200_000_000 + variant)
        case .eventBufferedBytes: String(1_000_000 + variant)
        case .journalCapacity: String(100 + variant)
        case .journalMaxBytes: String(2_000_000 + variant)
        case .journalMaxInFlightHint: String(4 + variant)
        case .chatConversations: String(10 + variant)
        case .chatMessagesPerConversation: String(1000 + variant)
        case .adminAllowedOrigins: ["https://a.example", "*", "http://localhost:3000,https://b.example:8443"][variant]
        case .itemCount: String(500 + variant)
        case .seed: String(7 + variant)
        case .latencyMinMs: String(10 + variant)
        case .latencyMaxMs: String(3000 + variant)
        case .cacheCapacity: String(50 + variant)
        case .defaultLimit: String(5 + variant)
        case .maxLimit: String(200 + variant)
        case .shutdownGraceMs: String(variant)
        case .metricsEnabled, .accessLog: ["false", "true", "false"][variant]
        case .logLevel: ["debug", "warning", "trace"][variant]
        case .logFormat: ["json", "text", "json"][variant]
        case .pageLatencyMs: String(100 + variant)
        case .growEveryMs: String(1000 + variant)
        case .latencyDistribution: ["fixed", "lognormal", "none"][variant]
        case .latencyFixedMs: String(20 + variant)
        case .latencyMedianMs: String(900 + variant)
        case .latencySpread: ["0.25", "1.5", "3"][variant]
        case .maxDelayMs: String(variant)
        case .faultRate: ["0.1", "0.5", "1"][variant]
        case .faultKinds: ["503:3,500,reset", "hang", "429:2,truncated"][variant]
        case .faultSeed: String(100 + variant)
        case .hangMs: String(50 + variant)
        case .retryAfterSeconds: String(5 + variant)
        case .adminToken: ["flag-token", "env-token", "file~token!"][variant]
        case .corsAllowOrigin: ["https://a.example", "", "http://localhost:3000,https://b.example:8443"][variant]
        case .dataPath: ["flag.sqlite", "/var/lib/listserver/env.sqlite", ":memory:"][variant]
        case .dataSynchronous: ["normal", "full", "normal"][variant]
        case .dataURL:
            ["postgres://flag:pw@db/lists", "postgresql://env@127.0.0.1:5433/x", "postgres://[::1]/y?sslmode=disable"][
                variant]
        case .dataPoolSize: String(5 + variant)
        case .idempotencyTTLSeconds: String(3600 + variant)
        case .changesKept: String(10 + variant)
        case .heartbeatMs: String(1000 + variant)
        case .maxWaitMs: String(variant)
        case .eventBufferBytes: String(8192 + variant)
        case .imageLatencyDistribution: ["fixed", "lognormal", "none"][variant]
        case .imageLatencyMinMs: String(10 + variant)
        case .imageLatencyMaxMs: String(3000 + variant)
        case .imageLatencyFixedMs: String(30 + variant)
        case .imageLatencyMedianMs: String(700 + variant)
        case .imageLatencySpread: ["0.25", "1.5", "3"][variant]
        case .imageCacheBytes: String(1000 + variant)
        case .imageWorkers: String(1 + variant)
        case .imageQueueLimit: String(8 + variant)
        case .imageMaxUploadBytes: String(1_000_000 + variant)
        case .picsumEnabled: ["false", "true", "false"][variant]
        case .imageProgressive: ["true", "false", "true"][variant]
        case .publicURL: ["https://photos.example", "http://127.0.0.1:8080/base", "http://[::1]:9000"][variant]
        }
    }

    /// A JSON file body holding `key` with the file variant of its value.
    static func fileJSON(_ key: SettingKey) -> String {
        let raw = value(key, variant: 2)
        return Support.fileJSON(key, json: key.valueKind == .string ? #""\#(raw)""# : raw)
    }

    @Test func nothingGivenYieldsTheDefaultsWithThreadsResolved() async throws {
        let settings = try await Support.load()
        #expect(settings == Support.resolvedDefaults)
        #expect(settings.threads == Support.processorCount)
        #expect(settings.configFile == nil)
    }

    @Test func theEnvironmentNamesAreExactlyThoseOfTheTable() async throws {
        #expect(Set(Self.tableEnvironmentNames.keys) == Set(SettingKey.allCases))
        for key in SettingKey.allCases {
            #expect(key.environmentVariable == Self.tableEnvironmentNames[key])
            let environment = [Self.tableEnvironmentNames[key]!: Self.value(key, variant: 1)]
            let settings = try await Support.load(environment: environment)
            #expect(Support.valueText(of: key, in: settings) == Self.value(key, variant: 1), "\(key.name)")
        }
        #expect(SettingKey.configFileVariable == "LISTSERVER_CONFIG")
    }

    @Test(arguments: SettingKey.allCases)
    func flagBeatsEnvironmentBeatsFileBeatsDefault(_ key: SettingKey) async throws {
        let path = try temporary.file(Self.fileJSON(key))
        let flag = Support.flagArguments(key, Self.value(key, variant: 0))
        let environment = [key.environmentVariable: Self.value(key, variant: 1)]
        let fileOnly = [SettingKey.configFileVariable: path]

        let all = try await Support.load(flag, environment: environment.merging(fileOnly) { $1 })
        #expect(Support.valueText(of: key, in: all) == Self.value(key, variant: 0))
        let noFlag = try await Support.load(environment: environment.merging(fileOnly) { $1 })
        #expect(Support.valueText(of: key, in: noFlag) == Self.value(key, variant: 1))
        let onlyFile = try await Support.load(environment: fileOnly)
        #expect(Support.valueText(of: key, in: onlyFile) == Self.value(key, variant: 2))
        #expect(onlyFile.configFile == path)
        let none = try await Support.load()
        #expect(none == Support.resolvedDefaults)
    }

    @Test func precedenceIsPerKey() async throws {
        let path = try temporary.file(#"{"http": {"port": 7003, "threads": 3}, "items": {"seed": 99}}"#)
        let settings = try await Support.load(
            ["--port", "7001", "--config", path],
            environment: ["LISTSERVER_THREADS": "2", "LISTSERVER_SEED": "5", "LISTSERVER_ITEM_COUNT": "77"]
        )
        #expect(settings.port == 7001)  // flag over file
        #expect(settings.threads == 2)  // environment over file
        #expect(settings.seed == 5)  // environment over file
        #expect(settings.itemCount == 77)  // environment over default
        #expect(settings.host == "0.0.0.0")  // default
        #expect(settings.configFile == path)
    }

    @Test func configFlagBeatsConfigVariable() async throws {
        let flagged = try temporary.file(#"{"http": {"port": 1111}}"#)
        let variable = try temporary.file(#"{"http": {"port": 2222}}"#)
        let settings = try await Support.load(["--config", flagged], environment: ["LISTSERVER_CONFIG": variable])
        #expect(settings.port == 1111)
        #expect(settings.configFile == flagged)
    }

    @Test func anEmptyConfigVariableMeansNoFile() async throws {
        let settings = try await Support.load(environment: ["LISTSERVER_CONFIG": ""])
        #expect(settings == Support.resolvedDefaults)
    }

    @Test func explicitThreadsAreKeptAndZeroMeansProcessors() async throws {
        #expect(try await Support.load(["--threads", "3"]).threads == 3)
        #expect(try await Support.load(["--threads", "0"]).threads == Support.processorCount)
    }

    @Test func edgesOfTheRangesAreAccepted() async throws {
        let settings = try await Support.load([
            "--port", "0", "--item-count", "9007199254740992", "--seed", "9223372036854775807",
            "--latency-min-ms", "600000", "--latency-max-ms", "600000", "--cache-capacity", "10000000",
            "--default-limit", "10000", "--max-limit", "10000", "--threads", "256",
            "--max-request-line-bytes", "1048576", "--max-header-bytes", "1048576", "--max-header-count", "1000",
            "--max-body-bytes", "16777216", "--max-connections", "1000000", "--header-timeout-ms", "3600000",
            "--idle-timeout-ms", "3600000", "--write-timeout-ms", "3600000", "--shutdown-grace-ms", "600000",
        ])
        #expect(
            settings.limits
                == HTTPLimits(
                    maxRequestLineBytes: 1_048_576, maxHeaderBytes: 1_048_576, maxHeaderCount: 1000,
                    maxBodyBytes: 16_777_216, maxConnections: 1_000_000, headerTimeout: .seconds(3600),
                    idleTimeout: .seconds(3600), writeTimeout: .seconds(3600)))
        #expect(settings.shutdownGrace == .seconds(600))
        let lowest = try await Support.load([
            "--max-request-line-bytes", "64", "--max-header-bytes", "256", "--max-header-count", "1",
            "--max-body-bytes", "0", "--max-connections", "1", "--header-timeout-ms", "100",
            "--idle-timeout-ms", "100", "--write-timeout-ms", "100", "--shutdown-grace-ms", "0",
        ])
        #expect(
            lowest.limits
                == HTTPLimits(
                    maxRequestLineBytes: 64, maxHeaderBytes: 256, maxHeaderCount: 1, maxBodyBytes: 0,
                    maxConnections: 1, headerTimeout: .milliseconds(100), idleTimeout: .milliseconds(100),
                    writeTimeout: .milliseconds(100)))
        #expect(lowest.shutdownGrace == .zero)
        #expect(settings.itemCount == 1 << 53)
        #expect(settings.seed == UInt64(Int64.max))
        #expect(settings.paging == PagingSettings(defaultLimit: 10_000, maxLimit: 10_000))
    }

    @Test func theShippedFileHoldsEveryKeyAndEqualsTheDefaults() async throws {
        let path = Support.shippedConfigPath
        let file = try await ConfigurationFile(path: path, namedBy: "--config")
        #expect(Set(file.values.keys) == Set(SettingKey.allCases.map(\.name)))
        for key in SettingKey.allCases {
            #expect(file.values[key.name] == Support.jsonText(of: key, in: .defaults), "\(key.name)")
        }
        var loaded = try await Support.load(["--config", path])
        #expect(loaded.configFile == path)
        loaded.configFile = nil
        #expect(loaded == Support.resolvedDefaults)
    }

    @Test func theSummaryIsOneLineOfEveryKey() async throws {
        let summary = try await Support.load(["--port", "9090"]).summary
        #expect(!summary.contains("\n"))
        #expect(
            summary.hasPrefix(
                "http.host=0.0.0.0 http.port=9090 http.threads=6 http.max_request_line_bytes=8192 "
                    + "http.max_header_bytes=16384 http.max_header_count=100 http.max_body_bytes=65536 "
                    + "http.max_connections=2048 http.header_timeout_ms=10000 http.idle_timeout_ms=60000 "
                    + "http.write_timeout_ms=30000 http.body_timeout_ms=10000 http.min_body_rate=8192 "
                    + "http.reserved_connections=16 http.max_output_bytes=67108864 items.count=10000"))
        #expect(
            summary.contains(
                "items.seed=42 items.latency_ms=0 items.grow_every_ms=0 store.latency.distribution=uniform "
                    + "store.latency.min_ms=500 store.latency.max_ms=2000 store.latency.fixed_ms=1000 "
                    + "store.latency.median_ms=800 store.latency.spread=0.5 cache.capacity=100000 "))
        #expect(
            summary.hasSuffix(
                "paging.default_limit=20 paging.max_limit=100 data.path=./data/listserver.sqlite "
                    + "data.synchronous=full data.url=<none> data.pool_size=4 data.idempotency_ttl_s=86400 "
                    + "data.changes_kept=100000 data.max_datasets=10000 data.dataset_ttl_s=604800 "
                    + "data.max_dataset_bytes=33554432 data.max_memory_bytes=134217728 events.heartbeat_ms=15000 events.max_wait_ms=30000 events.max_buffer_bytes=262144 "
                    + "events.max_buffered_bytes=67108864 journal.capacity=10000 journal.max_bytes=67108864 "
                    + "journal.max_in_flight_hint=16 chat.conversations=50 chat.messages_per_conversation=10000 "
                    + "delay.max_ms=30000 faults.rate=0 "
                    + "faults.kinds=500,503,429,reset,truncated,hang faults.seed=1 faults.hang_ms=10000 "
                    + "faults.retry_after_s=1 admin.token=<none> admin.allowed_origins= cors.allow_origin=* "
                    + "shutdown.grace_ms=8000 "
                    + "metrics.enabled=true log.level=info log.format=text log.access=true config=none"))
        for key in SettingKey.allCases {
            #expect(summary.contains("\(key.name)="))
        }
    }
}
