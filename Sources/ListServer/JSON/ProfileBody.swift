import ListDomain

/// The body of `PUT /admin/datasets/<name>/profile`, read into a ``DatasetProfile``, and the profile written back as
/// `GET` answers it.
///
/// ```json
/// {"outage": {"for_ms": 10000, "every_ms": 60000},
///  "script": [{"match": {"method": "GET", "route": "/items", "query": {"page": "2"}},
///              "respond": {"status": 503, "retry_after_s": 2, "body_delay_ms": 0, "kind": "reset"},
///              "times": 2}]}
/// ```
///
/// Strict, as every request body: unknown members, wrong types and values out of range are a 400 naming the member.
/// The network's fields (`latency`, `bandwidth`, `rate_limit`, `auth`) are read in `ProfileBody+Network.swift`.
enum ProfileBody {
    /// A route a step may name: the dataset's routes (not the probes, the documents or the admin routes).
    struct Route: Sendable {
        let template: String
        /// The methods it answers, `GET`, …
        let methods: [String]
        /// An event stream, which has no single answer to cut or hold: its steps take only a status.
        let stream: Bool
    }

    /// The most steps a script has.
    static let maximumSteps = 100
    /// The longest outage, and its longest period: a day.
    static let maximumOutageMs: UInt64 = 86_400_000
    /// The most requests one step answers.
    static let maximumTimes = 1_000_000
    /// The most query conditions one step has.
    static let maximumQueryConditions = 20
    /// The longest `retry_after_s`, and the longest name or value of a query condition.
    static let maximumRetryAfterSeconds = 86_400
    static let maximumQueryTextBytes = 256
    /// Members of the profile as `GET` answers it that `PUT` takes back and ignores (they say where the profile
    /// stands, which setting it starts over).
    static let readOnly: Set = ["active", "remaining_ms", "left", "tokens"]
    /// The largest `faults.fail_first`, as `?fail_first=`'s.
    static let maximumFailFirst = 1000

    /// Reads `body`, the profile of dataset `dataset`.
    ///
    /// - Parameters:
    ///   - routes: The routes a step's `route` may name.
    ///   - maxDelayMs: The longest `body_delay_ms` (``SettingKey/maxDelayMs``, as `?delay_ms`).
    /// - Throws: 400 `invalid-body` saying which member is wrong and why.
    static func profile(_ body: [UInt8], dataset: String, routes: [Route], maxDelayMs: Int) throws(Problem)
        -> DatasetProfile
    {
        let json: RequestJSON
        do {
            json = try RequestJSON.parse(body, maxDepth: 5)
        } catch {
            throw invalid("the profile is not valid JSON: \(error.reason) at byte \(error.offset)")
        }
        var profile = DatasetProfile()
        for (key, value) in try object(json, "the profile") {
            switch key {
            case "outage": profile.outage = try outage(value)
            case "faults": profile.faults = try faults(value)
            case "script":
                guard case .array(let steps) = value else { throw invalid("script must be an array of steps") }
                guard steps.count <= maximumSteps else { throw invalid("script has more than \(maximumSteps) steps") }
                for (index, step) in steps.enumerated() {
                    profile.script.append(
                        try self.step(step, "script[\(index)]", routes: routes, maxDelayMs: maxDelayMs))
                }
            case "dataset":
                guard case .string(let name) = value, name == dataset else {
                    throw invalid("dataset must be \(Problem.quoted(dataset)), the dataset of the path, or left out")
                }
            case "latency": profile.latency = try latency(value, maxDelayMs: maxDelayMs)
            case "bandwidth": profile.bandwidth = try bandwidth(value, maxDelayMs: maxDelayMs)
            case "rate_limit": profile.rateLimit = try rateLimit(value)
            case "auth": profile.auth = try auth(value)
            case "chat": profile.chat = try chat(value)
            default:
                throw unknown(
                    key, in: "the profile",
                    takes: "outage, script, faults, latency, bandwidth, rate_limit, auth, chat")
            }
        }
        return profile
    }

