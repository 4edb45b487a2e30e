import ArgumentParser
import Testing

@testable import ListServer

/// The command line: flags exactly as in the table, their parsing, `--help`, and exit codes for bad syntax.
@Suite("Configuration: the command line")
struct ConfigurationCommandLineTests {
    /// The flag of every key, exactly as the README table spells it.
    static let tableFlags: [SettingKey: String] = [
        .host: "--host", .port: "--port", .threads: "--threads", .itemCount: "--item-count", .seed: "--seed",
        .maxRequestLineBytes: "--max-request-line-bytes", .maxHeaderBytes: "--max-header-bytes",
        .maxHeaderCount: "--max-header-count", .maxBodyBytes: "--max-body-bytes",
        .maxConnections: "--max-connections", .headerTimeoutMs: "--header-timeout-ms",
        .idleTimeoutMs: "--idle-timeout-ms", .writeTimeoutMs: "--write-timeout-ms",
        .shutdownGraceMs: "--shutdown-grace-ms",
        .latencyMinMs: "--latency-min-ms", .latencyMaxMs: "--latency-max-ms", .cacheCapacity: "--cache-capacity",
        .defaultLimit: "--default-limit", .maxLimit: "--max-limit",
        .chatConversations: "--chat-conversations", .chatMessagesPerConversation: "--chat-messages-per-conversation",
        .metricsEnabled: "--metrics", .logLevel: "--log-level", .logFormat: "--log-format", .accessLog: "--access-log",
        .latencyDistribution: "--latency-distribution", .latencyFixedMs: "--latency-fixed-ms",
        .latencyMedianMs: "--latency-median-ms", .latencySpread: "--latency-spread",
        .pageLatencyMs: "--page-latency-ms", .growEveryMs: "--grow-every-ms", .maxDelayMs: "--max-delay-ms",
        .faultRate: "--fault-rate", .faultKinds: "--fault-kinds", .faultSeed: "--fault-seed", .hangMs: "--hang-ms",
        .retryAfterSeconds: "--retry-after-s", .adminToken: "--admin-token",
        .corsAllowOrigin: "--cors-allow-origin", .dataPath: "--data-path", .dataSynchronous: "--data-synchronous",
        .dataURL: "--data-url", .dataPoolSize: "--data-pool-size",
        .idempotencyTTLSeconds: "--idempotency-ttl-s", .changesKept: "--changes-kept", .heartbeatMs: "--heartbeat-ms",
        .maxWaitMs: "--max-wait-ms", .eventBufferBytes: "--event-buffer-bytes",
        .imageLatencyDistribution: "--image-latency-distribution", .imageLatencyMinMs: "--image-latency-min-ms",
        .imageLatencyMaxMs: "--image-latency-max-ms", .imageLatencyFixedMs: "--image-latency-fixed-ms",
        .imageLatencyMedianMs: "--image-latency-median-ms", .imageLatencySpread: "--image-latency-spread",
        .imageCacheBytes: "--image-cache-bytes", .imageWorkers: "--image-workers",
        .imageQueueLimit: "--image-queue-limit", .imageMaxUploadBytes: "--image-max-upload-bytes",
        .picsumEnabled: "--picsum", .imageProgressive: "--image-progressive", .publicURL: "--public-url",
        .bodyTimeoutMs: "--body-timeout-ms",
        .minBodyRate: "--min-body-rate", .reservedConnections: "--reserved-connections",
        .maxDatasets: "--max-datasets", .datasetTTLSeconds: "--dataset-ttl-s",
        .maxDatasetBytes: "--max-dataset-bytes", .maxMemoryBytes: "--max-memory-bytes",
        .maxOutputBytes: "--max-output-bytes", .journalCapacity: "--journal-capacity",
        .journalMaxBytes: "--journal-max-bytes", .journalMaxInFlightHint: "--journal-max-in-flight-hint",
        .eventBufferedBytes: "--event-buffered-bytes", .adminAllowedOrigins: "--admin-allowed-origins",
    ]

