import Foundation
import Testing

@testable import ListServer

/// Loading settings: defaults, precedence per key, the environment names of the table, the shipped file.
@Suite struct ConfigurationLoadingTests {
    typealias Support = ConfigurationTestSupport

    /// Where this test writes its JSON files.
    let temporary = TemporaryDirectory()

    /// The environment variable of every key, exactly as the README table spells it.
    static let tableEnvironmentNames: [SettingKey: String] = [
        .host: "LISTSERVER_HOST", .port: "LISTSERVER_PORT", .threads: "LISTSERVER_THREADS",
        .itemCount: "LISTSERVER_ITEM_COUNT", .seed: "LISTSERVER_SEED",
        .latencyMinMs: "LISTSERVER_LATENCY_MIN_MS", .latencyMaxMs: "LISTSERVER_LATENCY_MAX_MS",
        .cacheCapacity: "LISTSERVER_CACHE_CAPACITY", .defaultLimit: "LISTSERVER_DEFAULT_LIMIT",
        .maxLimit: "LISTSERVER_MAX_LIMIT",
    ]

    /// A valid value for every key that differs from the default, in three variants so layers can be told apart.
    static func value(_ key: SettingKey, variant: Int) -> String {
        switch key {
        case .host: ["127.0.0.1", "::1", "localhost"][variant]
        case .port: String(9001 + variant)
        case .threads: String(2 + variant)
        case .itemCount: String(500 + variant)
        case .seed: String(7 + variant)
        case .latencyMinMs: String(10 + variant)
        case .latencyMaxMs: String(3000 + variant)
        case .cacheCapacity: String(50 + variant)
        case .defaultLimit: String(5 + variant)
        case .maxLimit: String(200 + variant)
        }
    }

    /// A JSON file body holding `key` with the file variant of its value.
    static func fileJSON(_ key: SettingKey) -> String {
        let raw = value(key, variant: 2)
        return Support.fileJSON(key, json: key == .host ? #""\#(raw)""# : raw)
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
            #expect(settings.text(of: key) == Self.value(key, variant: 1), "\(key.name)")
        }
        #expect(SettingKey.configFileVariable == "LISTSERVER_CONFIG")
    }

    @Test(arguments: SettingKey.allCases)
    func flagBeatsEnvironmentBeatsFileBeatsDefault(_ key: SettingKey) async throws {
        let path = try temporary.file(Self.fileJSON(key))
        let flag = ["\(key.flag)=\(Self.value(key, variant: 0))"]
        let environment = [key.environmentVariable: Self.value(key, variant: 1)]
        let fileOnly = [SettingKey.configFileVariable: path]

        let all = try await Support.load(flag, environment: environment.merging(fileOnly) { $1 })
        #expect(all.text(of: key) == Self.value(key, variant: 0))
        let noFlag = try await Support.load(environment: environment.merging(fileOnly) { $1 })
        #expect(noFlag.text(of: key) == Self.value(key, variant: 1))
        let onlyFile = try await Support.load(environment: fileOnly)
        #expect(onlyFile.text(of: key) == Self.value(key, variant: 2))
        #expect(onlyFile.configFile == path)
        let none = try await Support.load()
        #expect(none.text(of: key) == Support.resolvedDefaults.text(of: key))
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
        ])
        #expect(settings.itemCount == 1 << 53)
        #expect(settings.seed == UInt64(Int64.max))
        #expect(settings.paging == PagingSettings(defaultLimit: 10_000, maxLimit: 10_000))
    }

    @Test func theShippedFileHoldsEveryKeyAndEqualsTheDefaults() async throws {
        let path = Support.shippedConfigPath
        let file = try await ConfigurationFile(path: path, namedBy: "--config")
        #expect(Set(file.values.keys) == Set(SettingKey.allCases.map(\.name)))
        for key in SettingKey.allCases {
            let expected = key == .host ? #""\#(Settings.defaults.text(of: key))""# : Settings.defaults.text(of: key)
            #expect(file.values[key.name] == expected, "\(key.name)")
        }
        var loaded = try await Support.load(["--config", path])
        #expect(loaded.configFile == path)
        loaded.configFile = nil
        #expect(loaded == Support.resolvedDefaults)
    }

    @Test func theSummaryIsOneLineOfEveryKey() async throws {
        let summary = try await Support.load(["--port", "9090"]).summary
        #expect(!summary.contains("\n"))
        #expect(summary.hasPrefix("http.host=0.0.0.0 http.port=9090 http.threads=6 items.count=10000"))
        #expect(summary.hasSuffix("paging.default_limit=20 paging.max_limit=100 config=none"))
        for key in SettingKey.allCases {
            #expect(summary.contains("\(key.name)="))
        }
    }
}
