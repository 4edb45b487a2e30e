/// What every request to one dataset meets, set at run time (`PUT /admin/datasets/<name>/profile`): so a UI test can
/// say "for this run, the second page fails twice, then the server goes away for ten seconds" without touching the
/// app it drives.
///
/// Its parts: an ``Outage`` (everything to the dataset answers 503 for a while, once or repeatedly), a ``script``,
/// an ordered list of ``Step``s (the next `times` requests that match the first step not yet used up get its answer,
/// then the next step applies), ``Faults`` drawn as the server's fault settings draw them, and the network
/// (`DatasetProfile+Network.swift`): ``Latency``, ``Bandwidth``, a ``RateLimit`` and ``Auth``.
public struct DatasetProfile: Sendable, Equatable {
    /// A time the dataset is unavailable: `forMs` from when the profile was set, and again every `everyMs` when
    /// that is given.
    public struct Outage: Sendable, Equatable {
        public var forMs: UInt64
        public var everyMs: UInt64?

        public init(forMs: UInt64, everyMs: UInt64? = nil) {
            self.forMs = forMs
            self.everyMs = everyMs
        }

        /// How much of the outage is left `elapsed` after it started; nil outside it.
        public func remaining(after elapsed: Duration) -> Duration? {
            remaining(afterMilliseconds: elapsed.milliseconds)
        }

        /// ``remaining(after:)`` in whole milliseconds, as a request's verdict counts (no 128-bit arithmetic).
        func remaining(afterMilliseconds elapsed: Int64) -> Duration? {
            let elapsedMs = UInt64(max(0, elapsed))
            let phase = everyMs.map { elapsedMs % $0 } ?? elapsedMs
            guard phase < forMs else { return nil }
            return .milliseconds(Int64(forMs - phase))
        }
    }

    /// Which requests a step answers: all of its conditions hold (a condition left out holds for every request).
    public struct Match: Sendable, Equatable {
        /// The method, `GET`, `POST`, ...
        public var method: String?
        /// The route's path template, `/items/{id}/detail`.
        public var route: String?
        /// Query parameters the request must carry with these values (others may come too).
        public var query: [Parameter]

        public struct Parameter: Sendable, Equatable {
            public var name: String
            public var value: String

            public init(name: String, value: String) {
                self.name = name
                self.value = value
            }
        }

        public init(method: String? = nil, route: String? = nil, query: [Parameter] = []) {
            self.method = method
            self.route = route
            self.query = query
        }

        /// Whether `request` meets every condition.
        public func matches(_ request: ProfileRequest) -> Bool {
            if let method, method != request.method { return false }
            if let route, route != request.route { return false }
            return query.allSatisfy { request.carries($0) }
        }
    }

    /// What a step answers with: a status (a problem answer in place of the route's), a wire fault (on that answer
    /// or on the route's own), a delay before it is sent; at least one of them.
    public struct Answer: Sendable, Equatable {
        public var status: Int?
        /// `Retry-After` with the status, in seconds.
        public var retryAfterSeconds: Int?
        public var bodyDelayMs: Int?
        /// `reset`, `truncated` or `hang`.
        public var kind: FaultKind?

        public init(status: Int? = nil, retryAfterSeconds: Int? = nil, bodyDelayMs: Int? = nil, kind: FaultKind? = nil)
        {
            self.status = status
            self.retryAfterSeconds = retryAfterSeconds
            self.bodyDelayMs = bodyDelayMs
            self.kind = kind
        }
    }

    /// One step of the script: the next `times` requests that match get `answer`.
    public struct Step: Sendable, Equatable {
        public var match: Match
        public var answer: Answer
        public var times: Int

        public init(match: Match, answer: Answer, times: Int) {
            self.match = match
            self.answer = answer
            self.times = times
        }
    }

    /// Faults drawn for the dataset's requests, as the server's `faults.*` and a request's `?fail_rate=`, `?fail=`
    /// and `?fail_first=` draw them: for the requests that carry none of those parameters.
    public struct Faults: Sendable, Equatable {
        /// The share of requests that fail; nil: 1 when `mix` is given, else the server's `faults.rate`.
        public var rate: Double?
        /// Which faults, how often each; nil: the server's `faults.kinds`.
        public var mix: FaultMix?
        /// The first this many requests for a resource from a client fail (then none), as `?fail_first=`.
        public var failFirst: UInt64?
        /// The seed of the dataset's fault draws, set when the profile is.
        public var seed: UInt64?

        public init(rate: Double? = nil, mix: FaultMix? = nil, failFirst: UInt64? = nil, seed: UInt64? = nil) {
            self.rate = rate
            self.mix = mix
            self.failFirst = failFirst
            self.seed = seed
        }
    }

