import Testing

@testable import ListServer

/// The `http.max_*`, `http.*_timeout_ms` and `shutdown.grace_ms` keys: defaults, where they land, the cross-check.
@Suite("Configuration: HTTP limits and timeouts")
struct ConfigurationLimitsTests {
    typealias Support = ConfigurationTestSupport

    /// Where this test writes its JSON files.
    let temporary = TemporaryDirectory()

    @Test func theDefaultsAreThoseOfTheIssue() {
        let limits = Settings.defaults.limits
        #expect(limits == HTTPLimits())
        #expect(limits.maxRequestLineBytes == 8192)
        #expect(limits.maxHeaderBytes == 16_384)
        #expect(limits.maxHeaderCount == 100)
        #expect(limits.maxBodyBytes == 65_536)
        #expect(limits.maxConnections == 2_048)  // 10,000 until the worst case had to stay within 1 GB (issue 30)
        #expect(limits.headerTimeout == .seconds(10))
        #expect(limits.idleTimeout == .seconds(60))
        #expect(limits.writeTimeout == .seconds(30))
        #expect(limits.maxOutputBytes == 67_108_864)
        #expect(Settings.defaults.shutdownGrace == .seconds(8))
    }

    @Test func theRangesAreThoseOfTheTable() {
        let expected: [SettingKey: ClosedRange<Int>] = [
            .maxRequestLineBytes: 64...1_048_576, .maxHeaderBytes: 256...1_048_576, .maxHeaderCount: 1...1000,
            .maxBodyBytes: 0...16_777_216, .maxConnections: 1...1_000_000, .headerTimeoutMs: 100...3_600_000,
            .idleTimeoutMs: 100...3_600_000, .writeTimeoutMs: 100...3_600_000, .shutdownGraceMs: 0...600_000,
            .maxOutputBytes: 1_048_576...17_179_869_184,
        ]
        for (key, range) in expected {
            #expect(key.bounds == range, "\(key.name)")
            #expect(key.requirement == "in \(range.lowerBound)...\(range.upperBound)", "\(key.name)")
        }
    }

    @Test func everySourceReachesTheLimitsStruct() async throws {
        let path = try temporary.file(
            #"{"http": {"max_header_count": 7, "idle_timeout_ms": 1234}, "shutdown": {"grace_ms": 250}}"#)
        let settings = try await Support.load(
            ["--max-body-bytes", "10", "--header-timeout-ms", "100", "--config", path],
            environment: ["LISTSERVER_MAX_CONNECTIONS": "3", "LISTSERVER_WRITE_TIMEOUT_MS": "999"]
        )
        #expect(
            settings.limits
                == HTTPLimits(
                    maxRequestLineBytes: 8192, maxHeaderBytes: 16_384, maxHeaderCount: 7, maxBodyBytes: 10,
                    maxConnections: 3, headerTimeout: .milliseconds(100), idleTimeout: .milliseconds(1234),
                    writeTimeout: .milliseconds(999)))
        #expect(settings.shutdownGrace == .milliseconds(250))
        #expect(settings.text(of: .idleTimeoutMs) == "1234")
        #expect(settings.text(of: .shutdownGraceMs) == "250")
    }

    @Test func theRequestLineLimitMustNotExceedTheHeadLimit() async throws {
        let fromFlag = try await Support.loadError(["--max-request-line-bytes", "16385"])
        #expect(
            fromFlag?.description
                == "http.max_request_line_bytes (--max-request-line-bytes) = 16385 must be <= http.max_header_bytes (16384)"
        )
        #expect(fromFlag?.source == .commandLine)
        let fromDefault = try await Support.loadError(environment: ["LISTSERVER_MAX_HEADER_BYTES": "8191"])
        #expect(
            fromDefault?.description
                == "http.max_request_line_bytes (default) = 8192 must be <= http.max_header_bytes (8191)")
        #expect(fromDefault?.source == .builtInDefault)
        let equal = try await Support.load(["--max-request-line-bytes", "300", "--max-header-bytes", "300"])
        #expect(equal.limits.maxRequestLineBytes == 300)
        #expect(equal.limits.maxHeaderBytes == 300)
    }

    @Test func aRangeErrorComesBeforeTheCrossCheck() async throws {
        let error = try await Support.loadError(["--max-header-bytes", "255"])
        #expect(error?.description == "http.max_header_bytes (--max-header-bytes) = 255 must be in 256...1048576")
    }

    @Test(arguments: [
        (Duration.zero, 0), (.milliseconds(1), 1), (.microseconds(1999), 1), (.seconds(3600), 3_600_000),
        (.milliseconds(-5), -5), (.seconds(Int64.max), Int.max), (.seconds(Int64.min), Int.min),
    ])
    func durationsShowAsWholeMilliseconds(_ duration: Duration, _ milliseconds: Int) {
        #expect(duration.wholeMilliseconds == milliseconds)
    }
}
