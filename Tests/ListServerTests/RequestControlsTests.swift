import ListDomain
import Testing

@testable import ListServer

/// `?delay_ms`, `?fail`, `?fail_rate` and `?fail_first`: what is accepted, and the 400 for everything else.
@Suite("Request controls: parsing")
struct RequestControlsTests {
    /// The controls of `target`, or the problem they were refused with.
    static func parse(_ target: String, maxDelay: Duration = .seconds(30)) -> Result<RequestControls, Problem> {
        Result { () throws(Problem) in
            try RequestControls(target: try RequestTarget(target), maxDelay: maxDelay)
        }
    }

    /// The problem `target` is refused with (a recorded issue if it is accepted).
    static func problem(_ target: String, maxDelay: Duration = .seconds(30)) -> Problem? {
        switch parse(target, maxDelay: maxDelay) {
        case .success(let controls):
            Issue.record("\(target) was accepted: \(controls)")
            return nil
        case .failure(let problem):
            return problem
        }
    }

    @Test("no control parameter: empty, and other parameters are left alone")
    func none() throws {
        for target in ["/items", "/items?page=2&limit=5", "/healthz?_=1700000000", "/items?delay_ms=0"] {
            let controls = try Self.parse(target).get()
            #expect(controls.isEmpty, "\(target)")
            #expect(controls == RequestControls())
        }
    }

    @Test("the cheap pre-check is false without a control name or a percent sign, true otherwise")
    func preCheck() throws {
        for target in ["/items", "/items?page=2&limit=5", "/items/42/detail", "/fail", "/delay_ms", "/items?day=1"] {
            #expect(!RequestControls.mayBePresent(in: try RequestTarget(target)), "\(target)")
        }
        for target in ["/items?delay_ms=5", "/items?page=1&fail=503", "/items?fail_rate=1", "/x?a=%41", "/?fails"] {
            #expect(RequestControls.mayBePresent(in: try RequestTarget(target)), "\(target)")
        }
    }

    @Test("every control parameter, percent-encoded names included")
    func all() throws {
        let controls = try Self.parse("/items?delay_ms=250&fail=503:3,reset&fail_rate=0.25&fail_first=7").get()
        #expect(controls.delay == .milliseconds(250))
        #expect(controls.failMix?.text == "503:3,reset")
        #expect(controls.failRate == 0.25)
        #expect(controls.failFirst == 7)
        #expect(!controls.isEmpty)
        #expect(try Self.parse("/items?%64elay_ms=0012").get().delay == .milliseconds(12))
        #expect(try Self.parse("/items?fail=503%3A2%2C500").get().failMix?.text == "503:2,500")
    }

    @Test(
        "delay_ms is a plain decimal integer of milliseconds up to the limit",
        arguments: [("0", 0), ("1", 1), ("30000", 30_000), ("007", 7)])
    func delays(text: String, milliseconds: Int) throws {
        #expect(try Self.parse("/items?delay_ms=\(text)").get().delay == .milliseconds(milliseconds))
    }

    @Test(
        "a bad delay_ms is a 400 naming it, with the allowed range",
        arguments: ["30001", "-1", "+5", "1.5", "abc", "", "1e3", "99999999999999999999999"])
    func badDelays(text: String) throws {
        let problem = try #require(Self.problem("/items?delay_ms=\(text)"))
        #expect(problem.kind == .invalidParameter)
        #expect(problem.status == 400)
        #expect(problem.parameter == "delay_ms")
        #expect(problem.detail.contains("0...30000 (milliseconds)"), "\(problem.detail)")
    }

    @Test("the largest delay is the configured one")
    func maxDelay() throws {
        #expect(try Self.parse("/items?delay_ms=500", maxDelay: .milliseconds(500)).get().delay == .milliseconds(500))
        let problem = try #require(Self.problem("/items?delay_ms=501", maxDelay: .milliseconds(500)))
        #expect(
            problem.detail
                == #"query parameter "delay_ms" must be a decimal integer in 0...500 (milliseconds), got "501""#)
    }

    @Test(
        "a bad fail mix is a 400 with the mix parser's reason", arguments: ["", "504", "503:0", "503,503", "reset:x"])
    func badMixes(text: String) throws {
        let problem = try #require(Self.problem("/items?fail=\(text)"))
        #expect(problem.parameter == "fail")
        #expect(problem.status == 400)
        let reason = try #require(FaultMix.parseError(text))
        #expect(problem.detail.hasSuffix(reason), "\(problem.detail)")
    }

    @Test(
        "fail_rate is digits with an optional fraction, in 0...1",
        arguments: [("0", 0.0), ("1", 1), ("0.3", 0.3), ("1.000", 1), ("00.5", 0.5)])
    func rates(text: String, rate: Double) throws {
        #expect(try Self.parse("/items?fail_rate=\(text)").get().failRate == rate)
    }

    @Test(
        "anything else as fail_rate is a 400",
        arguments: [".5", "5.", "1e-1", "nan", "inf", "1.5", "-0.1", "", "0.5.1", "0x1"])
    func badRates(text: String) throws {
        let problem = try #require(Self.problem("/items?fail_rate=\(text)"))
        #expect(problem.parameter == "fail_rate")
        #expect(problem.detail.contains("a decimal number in 0...1"))
    }

    @Test("fail_first is a plain decimal integer in 0...1000")
    func failFirst() throws {
        #expect(try Self.parse("/items?fail_first=0").get().failFirst == 0)
        #expect(try Self.parse("/items?fail_first=1000").get().failFirst == 1000)
        for text in ["1001", "-1", "x", ""] {
            #expect(Self.problem("/items?fail_first=\(text)")?.parameter == "fail_first", "\(text)")
        }
    }

    @Test(
        "each control parameter may be given once",
        arguments: ["delay_ms=1", "fail=503", "fail_rate=1", "fail_first=1"])
    func repeated(pair: String) throws {
        let problem = try #require(Self.problem("/items?\(pair)&page=1&\(pair)"))
        #expect(problem.parameter == pair.split(separator: "=").first.map(String.init))
        #expect(problem.detail.contains("twice"))
    }

    @Test("broken percent-encoding: a 400 naming a control parameter; in other parameters, the route's business")
    func encoding() throws {
        let control = try #require(Self.problem("/healthz?delay_ms=%zz"))
        #expect(control.kind == .invalidParameter && control.parameter == "delay_ms")
        #expect(control.detail.contains(#"got "%zz", which"#), "\(control.detail)")
        #expect(try Self.parse("/healthz?fail=503&x=%zz&%zz=1").get().failMix?.text == "503")
    }
}

extension FaultMix {
    /// The parser's message for `text`, or nil if it parses.
    static func parseError(_ text: String) -> String? {
        do {
            _ = try FaultMix(parsing: text)
            return nil
        } catch {
            return error.description
        }
    }
}
