import Testing

@testable import ListServer

/// The `data.*` and `events.*` keys: defaults, every source, the path that must not be empty, the synchronous modes,
/// and the edges of the integer ranges.
@Suite("Configuration: stored writes and change events")
struct ConfigurationDataTests {
    typealias Support = ConfigurationTestSupport

    /// Where this test writes its JSON files.
    let temporary = TemporaryDirectory()

    @Test func theDefaultsAreThoseOfTheIssue() {
        let defaults = Settings.defaults
        #expect(defaults.dataPath == "./data/listserver.sqlite")
        #expect(defaults.dataSynchronous == .full)
        #expect(defaults.idempotencyTTLSeconds == 86_400)
        #expect(defaults.changesKept == 100_000)
        #expect(defaults.heartbeatMs == 15_000)
        #expect(defaults.maxWaitMs == 30_000)
        #expect(defaults.eventBufferBytes == 262_144)
        #expect(defaults.eventBufferedBytes == 67_108_864)
        #expect(defaults.maxDatasets == 10_000)
        #expect(defaults.datasetTTLSeconds == 604_800)
        #expect(defaults.maxDatasetBytes == 33_554_432)
        #expect(defaults.maxMemoryBytes == 134_217_728)
        #expect(defaults.text(of: .dataPath) == "./data/listserver.sqlite")
        #expect(defaults.text(of: .dataSynchronous) == "full")
    }

    @Test func theKindsAndRangesAreThoseOfTheTable() {
        #expect(SettingKey.dataPath.valueKind == .string)
        #expect(SettingKey.dataPath.requirement == "a non-empty path")
        #expect(SettingKey.dataPath.bounds == nil)
        #expect(SettingKey.dataSynchronous.valueKind == .string)
        #expect(SettingKey.dataSynchronous.requirement == "one of full, normal")
        #expect(SettingKey.dataSynchronous.bounds == nil)
        #expect(DataSynchronous.allCases == [.full, .normal])
        let expected: [SettingKey: ClosedRange<Int>] = [
            .idempotencyTTLSeconds: 60...31_536_000, .changesKept: 1...100_000_000, .heartbeatMs: 100...3_600_000,
            .maxWaitMs: 0...3_600_000, .eventBufferBytes: 4_096...1_073_741_824, .maxDatasets: 1...1_000_000,
            .datasetTTLSeconds: 0...315_360_000, .eventBufferedBytes: 65_536...17_179_869_184,
            .maxDatasetBytes: 65_536...1_099_511_627_776, .maxMemoryBytes: 1_048_576...1_099_511_627_776,
        ]
        for (key, range) in expected {
            #expect(key.bounds == range, "\(key.name)")
            #expect(key.valueKind == .integer, "\(key.name)")
            #expect(key.requirement == "in \(range.lowerBound)...\(range.upperBound)", "\(key.name)")
        }
    }