    public var outage: Outage?
    public var script: [Step]
    public var faults: Faults?
    public var latency: Latency?
    public var bandwidth: Bandwidth?
    public var rateLimit: RateLimit?
    public var auth: Auth?
    /// Simulated participants in the dataset's chat (``ChatActivityDriver``).
    public var chat: ChatActivity?

    /// About how many bytes the profile holds in memory: what ``ProfileRegistry`` bounds.
    public var approximateBytes: Int {
        script.reduce(64) { bytes, step in
            bytes + 96 + (step.match.method?.utf8.count ?? 0) + (step.match.route?.utf8.count ?? 0)
                + step.match.query.reduce(0) { $0 + 32 + $1.name.utf8.count + $1.value.utf8.count }
        }
    }

    public init(
        outage: Outage? = nil, script: [Step] = [], faults: Faults? = nil, latency: Latency? = nil,
        bandwidth: Bandwidth? = nil, rateLimit: RateLimit? = nil, auth: Auth? = nil, chat: ChatActivity? = nil
    ) {
        self.outage = outage
        self.script = script
        self.faults = faults
        self.latency = latency
        self.bandwidth = bandwidth
        self.rateLimit = rateLimit
        self.auth = auth
        self.chat = chat
    }
}

/// What a profile looks at in a request.
public struct ProfileRequest: Sendable {
    /// Which ``DatasetProfile/Latency`` a route's answers get.
    public enum Kind: Sendable, Equatable {
        case list, detail, image, stream
    }

    /// What of a request a profile looks at, besides its method, route and kind: the rest may be left empty.
    public struct Needs: Sendable, Equatable {
        /// A step has conditions on the query.
        public var query: Bool
        /// There is a rate limit, per client.
        public var client: Bool
        /// There is `auth`.
        public var token: Bool

        public init(query: Bool, client: Bool, token: Bool) {
            self.query = query
            self.client = client
            self.token = token
        }
    }

    public var method: String
    /// The route's path template.
    public var route: String
    /// The decoded query parameters, in order; empty when ``plainQuery`` has them.
    public var query: [DatasetProfile.Match.Parameter]
    /// The query as sent, when nothing in it is escaped (no `%`, no `+`): every name and value is then itself, and
    /// a step's conditions are checked in place, with nothing decoded or allocated (decoding a page's query into
    /// parameters cost some 2,500 instructions a request, callgrind, an eighth of a profile of every field).
    public var plainQuery: Substring?
    public var kind: Kind
    /// Who is asking, for the rate limit: `X-Client-Id`, else the peer's address.
    public var client: String
    /// The bearer token it carries, if any.
    /// The bearer token it carries, as the number it writes (32 hex digits: ``BearerTokens``); nil without one, or
    /// with one that is not such a number.
    public var token: UInt128?
    /// Whether it carries a token at all (a malformed one included).
    public var carriesToken: Bool

    public init(
        method: String, route: String, query: [DatasetProfile.Match.Parameter], plainQuery: Substring? = nil,
        kind: Kind = .list, client: String = "", token: UInt128? = nil, carriesToken: Bool? = nil
    ) {
        self.method = method
        self.route = route
        self.query = query
        self.plainQuery = plainQuery
        self.kind = kind
        self.client = client
        self.token = token
        self.carriesToken = carriesToken ?? (token != nil)
    }
}

extension ProfileRequest {
    /// Whether the request's query has `parameter` (that name with that value).
    func carries(_ parameter: DatasetProfile.Match.Parameter) -> Bool {
        guard let plainQuery else { return query.contains { $0 == parameter } }
        // Over the bytes in place, by index: `split` over a `Substring.UTF8View` made an array of slices and cost
        // more than decoding the query did.
        return Self.plain(plainQuery.utf8.span, has: parameter.name.utf8.span, parameter.value.utf8.span)
    }

    /// Whether `query` (unescaped) has a pair `name=value`, or a bare `name` when `value` is empty, between `&`s.
    private static func plain(_ query: Span<UInt8>, has name: Span<UInt8>, _ value: Span<UInt8>) -> Bool {
        var start = 0
        while start <= query.count {
            var end = start
            while end < query.count, query[end] != UInt8(ascii: "&") { end += 1 }
            var equals = start
            while equals < end, query[equals] != UInt8(ascii: "=") { equals += 1 }
            let valueStart = min(equals + 1, end)
            // An empty pair is skipped, as decoding does.
            if end > start, equals - start == name.count, end - valueStart == value.count,
                equal(query.extracting(start..<equals), name), equal(query.extracting(valueStart..<end), value)
            {
                return true
            }
            start = end + 1
        }
        return false
    }

    /// Whether two spans of the same length hold the same bytes.
    private static func equal(_ lhs: Span<UInt8>, _ rhs: Span<UInt8>) -> Bool {
        for index in 0..<lhs.count where lhs[index] != rhs[index] { return false }
        return true
    }
}

extension Duration {
    /// The whole milliseconds in this duration, rounded down.
    var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
