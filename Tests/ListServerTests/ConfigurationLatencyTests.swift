import Testing

@testable import ListServer

/// The `store.latency.*`, `items.latency_ms`, `items.grow_every_ms` and `delay.max_ms` keys: defaults, the
/// distribution names, the double-valued spread, and the relations that apply to each distribution only.
@Suite("Configuration: latencies and growth")
struct ConfigurationLatencyTests {
    typealias Support = ConfigurationTestSupport

    /// Where this test writes its JSON files.
    let temporary = TemporaryDirectory()

    @Test func theDefaultsAreThoseOfTheIssue() {
        let defaults = Settings.defaults
        #expect(defaults.latencyDistribution == .uniform)
        #expect(defaults.latencyFixedMs == 1000)
        #expect(defaults.latencyMedianMs == 800)
        #expect(defaults.latencySpread == 0.5)
        #expect(defaults.pageLatencyMs == 0)
        #expect(defaults.growEveryMs == 0)
        #expect(defaults.maxDelayMs == 30_000)
    }

    @Test func theKindsAndRangesAreThoseOfTheTable() {
        #expect(SettingKey.latencyDistribution.requirement == "one of uniform, fixed, lognormal, none")
        #expect(SettingKey.latencySpread.valueKind == .double)
        #expect(SettingKey.latencySpread.requirement == "in 0...4")
        #expect(SettingKey.latencySpread.bounds == nil)
        let expected: [SettingKey: ClosedRange<Int>] = [
            .latencyFixedMs: 0...600_000, .latencyMedianMs: 0...600_000, .pageLatencyMs: 0...600_000,
            .growEveryMs: 0...86_400_000, .maxDelayMs: 0...600_000,
        ]
        for (key, range) in expected {
            #expect(key.bounds == range, "\(key.name)")
            #expect(key.valueKind == .integer, "\(key.name)")
        }
    }

    @Test func distributionsInAnyCaseFromEverySource() async throws {
        #expect(try await Support.load(["--latency-distribution", "FIXED"]).latencyDistribution == .fixed)
        let fromEnvironment = try await Support.load(environment: ["LISTSERVER_LATENCY_DISTRIBUTION": "LogNormal"])
        #expect(fromEnvironment.latencyDistribution == .lognormal)
        let path = try temporary.file(#"{"store": {"latency": {"distribution": "none"}}}"#)
        #expect(try await Support.load(["--config", path]).latencyDistribution == LatencyKind.none)
    }

    @Test func aDistributionThatIsNotOneIsNamed() async throws {
        let error = try await Support.loadError(environment: ["LISTSERVER_LATENCY_DISTRIBUTION": "gaussian"])
        #expect(
            error?.description
                == #"store.latency.distribution (env LISTSERVER_LATENCY_DISTRIBUTION) = "gaussian" must be one of "#
                + "uniform, fixed, lognormal, none")
        #expect(error?.source == .environment)
    }

    @Test func theSpreadTakesFractionsFromEverySource() async throws {
        #expect(try await Support.load(["--latency-spread", "0.3"]).latencySpread == 0.3)
        #expect(try await Support.load(environment: ["LISTSERVER_LATENCY_SPREAD": "2.75"]).latencySpread == 2.75)
        let whole = try temporary.file(#"{"store": {"latency": {"spread": 4}}}"#)
        #expect(try await Support.load(["--config", whole]).latencySpread == 4)
        let fraction = try temporary.file(#"{"store": {"latency": {"spread": 0.125}}}"#)
        #expect(try await Support.load(["--config", fraction]).latencySpread == 0.125)
        #expect(try await Support.load(["--latency-spread", "0"]).latencySpread == 0)
    }

    @Test func aSpreadOutOfRangeIsNamed() async throws {
        let high = try await Support.loadError(["--latency-spread", "4.5"])
        #expect(high?.description == "store.latency.spread (--latency-spread) = 4.5 must be in 0...4")
        let negative = try await Support.loadError(environment: ["LISTSERVER_LATENCY_SPREAD": "-0.1"])
        #expect(negative?.description == "store.latency.spread (env LISTSERVER_LATENCY_SPREAD) = -0.1 must be in 0...4")
        let path = try temporary.file(#"{"store": {"latency": {"spread": 5}}}"#)
        let fromFile = try await Support.loadError(["--config", path])
        #expect(fromFile?.description == "store.latency.spread (file \(path)) = 5 must be in 0...4")
    }

    @Test func aLognormalMedianAboveTheMaximumIsRefused() async throws {
        let error = try await Support.loadError(["--latency-distribution", "lognormal", "--latency-median-ms", "2500"])
        #expect(
            error?.description
                == "store.latency.median_ms (--latency-median-ms) = 2500 must be <= store.latency.max_ms (2000)")
        #expect(error?.source == .commandLine)
        let lowerMaximum = try await Support.loadError(
            environment: ["LISTSERVER_LATENCY_DISTRIBUTION": "lognormal", "LISTSERVER_LATENCY_MAX_MS": "700"])
        #expect(
            lowerMaximum?.description
                == "store.latency.median_ms (default) = 800 must be <= store.latency.max_ms (700)")
        let equal = try await Support.load(["--latency-distribution", "lognormal", "--latency-median-ms", "2000"])
        #expect(equal.latencyMedianMs == 2000)
    }

    @Test func eachDistributionIsCheckedOnlyAgainstTheBoundsItUses() async throws {
        // min_ms > max_ms matters only to uniform; median_ms > max_ms only to lognormal.
        let uniformBoundsReversed = ["--latency-min-ms", "3000", "--latency-max-ms", "100"]
        for kind in ["fixed", "none"] {
            let settings = try await Support.load(
                uniformBoundsReversed + ["--latency-median-ms", "5000", "--latency-distribution", kind])
            #expect(settings.latencyMinMs == 3000, "\(kind)")
            #expect(settings.latencyMedianMs == 5000, "\(kind)")
        }
        let lognormal = try await Support.load(
            uniformBoundsReversed + ["--latency-distribution", "lognormal", "--latency-median-ms", "100"])
        #expect(lognormal.latencyMinMs == 3000)
        let uniform = try await Support.load(["--latency-median-ms", "5000"])
        #expect(uniform.latencyMedianMs == 5000)
        let refused = try await Support.loadError(uniformBoundsReversed)
        #expect(
            refused?.description
                == "store.latency.min_ms (--latency-min-ms) = 3000 must be <= store.latency.max_ms (100)")
    }

    @Test func edgesOfTheRangesAreAccepted() async throws {
        let highest = try await Support.load([
            "--latency-fixed-ms", "600000", "--latency-median-ms", "600000", "--latency-spread", "4",
            "--page-latency-ms", "600000", "--grow-every-ms", "86400000", "--max-delay-ms", "600000",
        ])
        #expect(highest.latencyFixedMs == 600_000)
        #expect(highest.latencyMedianMs == 600_000)
        #expect(highest.latencySpread == 4)
        #expect(highest.pageLatencyMs == 600_000)
        #expect(highest.growEveryMs == 86_400_000)
        #expect(highest.maxDelayMs == 600_000)
        let lowest = try await Support.load([
            "--latency-fixed-ms", "0", "--latency-median-ms", "0", "--latency-spread", "0", "--page-latency-ms", "0",
            "--grow-every-ms", "0", "--max-delay-ms", "0",
        ])
        #expect(lowest.latencyFixedMs == 0)
        #expect(lowest.latencySpread == 0)
        #expect(lowest.maxDelayMs == 0)
    }
}