    @Test func theKeysSitInTheirGroupsAfterPaging() throws {
        let names = SettingKey.allCases.map(\.name)
        let first = try #require(names.firstIndex(of: "data.path"))
        #expect(names[first - 1] == "paging.max_limit")
        #expect(
            Array(names[first..<first + 14]) == [
                "data.path", "data.synchronous", "data.url", "data.pool_size", "data.idempotency_ttl_s",
                "data.changes_kept", "data.max_datasets", "data.dataset_ttl_s", "data.max_dataset_bytes",
                "data.max_memory_bytes", "events.heartbeat_ms",
                "events.max_wait_ms", "events.max_buffer_bytes", "events.max_buffered_bytes",
            ])
    }

    @Test func everySourceReachesTheSettings() async throws {
        let path = try temporary.file(
            #"{"data": {"path": "/srv/list data/x.sqlite", "changes_kept": 1}, "events": {"heartbeat_ms": 100}}"#)
        let settings = try await Support.load(
            ["--idempotency-ttl-s", "60", "--event-buffer-bytes", "4096", "--config", path],
            environment: ["LISTSERVER_DATA_SYNCHRONOUS": "normal", "LISTSERVER_MAX_WAIT_MS": "0"])
        #expect(settings.dataPath == "/srv/list data/x.sqlite")
        #expect(settings.dataSynchronous == .normal)
        #expect(settings.idempotencyTTLSeconds == 60)
        #expect(settings.changesKept == 1)
        #expect(settings.heartbeatMs == 100)
        #expect(settings.maxWaitMs == 0)
        #expect(settings.eventBufferBytes == 4096)
    }

    @Test func anInMemoryPathIsAPathLikeAnyOther() async throws {
        #expect(try await Support.load(["--data-path", ":memory:"]).dataPath == ":memory:")
        let relative = try await Support.load(environment: ["LISTSERVER_DATA_PATH": "listserver.sqlite"])
        #expect(relative.dataPath == "listserver.sqlite")
    }

    @Test func anEmptyPathIsNamedFromEverySource() async throws {
        let fromFlag = try await Support.loadError(["--data-path", ""])
        #expect(fromFlag?.description == #"data.path (--data-path) = "" must be a non-empty path"#)
        #expect(fromFlag?.source == .commandLine)
        let fromEnvironment = try await Support.loadError(environment: ["LISTSERVER_DATA_PATH": ""])
        #expect(fromEnvironment?.description == #"data.path (env LISTSERVER_DATA_PATH) = "" must be a non-empty path"#)
        #expect(fromEnvironment?.source == .environment)
        let path = try temporary.file(#"{"data": {"path": ""}}"#)
        let fromFile = try await Support.loadError(["--config", path])
        #expect(fromFile?.description == #"data.path (file \#(path)) = "" must be a non-empty path"#)
        #expect(fromFile?.source == .file(path: path))
    }

    @Test func aPathThatIsNotAStringIsNamed() async throws {
        let path = try temporary.file(#"{"data": {"path": 12}}"#)
        let error = try await Support.loadError(["--config", path])
        #expect(error?.description == "data.path (file \(path)) = 12 must be a string, a non-empty path")
    }

    @Test func synchronousModesInAnyCaseFromEverySource() async throws {
        #expect(try await Support.load(["--data-synchronous", "NORMAL"]).dataSynchronous == .normal)
        let fromEnvironment = try await Support.load(environment: ["LISTSERVER_DATA_SYNCHRONOUS": "Normal"])
        #expect(fromEnvironment.dataSynchronous == .normal)
        let path = try temporary.file(#"{"data": {"synchronous": "normal"}}"#)
        #expect(try await Support.load(["--config", path]).dataSynchronous == .normal)
        let full = try await Support.load(["--data-synchronous", "Full", "--config", path])
        #expect(full.dataSynchronous == .full)
    }

    @Test func aSynchronousModeThatIsNotOneIsNamed() async throws {
        let fromFlag = try await Support.loadError(["--data-synchronous", "off"])
        #expect(fromFlag?.description == #"data.synchronous (--data-synchronous) = "off" must be one of full, normal"#)
        #expect(fromFlag?.source == .commandLine)
        let fromEnvironment = try await Support.loadError(environment: ["LISTSERVER_DATA_SYNCHRONOUS": "extra"])
        #expect(
            fromEnvironment?.description
                == #"data.synchronous (env LISTSERVER_DATA_SYNCHRONOUS) = "extra" must be one of full, normal"#)
        let path = try temporary.file(#"{"data": {"synchronous": ""}}"#)
        let fromFile = try await Support.loadError(["--config", path])
        #expect(fromFile?.description == #"data.synchronous (file \#(path)) = "" must be one of full, normal"#)
        let typed = try temporary.file(#"{"data": {"synchronous": true}}"#)
        let wrongType = try await Support.loadError(["--config", typed])
        #expect(
            wrongType?.description
                == "data.synchronous (file \(typed)) = true must be a string, one of full, normal")
    }

    @Test func aPostgresURLShowsWithoutItsPassword() async throws {
        let settings = try await Support.load(
            ["--data-url", "postgres://app:hunter2@db.internal:5433/lists?sslmode=require", "--data-pool-size", "8"])
        #expect(settings.dataURL?.value == "postgres://app:hunter2@db.internal:5433/lists?sslmode=require")
        #expect(settings.dataPoolSize == 8)
        #expect(settings.summary.contains(" data.url=postgres://app:<set>@db.internal:5433/lists?sslmode=require "))
        #expect(!settings.summary.contains("hunter2"))
        #expect(try await Support.load(environment: ["LISTSERVER_DATA_URL": ""]).dataURL == nil)
        #expect(Settings.defaults.text(of: .dataURL) == "<none>")
    }

    @Test func aDataURLThatIsNotPostgresIsNamedWithoutEchoingIt() async throws {
        let error = try await Support.loadError(["--data-url", "mysql://app:hunter2@db/lists"])
        #expect(
            error?.description
                == "data.url (--data-url) = <redacted> must be empty, or "
                + "postgres://[user[:password]@]host[:port]/database[?parameters]: not a postgres:// or postgresql:// URL"
        )
        #expect(error?.description.contains("hunter2") == false)
        let pool = try await Support.loadError(["--data-pool-size", "1"])
        #expect(pool?.description == "data.pool_size (--data-pool-size) = 1 must be in 2...64")
    }

    @Test func outOfRangeValuesAreNamed() async throws {
        let ttl = try await Support.loadError(["--idempotency-ttl-s", "59"])
        #expect(ttl?.description == "data.idempotency_ttl_s (--idempotency-ttl-s) = 59 must be in 60...31536000")
        let kept = try await Support.loadError(environment: ["LISTSERVER_CHANGES_KEPT": "0"])
        #expect(kept?.description == "data.changes_kept (env LISTSERVER_CHANGES_KEPT) = 0 must be in 1...100000000")
        let path = try temporary.file(#"{"events": {"heartbeat_ms": 99}}"#)
        let heartbeat = try await Support.loadError(["--config", path])
        #expect(heartbeat?.description == "events.heartbeat_ms (file \(path)) = 99 must be in 100...3600000")
        let wait = try await Support.loadError(["--max-wait-ms=-1"])
        #expect(wait?.description == "events.max_wait_ms (--max-wait-ms) = -1 must be in 0...3600000")
        let buffer = try await Support.loadError(environment: ["LISTSERVER_EVENT_BUFFER_BYTES": "4095"])
        #expect(
            buffer?.description
                == "events.max_buffer_bytes (env LISTSERVER_EVENT_BUFFER_BYTES) = 4095 must be in 4096...1073741824")
        let notANumber = try await Support.loadError(environment: ["LISTSERVER_HEARTBEAT_MS": "15s"])
        #expect(
            notANumber?.description
                == #"events.heartbeat_ms (env LISTSERVER_HEARTBEAT_MS) = "15s" must be an integer in 100...3600000"#)
    }

    @Test func edgesOfTheRangesAreAccepted() async throws {
        let highest = try await Support.load([
            "--idempotency-ttl-s", "31536000", "--changes-kept", "100000000", "--heartbeat-ms", "3600000",
            "--max-wait-ms", "3600000", "--event-buffer-bytes", "1073741824",
        ])
        #expect(highest.idempotencyTTLSeconds == 31_536_000)
        #expect(highest.changesKept == 100_000_000)
        #expect(highest.heartbeatMs == 3_600_000)
        #expect(highest.maxWaitMs == 3_600_000)
        #expect(highest.eventBufferBytes == 1_073_741_824)
        let lowest = try await Support.load([
            "--idempotency-ttl-s", "60", "--changes-kept", "1", "--heartbeat-ms", "100", "--max-wait-ms", "0",
            "--event-buffer-bytes", "4096",
        ])
        #expect(lowest.idempotencyTTLSeconds == 60)
        #expect(lowest.changesKept == 1)
        #expect(lowest.heartbeatMs == 100)
        #expect(lowest.maxWaitMs == 0)
        #expect(lowest.eventBufferBytes == 4096)
    }
}
