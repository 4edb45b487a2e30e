import Foundation
import Testing

@testable import ListServer

/// Every way loading can fail, and that each message is one line naming the key, the source and the value.
@Suite("Configuration: validation messages")
struct ConfigurationValidationTests {
    typealias Support = ConfigurationTestSupport

    /// Where this test writes its JSON files.
    let temporary = TemporaryDirectory()

    /// Checks the common shape of every message: one line, naming the key.
    static func expectOneLine(
        _ error: ConfigurationError?, naming key: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard let error else { return }
        #expect(!error.description.contains("\n"), sourceLocation: sourceLocation)
        #expect(error.description.contains(key), "\(error.description)", sourceLocation: sourceLocation)
    }

    @Test func theExampleOfTheBriefReadsExactly() async throws {
        let error = try await Support.loadError(["--latency-min-ms", "3000"])
        #expect(
            error?.description
                == "store.latency.min_ms (--latency-min-ms) = 3000 must be <= store.latency.max_ms (2000)")
        #expect(error?.key == "store.latency.min_ms")
        #expect(error?.source == .commandLine)
    }

    /// One value outside the range of every integer key, from a flag, from the environment and from a file.
    @Test(arguments: SettingKey.allCases.filter { $0.bounds != nil })
    func outOfRangeValuesNameKeySourceValueAndRange(_ key: SettingKey) async throws {
        let bounds = try #require(key.bounds)
        let bad = bounds.upperBound == Int.max ? bounds.lowerBound - 1 : bounds.upperBound + 1
        let fromFlag = try await Support.loadError(["\(key.flag)=\(bad)"])
        #expect(fromFlag?.description == "\(key.name) (\(key.flag)) = \(bad) must be \(key.requirement)")
        #expect(fromFlag?.source == .commandLine)
        let fromEnvironment = try await Support.loadError(environment: [
            key.environmentVariable: "\(bounds.lowerBound - 1)"
        ])
        #expect(
            fromEnvironment?.description
                == "\(key.name) (env \(key.environmentVariable)) = \(bounds.lowerBound - 1) must be \(key.requirement)")
        #expect(fromEnvironment?.source == .environment)
        let path = try temporary.file(Support.fileJSON(key, json: String(bad)))
        let fromFile = try await Support.loadError(["--config", path])
        #expect(fromFile?.description == "\(key.name) (file \(path)) = \(bad) must be \(key.requirement)")
        #expect(fromFile?.source == .file(path: path))
    }

    @Test func specificRangeMessages() async throws {
        let port = try await Support.loadError(["--port", "70000"])
        #expect(port?.description == "http.port (--port) = 70000 must be in 0...65535")
        let capacity = try await Support.loadError(environment: ["LISTSERVER_CACHE_CAPACITY": "0"])
        #expect(capacity?.description == "cache.capacity (env LISTSERVER_CACHE_CAPACITY) = 0 must be in 1...10000000")
        let negative = try await Support.loadError(["--seed=-1"])
        #expect(negative?.description == "items.seed (--seed) = -1 must be in 0...9223372036854775807")
        let items = try await Support.loadError(["--item-count", "9007199254740993"])
        #expect(items?.description == "items.count (--item-count) = 9007199254740993 must be in 0...9007199254740992")
    }

    @Test func minimumLatencyMustNotExceedMaximumWhateverTheSources() async throws {
        let error = try await Support.loadError(environment: ["LISTSERVER_LATENCY_MAX_MS": "100"])
        #expect(error?.description == "store.latency.min_ms (default) = 500 must be <= store.latency.max_ms (100)")
        #expect(try await Support.load(["--latency-min-ms", "700", "--latency-max-ms", "700"]).latencyMinMs == 700)
    }

    @Test func defaultLimitMustNotExceedMaxLimit() async throws {
        let fromDefault = try await Support.loadError(["--max-limit", "10"])
        #expect(fromDefault?.description == "paging.default_limit (default) = 20 must be <= paging.max_limit (10)")
        let fromEnvironment = try await Support.loadError(environment: ["LISTSERVER_DEFAULT_LIMIT": "101"])
        #expect(
            fromEnvironment?.description
                == "paging.default_limit (env LISTSERVER_DEFAULT_LIMIT) = 101 must be <= paging.max_limit (100)")
        let zero = try await Support.loadError(["--default-limit", "0"])
        #expect(zero?.description == "paging.default_limit (--default-limit) = 0 must be in 1...paging.max_limit")
    }

    @Test func oneDatasetMayNotTakeMoreMemoryThanAllOfThem() async throws {
        let error = try await Support.loadError(["--max-memory-bytes", "16777216"])
        #expect(
            error?.description
                == "data.max_dataset_bytes (default) = 33554432 must be <= data.max_memory_bytes (16777216)")
        let both = try await Support.load(["--max-memory-bytes", "16777216", "--max-dataset-bytes", "16777216"])
        #expect(both.maxDatasetBytes == 16_777_216)
    }

    @Test(arguments: [
        "127.0.0.1", "0.0.0.0", "255.255.255.255", "::", "::1", "2001:db8::8a2e:370:7334",
        "1:2:3:4:5:6:7:8", "::ffff:192.0.2.1", "fe80::", "1::", "localhost", "LocalHost",
    ])
    func validHosts(_ host: String) async throws {
        #expect(HostAddress.isValid(host))
        #expect(try await Support.load(["--host", host]).host == host)
    }

    @Test(arguments: [
        "", "example.com", "256.0.0.1", "1.2.3", "1.2.3.4.5", "01.2.3.4", " 127.0.0.1", "1.2.3.4 ",
        "[::1]", "fe80::1%eth0", "1:2:3:4:5:6:7:8:9", "1::2::3", ":::", "12345::", "::g", "1:2:3:4:5:6:7",
        "1.2.3.4::", "::1.2.3", "１２７.0.0.1",
    ])
    func invalidHosts(_ host: String) async throws {
        #expect(!HostAddress.isValid(host))
        let error = try await Support.loadError(environment: ["LISTSERVER_HOST": host])
        #expect(
            error?.description
                == #"http.host (env LISTSERVER_HOST) = "\#(host)" must be an IPv4/IPv6 literal or "localhost""#)
    }

    @Test func wrongTypesInTheEnvironment() async throws {
        let port = try await Support.loadError(environment: ["LISTSERVER_PORT": "abc"])
        #expect(port?.description == #"http.port (env LISTSERVER_PORT) = "abc" must be an integer in 0...65535"#)
        #expect(port?.source == .environment)
        for (name, value) in [
            ("LISTSERVER_THREADS", "1.5"), ("LISTSERVER_SEED", "9223372036854775808"),
            ("LISTSERVER_MAX_LIMIT", ""), ("LISTSERVER_ITEM_COUNT", " 12"),
        ] {
            let error = try await Support.loadError(environment: [name: value])
            Self.expectOneLine(error, naming: #"(env \#(name)) = "\#(value)" must be an integer"#)
        }
    }

    @Test func wrongTypesInTheFile() async throws {
        let path = try temporary.file(#"{"http": {"port": "8080"}}"#)
        let port = try await Support.loadError(["--config", path])
        #expect(port?.description == #"http.port (file \#(path)) = "8080" must be an integer in 0...65535"#)
        #expect(port?.source == .file(path: path))
        let hostPath = try temporary.file(#"{"http": {"host": 127}}"#)
        let host = try await Support.loadError(["--config", hostPath])
        #expect(
            host?.description
                == #"http.host (file \#(hostPath)) = 127 must be a string, an IPv4/IPv6 literal or "localhost""#)
        let booleanPath = try temporary.file(#"{"http": {"threads": true}}"#)
        let boolean = try await Support.loadError(["--config", booleanPath])
        #expect(boolean?.description == "http.threads (file \(booleanPath)) = true must be an integer in 0...256")
        let fractionPath = try temporary.file(#"{"cache": {"capacity": 10.5}}"#)
        let fraction = try await Support.loadError(["--config", fractionPath])
        #expect(
            fraction?.description == "cache.capacity (file \(fractionPath)) = 10.5 must be an integer in 1...10000000")
        let arrayPath = try temporary.file(#"{"items": {"seed": [1, 2]}}"#)
        let array = try await Support.loadError(["--config", arrayPath])
        #expect(
            array?.description == "items.seed (file \(arrayPath)) = [1,2] must be an integer in 0...9223372036854775807"
        )
    }

    @Test func wholeNumbersWrittenAsDecimalsAndNullsAreAccepted() async throws {
        let path = try temporary.file(#"{"http": {"port": 9000.0, "host": null}}"#)
        let settings = try await Support.load(["--config", path])
        #expect(settings.port == 9000)
        #expect(settings.host == "0.0.0.0")
    }

    @Test func missingFile() async throws {
        let error = try await Support.loadError(["--config", "/nonexistent/listserver.json"])
        #expect(
            error?.description == "config file /nonexistent/listserver.json (--config) cannot be read: no such file")
        #expect(error?.key == "config")
        let fromVariable = try await Support.loadError(environment: ["LISTSERVER_CONFIG": "/nonexistent/x.json"])
        #expect(
            fromVariable?.description
                == "config file /nonexistent/x.json (LISTSERVER_CONFIG) cannot be read: no such file")
    }

    @Test func unreadableFile() async throws {
        let directory = temporary.url.path
        let error = try await Support.loadError(["--config", directory])
        #expect(error?.description == "config file \(directory) (--config) cannot be read: is a directory")
    }

    @Test func malformedFiles() async throws {
        let syntax = try temporary.file("{\"http\": {\"port\" 8080}}")
        let syntaxError = try await Support.loadError(["--config", syntax])
        Self.expectOneLine(syntaxError, naming: "config file \(syntax) (--config) is not valid JSON: ")
        let empty = try temporary.file("")
        Self.expectOneLine(try await Support.loadError(["--config", empty]), naming: "is not valid JSON")
        let array = try temporary.file("[1, 2]")
        let arrayError = try await Support.loadError(["--config", array])
        #expect(arrayError?.description == "config file \(array) (--config): the top level must be a JSON object")
    }

    @Test func aKeyGivenTwiceIsRefusedNotGuessed() async throws {
        let duplicate = try temporary.file(#"{"http": {"port": 9090, "port": 9191}}"#)
        let duplicateError = try await Support.loadError(["--config", duplicate])
        Self.expectOneLine(duplicateError, naming: "is not valid JSON: byte ")
        #expect(duplicateError?.description.contains("port") == true)
        let dotted = try temporary.file(#"{"http.port": 9090, "http": {"port": 9191}}"#)
        let dottedError = try await Support.loadError(["--config", dotted])
        #expect(dottedError?.description == #"config file \#(dotted) (--config): "http.port" is given twice"#)
        let trailingComma = try temporary.file(#"{"http": {"port": 9090,}}"#)
        Self.expectOneLine(
            try await Support.loadError(["--config", trailingComma]), naming: "is not valid JSON: byte 23")
    }

    @Test func unknownKeysInTheFileAreNamed() async throws {
        let typo = try temporary.file(#"{"http": {"prot": 9090}}"#)
        let error = try await Support.loadError(["--config", typo])
        #expect(
            error?.description.hasPrefix(
                #"config file \#(typo) (--config): unknown key "http.prot"; known keys: http.host, "#) == true)
        Self.expectOneLine(error, naming: "http.prot")
        let topLevel = try temporary.file(#"{"port": 9090, "zzz": 1}"#)
        let topLevelError = try await Support.loadError(["--config", topLevel])
        #expect(topLevelError?.description.contains(#"unknown key "port""#) == true)
        let flat = try temporary.file(#"{"http": 8080}"#)
        let flatError = try await Support.loadError(["--config", flat])
        #expect(flatError?.description == #"config file \#(flat) (--config): "http" must be an object"#)
    }

    @Test func theFileQuotesValuesAsWrittenSlashesIncluded() async throws {
        let path = try temporary.file(#"{"cors": {"allow_origin": "https://a.example"}, "items": {"seed": ["a/b"]}}"#)
        let file = try await ConfigurationFile(path: path, namedBy: "--config")
        #expect(file.values["cors.allow_origin"] == #""https://a.example""#)
        let error = try await Support.loadError(["--config", path])
        #expect(
            error?.description == #"items.seed (file \#(path)) = ["a/b"] must be an integer in 0...9223372036854775807"#
        )
    }

    @Test func dottedKeysInTheFileAreKnownKeysToo() async throws {
        let path = try temporary.file(#"{"http.port": 9191}"#)
        #expect(try await Support.load(["--config", path]).port == 9191)
    }
}
