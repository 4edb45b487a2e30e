import ListDomain

/// The per-request control parameters a client developer adds to any URL to rehearse a slow or failing backend.
///
/// - `delay_ms=N`: hold the answer for N milliseconds; a plain decimal integer (ASCII digits only, as for `page`) in
///   `0...maxDelay`.
/// - `fail=<mix>`: inject a fault, kinds as in ``FaultMix`` (`503`, `503:3,reset`).
/// - `fail_rate=R`: how often to inject one, a decimal number in `0...1`: ASCII digits, optionally a `.` and more
///   digits (`0`, `1`, `0.25`, `1.0`, `007.5` is out of range). No sign, no exponent, no leading or trailing `.`
///   (`.5`, `5.`, `1e-1`, `nan`, `inf` are refused), so every client language writes it the same way.
/// - `fail_first=N`: fail the first N requests; a plain decimal integer in `0...1000`.
///
/// Each may be given at most once. Names are matched after percent-decoding; other parameters are left to the route
/// (which decides whether a malformed one matters: `/items` refuses it, `/healthz` ignores it).
struct RequestControls: Sendable, Equatable {
    /// The control parameter names.
    enum Name {
        static let delay = "delay_ms"
        static let fail = "fail"
        static let failRate = "fail_rate"
        static let failFirst = "fail_first"
        static let kbps = "kbps"
        /// The header that sets `kbps` too (for what cannot add a query parameter).
        static let kbpsHeader = "X-Bandwidth-Kbps"
    }

    /// The largest `kbps`: a gigabit.
    static let maximumKbps = 1_000_000

    /// The largest `fail_first`.
    static let maximumFailFirst: UInt64 = 1000

    /// How long to hold the answer (`delay_ms`); zero when not asked for.
    var delay: Duration = .zero
    /// The faults to inject (`fail`).
    var failMix: FaultMix?
    /// How often to inject a fault (`fail_rate`).
    var failRate: Double?
    /// How many requests to fail before answering normally (`fail_first`).
    var failFirst: UInt64?
    /// The rate to send the answer at (`kbps`, or `X-Bandwidth-Kbps`), in bytes a second.
    var bytesPerSecond: Int?
    /// The dataset whose profile gave the fault controls (its `faults`), for the problem's detail; nil when the
    /// request's query did.
    var profile: String?

    /// True when no control asks for anything (no parameter, or only `delay_ms=0`).
    var isEmpty: Bool {
        delay == .zero && failMix == nil && failRate == nil && failFirst == nil && bytesPerSecond == nil
    }

    /// No controls.
    init() {}