    @Test func theFlagsAreExactlyThoseOfTheTable() throws {
        #expect(Set(Self.tableFlags.keys) == Set(SettingKey.allCases))
        for key in SettingKey.allCases {
            #expect(key.flag == Self.tableFlags[key])
        }
        #expect(SettingKey.configFileFlag == "--config")
    }

    @Test func givenFlagsBecomeConfigValuesAndAbsentOnesDoNot() throws {
        let options = try CommandLineOptions.parse(["--host", "::1", "--latency-max-ms", "10", "--config", "x.json"])
        #expect(options.config == "x.json")
        let values = options.configValues
        #expect(values.count == 2)
        #expect(values[SettingKey.host.absoluteKey]?.content == .string("::1"))
        #expect(values[SettingKey.latencyMaxMs.absoluteKey]?.content == .int(10))
        #expect(try CommandLineOptions.parse([]).configValues.isEmpty)
    }

    @Test func everyIntegerFlagReachesItsConfigValue() throws {
        let integerKeys = SettingKey.allCases.filter { $0.bounds != nil }
        let arguments = integerKeys.enumerated().flatMap { index, key in [key.flag, String(index + 1)] }
        let values = try CommandLineOptions.parse(arguments).configValues
        #expect(values.count == integerKeys.count)
        for (index, key) in integerKeys.enumerated() {
            #expect(values[key.absoluteKey]?.content == .int(index + 1), "\(key.flag)")
        }
    }

    @Test func everyDoubleAndStringFlagReachesItsConfigValue() throws {
        let options = try CommandLineOptions.parse([
            "--latency-spread", "1.25", "--fault-rate", "0.3", "--latency-distribution", "fixed",
            "--fault-kinds", "503", "--admin-token", "t0ken", "--cors-allow-origin", "",
            "--data-path", "/tmp/x.sqlite", "--data-synchronous", "normal",
        ])
        let values = options.configValues
        #expect(values.count == 8)
        #expect(values[SettingKey.latencySpread.absoluteKey]?.content == .double(1.25))
        #expect(values[SettingKey.faultRate.absoluteKey]?.content == .double(0.3))
        #expect(values[SettingKey.latencyDistribution.absoluteKey]?.content == .string("fixed"))
        #expect(values[SettingKey.faultKinds.absoluteKey]?.content == .string("503"))
        #expect(values[SettingKey.adminToken.absoluteKey]?.content == .string("t0ken"))
        #expect(values[SettingKey.adminToken.absoluteKey]?.isSecret == true)
        #expect(values[SettingKey.corsAllowOrigin.absoluteKey]?.content == .string(""))
        #expect(values[SettingKey.dataPath.absoluteKey]?.content == .string("/tmp/x.sqlite"))
        #expect(values[SettingKey.dataSynchronous.absoluteKey]?.content == .string("normal"))
    }

    @Test(arguments: [
        ["--prot", "8080"], ["--port", "abc"], ["--port"], ["serve"], ["--threads", "1.5"], ["--fault-rate", "abc"],
    ])
    func badSyntaxExitsWithUsageCode64(_ arguments: [String]) {
        #expect {
            _ = try CommandLineOptions.parse(arguments)
        } throws: { error in
            CommandLineOptions.exitCode(for: error) == ExitCode(64)
        }
    }

    @Test func helpNamesEveryFlagVariableRangeAndDefault() {
        let help = CommandLineOptions.helpMessage(columns: 1000)
        #expect(help.contains("USAGE: ListServer "))
        for key in SettingKey.allCases {
            #expect(help.contains(key.flag), "\(key.flag)")
            #expect(help.contains(key.environmentVariable), "\(key.environmentVariable)")
            #expect(help.contains(key.name), "\(key.name)")
            #expect(help.contains(key.requirement), "\(key.requirement)")
            let shownDefault = key.isSecret ? "none" : Settings.defaults.text(of: key)
            #expect(help.contains("default \(shownDefault);"), "\(key.name)")
        }
        #expect(help.contains("--config <path>"))
        #expect(help.contains("LISTSERVER_CONFIG"))
    }

    @Test func helpIsACleanExit() {
        #expect {
            _ = try CommandLineOptions.parse(["--help"])
        } throws: { error in
            CommandLineOptions.exitCode(for: error) == .success
        }
    }
}
