import ListDomain

/// The network's fields of a profile body:
///
/// ```json
/// {"latency": {"list": {"min_ms": 300, "max_ms": 900}, "detail": {"fixed_ms": 800},
///              "image": {"median_ms": 400, "spread": 0.5, "max_ms": 3000}},
///  "bandwidth": {"kbps": 750, "first_byte_ms": 200},
///  "rate_limit": {"requests": 10, "per_s": 1, "burst": 20},
///  "auth": {"token_ttl_s": 30}}
/// ```
///
/// A latency takes the keys of `store.latency.*`: `distribution` (`uniform`, `fixed`, `lognormal`, `none`), or
/// left out, the one its keys name (`fixed_ms`: fixed; `median_ms`: lognormal; `min_ms`/`max_ms`: uniform).
extension ProfileBody {
    /// The most `kbps`, a gigabit, and the most requests a rate limit counts or its window, a day.
    static let maximumKbps = 1_000_000
    static let maximumRateRequests = 1_000_000
    static let maximumRateWindowSeconds = 86_400
    /// The longest a token lives: a day.
    static let maximumTokenTTLSeconds = 86_400

    static func latency(_ json: RequestJSON, maxDelayMs: Int) throws(Problem) -> DatasetProfile.Latency? {
        if case .null = json { return nil }
        var latency = DatasetProfile.Latency()
        for (key, value) in try object(json, "latency") {
            switch key {
            case "list": latency.list = try distribution(value, "latency.list", maxDelayMs: maxDelayMs)
            case "detail": latency.detail = try distribution(value, "latency.detail", maxDelayMs: maxDelayMs)
            case "image": latency.image = try distribution(value, "latency.image", maxDelayMs: maxDelayMs)
            default: throw unknown(key, in: "latency", takes: "list, detail, image")
            }
        }
        guard latency != DatasetProfile.Latency() else { throw invalid("latency needs list, detail or image") }
        return latency
    }

    private static func distribution(_ json: RequestJSON, _ name: String, maxDelayMs: Int) throws(Problem)
        -> LatencyDistribution?
    {
        if case .null = json { return nil }
        var kind: String?
        var milliseconds: [String: Int] = [:]
        var spread: Double?
        for (key, value) in try object(json, name) {
            switch key {
            case "distribution":
                let text = try string(value, name + ".distribution")
                guard ["uniform", "fixed", "lognormal", "none"].contains(text) else {
                    throw invalid("\(name).distribution must be uniform, fixed, lognormal or none")
                }
                kind = text
            case "min_ms", "max_ms", "fixed_ms", "median_ms":
                milliseconds[key] = try integer(value, "\(name).\(key)", 0...maxDelayMs)
            case "spread":
                guard case .number(let number) = value, (0...4).contains(number.double) else {
                    throw invalid("\(name).spread must be a number in 0...4")
                }
                spread = number.double
            default: throw unknown(key, in: name, takes: "distribution, min_ms, max_ms, fixed_ms, median_ms, spread")
            }
        }
        let chosen =
            kind
            ?? (milliseconds["fixed_ms"] != nil ? "fixed" : milliseconds["median_ms"] != nil ? "lognormal" : "uniform")
        // Each distribution takes its own keys (as `store.latency.*` does); one it would not read is refused, so
        // a test never believes a value is in force that is not.
        let takes: Set<String> =
            switch chosen {
            case "fixed": ["fixed_ms"]
            case "lognormal": ["median_ms", "max_ms", "spread"]
            case "uniform": ["min_ms", "max_ms"]
            default: []
            }
        let given = Set(milliseconds.keys).union(spread == nil ? [] : ["spread"])
        if let stray = given.subtracting(takes).sorted().first {
            throw invalid("\(name): a \(chosen) latency does not take \(stray)")
        }
        let ms = { (key: String) -> Duration in .milliseconds(milliseconds[key] ?? 0) }
        switch chosen {
        case "fixed":
            guard milliseconds["fixed_ms"] != nil else { throw invalid("\(name): a fixed latency needs fixed_ms") }
            return .fixed(ms("fixed_ms"))
        case "lognormal":
            guard milliseconds["median_ms"] != nil else {
                throw invalid("\(name): a lognormal latency needs median_ms")
            }
            return .lognormal(
                median: ms("median_ms"), spread: spread ?? 0.5, max: .milliseconds(milliseconds["max_ms"] ?? maxDelayMs)
            )
        case "uniform":
            guard let max = milliseconds["max_ms"] else { throw invalid("\(name): a uniform latency needs max_ms") }
            let min = milliseconds["min_ms"] ?? 0
            guard min <= max else { throw invalid("\(name).min_ms (\(min)) must not be above max_ms (\(max))") }
            return .uniform(min: .milliseconds(min), max: .milliseconds(max))
        default:
            return LatencyDistribution.none
        }
    }

    static func bandwidth(_ json: RequestJSON, maxDelayMs: Int) throws(Problem) -> DatasetProfile.Bandwidth? {
        if case .null = json { return nil }
        var kbps: Int?
        var firstByte = 0
        for (key, value) in try object(json, "bandwidth") {
            switch key {
            case "kbps": kbps = try integer(value, "bandwidth.kbps", 1...maximumKbps)
            case "first_byte_ms": firstByte = try integer(value, "bandwidth.first_byte_ms", 0...maxDelayMs)
            default: throw unknown(key, in: "bandwidth", takes: "kbps, first_byte_ms")
            }
        }
        guard let kbps else { throw invalid("bandwidth.kbps is required") }
        return DatasetProfile.Bandwidth(kbps: kbps, firstByteMs: firstByte)
    }

    static func rateLimit(_ json: RequestJSON) throws(Problem) -> DatasetProfile.RateLimit? {
        if case .null = json { return nil }
        var requests: Int?
        var window = 1
        var burst: Int?
        for (key, value) in try object(json, "rate_limit") {
            switch key {
            case "requests": requests = try integer(value, "rate_limit.requests", 1...maximumRateRequests)
            case "per_s": window = try integer(value, "rate_limit.per_s", 1...maximumRateWindowSeconds)
            case "burst": burst = try integer(value, "rate_limit.burst", 1...maximumRateRequests)
            default: throw unknown(key, in: "rate_limit", takes: "requests, per_s, burst")
            }
        }
        guard let requests else { throw invalid("rate_limit.requests is required") }
        return DatasetProfile.RateLimit(requests: requests, perSeconds: window, burst: burst)
    }

    static func auth(_ json: RequestJSON) throws(Problem) -> DatasetProfile.Auth? {
        if case .null = json { return nil }
        var ttl: Int?
        for (key, value) in try object(json, "auth") {
            switch key {
            case "token_ttl_s": ttl = try integer(value, "auth.token_ttl_s", 1...maximumTokenTTLSeconds)
            case _ where readOnly.contains(key): continue
            default: throw unknown(key, in: "auth", takes: "token_ttl_s")
            }
        }
        guard let ttl else { throw invalid("auth.token_ttl_s is required") }
        return DatasetProfile.Auth(tokenTTLSeconds: ttl)
    }
}