    /// Whether a request-target's query may carry control parameters: false, cheaply, for almost every request.
    ///
    /// True when the query contains `fail` or `delay_ms` anywhere, or any `%` (a percent-encoded name could spell
    /// one); false means ``init(target:maxDelay:)`` would find no control parameter, so it need not run.
    static func mayBePresent(in target: RequestTarget) -> Bool {
        // Over the query's bytes by index: every request pays for this scan, and stepping a `Substring.UTF8View`
        // with `dropFirst()` cost about 80 instructions a byte (callgrind, issue 16).
        guard let query = target.query else { return false }
        let bytes = query.utf8.span
        var index = 0
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "%"): return true
            case UInt8(ascii: "f") where starts(bytes, at: index, with: "fail"): return true
            case UInt8(ascii: "d") where starts(bytes, at: index, with: "delay_ms"): return true
            case UInt8(ascii: "k") where starts(bytes, at: index, with: "kbps"): return true
            default: index &+= 1
            }
        }
        return false
    }

    /// Whether `bytes` holds `word` at `index`.
    private static func starts(_ bytes: Span<UInt8>, at index: Int, with word: StaticString) -> Bool {
        HTTPBytes.equals(bytes, index..<(index &+ word.utf8CodeUnitCount), word)
    }

    /// Reads and validates the control parameters of a request's query.
    ///
    /// - Parameters:
    ///   - target: The request-target whose query is read.
    ///   - maxDelay: The largest `delay_ms` allowed (``FaultSettings/maxDelay``).
    /// - Throws: A 400 ``Problem`` (`invalid-parameter`, with the `parameter` member) for a bad or repeated control
    ///   parameter, including one whose value does not percent-decode.
    init(target: RequestTarget, maxDelay: Duration) throws(Problem) {
        var seen: [String: String] = [:]
        // Split as ``RequestTarget/queryItems()`` does, but only control parameters must decode: routes that read
        // no query (`/healthz`, `/items/<id>`) ignore a malformed one, and keep doing so.
        for pairBytes in (target.query ?? "").utf8.split(separator: UInt8(ascii: "&")) {
            let pair = Substring(pairBytes)
            let equals = pair.utf8.firstIndex(of: UInt8(ascii: "="))
            let rawValue = equals.map { pair[pair.utf8.index(after: $0)...] } ?? pair[pair.endIndex...]
            guard let name = try? PercentDecoding.decode(pair[..<(equals ?? pair.endIndex)], plusAsSpace: true),
                let expected = Self.expectation(for: name, maxDelay: maxDelay)
            else { continue }
            let value: String
            do {
                value = try PercentDecoding.decode(rawValue, plusAsSpace: true)
            } catch {
                throw Self.problem(name, expected: expected, got: Problem.quoted(rawValue) + ", which " + error.phrase)
            }
            if let first = seen[name] {
                throw Self.problem(
                    name, expected: expected,
                    got: "it twice (\(Problem.quoted(first)) and \(Problem.quoted(value))); give it once")
            }
            seen[name] = value
        }
        if let text = seen[Name.delay] { delay = try Self.delay(text, maxDelay: maxDelay) }
        if let text = seen[Name.fail] { failMix = try Self.mix(text) }
        if let text = seen[Name.failRate] { failRate = try Self.rate(text) }
        if let text = seen[Name.failFirst] {
            guard let count = UInt64(plainDecimal: text), count <= Self.maximumFailFirst else {
                throw Self.problem(
                    Name.failFirst, expected: "a decimal integer in 0...\(Self.maximumFailFirst)",
                    got: Problem.quoted(text))
            }
            failFirst = count
        }
        if let text = seen[Name.kbps] {
            guard let rate = Self.bytesPerSecond(kbps: text) else {
                throw Self.problem(
                    Name.kbps, expected: Self.expectation(for: Name.kbps, maxDelay: maxDelay)!,
                    got: Problem.quoted(text))
            }
            bytesPerSecond = rate
        }
    }

    /// `kbps` (or its header) as bytes a second; nil when it is not a whole number in 1...``maximumKbps``.
    static func bytesPerSecond(kbps text: String) -> Int? {
        guard let kbps = UInt64(plainDecimal: text), (1...UInt64(maximumKbps)).contains(kbps) else { return nil }
        return max(1, Int(kbps) * 1000 / 8)
    }

    /// What a control parameter must be, for its problem's detail; nil for a name that is not a control parameter.
    private static func expectation(for name: String, maxDelay: Duration) -> String? {
        switch name {
        case Name.delay: "a decimal integer in 0...\(max(maxDelay.wholeMilliseconds, 0)) (milliseconds)"
        case Name.fail: "a fault mix such as \"503\" or \"503:3,reset\""
        case Name.failRate: "a decimal number in 0...1, such as 0.25"
        case Name.failFirst: "a decimal integer in 0...\(maximumFailFirst)"
        case Name.kbps: "a decimal integer in 1...\(maximumKbps) (kilobits a second)"
        default: nil
        }
    }

    /// `delay_ms` as a duration, or a 400.
    private static func delay(_ text: String, maxDelay: Duration) throws(Problem) -> Duration {
        let maximum = UInt64(max(maxDelay.wholeMilliseconds, 0))
        guard let milliseconds = UInt64(plainDecimal: text), milliseconds <= maximum else {
            throw problem(
                Name.delay, expected: "a decimal integer in 0...\(maximum) (milliseconds)", got: Problem.quoted(text))
        }
        return .milliseconds(Int64(milliseconds))
    }

    /// `fail` as a mix, or a 400 with the parser's reason.
    private static func mix(_ text: String) throws(Problem) -> FaultMix {
        do {
            return try FaultMix(parsing: text)
        } catch {
            throw Problem(
                .invalidParameter,
                detail: "query parameter \"fail\" must be a fault mix such as \"503\" or \"503:3,reset\": "
                    + error.description,
                parameter: Name.fail)
        }
    }

    /// `fail_rate` as a number in 0...1, or a 400.
    private static func rate(_ text: String) throws(Problem) -> Double {
        let parts = text.utf8.split(separator: UInt8(ascii: "."), maxSplits: 1, omittingEmptySubsequences: false)
        let digitsOnly = parts.allSatisfy { part in
            !part.isEmpty && part.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        }
        guard digitsOnly, let rate = Double(text), rate >= 0, rate <= 1 else {
            throw problem(Name.failRate, expected: "a decimal number in 0...1, such as 0.25", got: Problem.quoted(text))
        }
        return rate
    }

    /// "query parameter "delay_ms" must be <expected>, got <what>".
    private static func problem(_ name: String, expected: String, got what: String) -> Problem {
        Problem(
            .invalidParameter, detail: "query parameter \"\(name)\" must be \(expected), got \(what)", parameter: name)
    }
}
