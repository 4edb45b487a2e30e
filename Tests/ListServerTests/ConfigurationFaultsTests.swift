import ListDomain
import Testing

@testable import ListServer

/// The `faults.*` keys: defaults, the double-valued rate (every way a number can be wrong), the fault mix text and
/// its parser's reasons.
@Suite("Configuration: fault injection")
struct ConfigurationFaultsTests {
    typealias Support = ConfigurationTestSupport

    /// Where this test writes its JSON files.
    let temporary = TemporaryDirectory()

    @Test func theDefaultsInjectNothingButWouldInjectEveryKind() {
        let defaults = Settings.defaults
        #expect(defaults.faultRate == 0)
        #expect(defaults.faultKinds == .all)
        #expect(defaults.text(of: .faultKinds) == "500,503,429,reset,truncated,hang")
        #expect(defaults.faultSeed == 1)
        #expect(defaults.hangMs == 10_000)
        #expect(defaults.retryAfterSeconds == 1)
    }

    @Test func theKindsAndRangesAreThoseOfTheTable() {
        #expect(SettingKey.faultRate.valueKind == .double)
        #expect(SettingKey.faultRate.requirement == "in 0...1")
        #expect(SettingKey.faultKinds.valueKind == .string)
        #expect(SettingKey.faultSeed.bounds == 0...Int(Int64.max))
        #expect(SettingKey.hangMs.bounds == 1...600_000)
        #expect(SettingKey.retryAfterSeconds.bounds == 0...86_400)
    }

    @Test func everySourceReachesTheFaultSettings() async throws {
        let path = try temporary.file(#"{"faults": {"rate": 1, "seed": 9, "hang_ms": 1}}"#)
        let settings = try await Support.load(
            ["--fault-kinds", "503:3, 500,reset", "--config", path],
            environment: ["LISTSERVER_RETRY_AFTER_S": "86400", "LISTSERVER_FAULT_SEED": "9223372036854775807"])
        #expect(settings.faultRate == 1)
        #expect(settings.faultKinds == (try FaultMix(parsing: "503:3,500,reset")))
        #expect(settings.text(of: .faultKinds) == "503:3,500,reset")
        #expect(settings.faultSeed == UInt64(Int64.max))
        #expect(settings.hangMs == 1)
        #expect(settings.retryAfterSeconds == 86_400)
    }

    @Test func aRateOutOfRangeIsNamed() async throws {
        let fromFlag = try await Support.loadError(["--fault-rate", "1.5"])
        #expect(fromFlag?.description == "faults.rate (--fault-rate) = 1.5 must be in 0...1")
        #expect(fromFlag?.source == .commandLine)
        let fromEnvironment = try await Support.loadError(environment: ["LISTSERVER_FAULT_RATE": "1.5"])
        #expect(fromEnvironment?.description == "faults.rate (env LISTSERVER_FAULT_RATE) = 1.5 must be in 0...1")
        let path = try temporary.file(#"{"faults": {"rate": -0.5}}"#)
        let fromFile = try await Support.loadError(["--config", path])
        #expect(fromFile?.description == "faults.rate (file \(path)) = -0.5 must be in 0...1")
    }

    @Test(arguments: ["abc", "", " 0.3", "0,3", "nan", "inf", "-inf"])
    func aRateThatIsNotANumberInTheEnvironmentIsNamed(_ text: String) async throws {
        let error = try await Support.loadError(environment: ["LISTSERVER_FAULT_RATE": text])
        #expect(
            error?.description == #"faults.rate (env LISTSERVER_FAULT_RATE) = "\#(text)" must be a number in 0...1"#)
        #expect(error?.source == .environment)
    }

    @Test func notANumberOnTheCommandLineIsNamed() async throws {
        let error = try await Support.loadError(["--fault-rate", "nan"])
        #expect(error?.description == "faults.rate (--fault-rate) = nan must be a number in 0...1")
    }

    @Test func wrongTypesInTheFileAreNamed() async throws {
        let boolean = try temporary.file(#"{"faults": {"rate": true}}"#)
        let booleanError = try await Support.loadError(["--config", boolean])
        #expect(booleanError?.description == "faults.rate (file \(boolean)) = true must be a number in 0...1")
        let quoted = try temporary.file(#"{"store": {"latency": {"spread": "0.5"}}}"#)
        let quotedError = try await Support.loadError(["--config", quoted])
        #expect(
            quotedError?.description == #"store.latency.spread (file \#(quoted)) = "0.5" must be a number in 0...4"#)
        let kinds = try temporary.file(#"{"faults": {"kinds": ["500"]}}"#)
        let kindsError = try await Support.loadError(["--config", kinds])
        #expect(
            kindsError?.description
                == #"faults.kinds (file \#(kinds)) = ["500"] must be a string, a comma-separated list of kind[:weight]"#
        )
    }

    @Test func aBadFaultMixGivesTheParsersReason() async throws {
        let unknown = try await Support.loadError(["--fault-kinds", "500,oops"])
        #expect(
            unknown?.description
                == #"faults.kinds (--fault-kinds) = "500,oops" must be a comma-separated list of kind[:weight]: "#
                + #"unknown fault kind "oops" (kinds: 500, 503, 429, reset, truncated, hang)"#)
        let weight = try await Support.loadError(environment: ["LISTSERVER_FAULT_KINDS": "503:0"])
        #expect(
            weight?.description
                == #"faults.kinds (env LISTSERVER_FAULT_KINDS) = "503:0" must be a comma-separated list of "#
                + #"kind[:weight]: the weight of "503" must be in 1...1000, got "0""#)
        let path = try temporary.file(#"{"faults": {"kinds": "hang,hang"}}"#)
        let twice = try await Support.loadError(["--config", path])
        #expect(twice?.description.hasSuffix(#": fault kind "hang" is listed twice"#) == true)
        #expect(twice?.source == .file(path: path))
    }
}