    private static func outage(_ json: RequestJSON) throws(Problem) -> DatasetProfile.Outage? {
        if case .null = json { return nil }
        var forMs: UInt64?
        var everyMs: UInt64?
        for (key, value) in try object(json, "outage") {
            switch key {
            case "for_ms": forMs = UInt64(try integer(value, "outage.for_ms", 1...Int(maximumOutageMs)))
            case "every_ms": everyMs = UInt64(try integer(value, "outage.every_ms", 1...Int(maximumOutageMs)))
            case _ where readOnly.contains(key): continue
            default: throw unknown(key, in: "outage", takes: "for_ms, every_ms")
            }
        }
        guard let forMs else { throw invalid("outage.for_ms is required") }
        if let everyMs, everyMs <= forMs {
            throw invalid("outage.every_ms (\(everyMs)) must be longer than outage.for_ms (\(forMs))")
        }
        return DatasetProfile.Outage(forMs: forMs, everyMs: everyMs)
    }

    private static func faults(_ json: RequestJSON) throws(Problem) -> DatasetProfile.Faults? {
        if case .null = json { return nil }
        var faults = DatasetProfile.Faults()
        for (key, value) in try object(json, "faults") {
            switch key {
            case "rate":
                guard case .number(let number) = value, (0...1).contains(number.double) else {
                    throw invalid("faults.rate must be a number in 0...1")
                }
                faults.rate = number.double
            case "kinds":
                let text = try string(value, "faults.kinds")
                do {
                    faults.mix = try FaultMix(parsing: text)
                } catch {
                    throw invalid("faults.kinds must be a fault mix such as \"503\" or \"503:3,reset\": \(error)")
                }
            case "fail_first": faults.failFirst = UInt64(try integer(value, "faults.fail_first", 1...maximumFailFirst))
            case "seed": faults.seed = UInt64(try integer(value, "faults.seed", 0...Int.max))
            default: throw unknown(key, in: "faults", takes: "rate, kinds, fail_first, seed")
            }
        }
        if faults.failFirst != nil && faults.rate != nil {
            throw invalid("faults takes fail_first or rate, not both (as ?fail_first= and ?fail_rate=)")
        }
        guard faults.rate != nil || faults.mix != nil || faults.failFirst != nil else {
            throw invalid("faults needs a rate, kinds or fail_first (a seed alone draws nothing)")
        }
        return faults
    }

    private static func step(_ json: RequestJSON, _ name: String, routes: [Route], maxDelayMs: Int) throws(Problem)
        -> DatasetProfile.Step
    {
        var match = DatasetProfile.Match()
        var answer: DatasetProfile.Answer?
        var times = 1
        for (key, value) in try object(json, name) {
            switch key {
            case "match": match = try self.match(value, name + ".match", routes: routes)
            case "respond": answer = try respond(value, name + ".respond", maxDelayMs: maxDelayMs)
            case "times": times = try integer(value, name + ".times", 1...maximumTimes)
            case _ where readOnly.contains(key): continue
            default: throw unknown(key, in: name, takes: "match, respond, times")
            }
        }
        guard let answer else { throw invalid("\(name).respond is required") }
        // A step that could never act would hold up every step after it: refused.
        if let template = match.route, let route = routes.first(where: { $0.template == template }) {
            if let method = match.method, !route.methods.contains(method) {
                throw invalid(
                    "\(name).match: \(template) does not answer \(method) (it answers "
                        + route.methods.joined(separator: ", ") + ")")
            }
            if route.stream && (answer.kind != nil || answer.bodyDelayMs != nil || answer.status == nil) {
                throw invalid("\(name): \(template) is an event stream, which a step can only answer with a status")
            }
        }
        return DatasetProfile.Step(match: match, answer: answer, times: times)
    }

    private static func match(_ json: RequestJSON, _ name: String, routes: [Route]) throws(Problem)
        -> DatasetProfile.Match
    {
        var match = DatasetProfile.Match()
        for (key, value) in try object(json, name) {
            switch key {
            case "method":
                let method = try string(value, name + ".method")
                guard ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"].contains(method) else {
                    throw invalid(
                        "\(name).method must be GET, HEAD, POST, PUT, PATCH or DELETE, not \(Problem.quoted(method))")
                }
                match.method = method
            case "route":
                let route = try string(value, name + ".route")
                guard routes.contains(where: { $0.template == route }) else {
                    throw invalid(
                        "\(name).route must be the template of one of the dataset's routes, such as /items/{id}/detail "
                            + "(" + routes.map(\.template).joined(separator: ", ") + "), not \(Problem.quoted(route))")
                }
                match.route = route
            case "query":
                let conditions = try object(value, name + ".query")
                guard conditions.count <= maximumQueryConditions else {
                    throw invalid("\(name).query has more than \(maximumQueryConditions) parameters")
                }
                for (parameter, wanted) in conditions {
                    let value = try string(wanted, "\(name).query.\(parameter)")
                    guard parameter.utf8.count <= maximumQueryTextBytes, value.utf8.count <= maximumQueryTextBytes
                    else {
                        throw invalid("\(name).query: names and values are at most \(maximumQueryTextBytes) bytes")
                    }
                    match.query.append(.init(name: parameter, value: value))
                }
            default: throw unknown(key, in: name, takes: "method, route, query")
            }
        }
        return match
    }

    private static func respond(_ json: RequestJSON, _ name: String, maxDelayMs: Int) throws(Problem)
        -> DatasetProfile.Answer
    {
        var answer = DatasetProfile.Answer()
        for (key, value) in try object(json, name) {
            switch key {
            case "status": answer.status = try integer(value, name + ".status", 400...599)
            case "retry_after_s":
                answer.retryAfterSeconds = try integer(value, name + ".retry_after_s", 0...maximumRetryAfterSeconds)
            case "body_delay_ms":
                answer.bodyDelayMs = try integer(value, name + ".body_delay_ms", 0...maxDelayMs)
            case "kind":
                let kind = try string(value, name + ".kind")
                guard let fault = FaultKind(rawValue: kind), [.reset, .truncated, .hang].contains(fault) else {
                    throw invalid("\(name).kind must be reset, truncated or hang, not \(Problem.quoted(kind))")
                }
                answer.kind = fault
            default: throw unknown(key, in: name, takes: "status, retry_after_s, body_delay_ms, kind")
            }
        }
        if answer.retryAfterSeconds != nil && answer.status == nil {
            throw invalid("\(name).retry_after_s goes with a status")
        }
        guard answer.status != nil || answer.kind != nil || answer.bodyDelayMs != nil else {
            throw invalid("\(name) needs a status, a kind or a body_delay_ms")
        }
        return answer
    }

    // MARK: Members

    static func object(_ json: RequestJSON, _ name: String) throws(Problem) -> [(
        key: String, value: RequestJSON
    )] {
        guard case .object(let members) = json else { throw invalid("\(name) must be a JSON object") }
        return members
    }

    static func string(_ json: RequestJSON, _ name: String) throws(Problem) -> String {
        guard case .string(let value) = json else { throw invalid("\(name) must be a string") }
        return value
    }

    static func integer(_ json: RequestJSON, _ name: String, _ range: ClosedRange<Int>) throws(Problem) -> Int {
        guard case .number(let number) = json, let value = number.wholeValue, range.contains(value) else {
            throw invalid("\(name) must be an integer in \(range.lowerBound)...\(range.upperBound)")
        }
        return value
    }

    static func unknown(_ key: String, in name: String, takes: String) -> Problem {
        invalid("unknown member \(Problem.quoted(key)) in \(name), which takes \(takes)")
    }

    static func invalid(_ detail: String) -> Problem {
        Problem(.invalidBody, detail: detail)
    }
}
