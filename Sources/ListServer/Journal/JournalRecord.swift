/// A request as a loop hands it to the journal, the moment its answer is done: the request and the answer's parts,
/// read at once into a ``JournalEntry`` (``Journal/pending(_:peers:)``) while they are in the loop's cache.
///
/// Kept as they were until the journal took them in, 100 ms later, they cost more in cache misses than the reading:
/// the entry made then, and the request's fields and strings freed then, touched memory long gone cold (perf: the
/// journal took 14 % of a loaded server's CPU so, 6 % read at once).
struct JournalRecord: Sendable {
    var request: HTTPRequest
    /// The route's place in the route table (``Journal/routes``); nil for `other`.
    var route: Int?
    var status: Int
    var responseHeaders: HTTPHeaders
    /// The answer's body bytes (0 for HEAD).
    var bytes: Int
    var note: ResponseNote?
    var wireFault: WireFault?
    var start: ContinuousClock.Instant
    var end: ContinuousClock.Instant
    /// Set when the client left before its answer was whole: the body bytes it had got.
    var abandonedAt: Int?
}

extension JournalEntry {
    /// The entry of `record`, with times in microseconds since `epoch`; `routes` names the route table's routes,
    /// `peers` the clients that send no id of their own, made once per connection of a collection.
    init(_ record: JournalRecord, epoch: ContinuousClock.Instant, routes: [String], peers: inout PeerNames) {
        let request = record.request
        var client: String?
        var range, ifMatch, ifNoneMatch, lastEventID, idempotencyKey: String?
        request.headers.forEachField { name, value in
            switch name.utf8.count {
            case 5 where HTTPHeaders.namesMatch(name, "Range"): range = range ?? value
            case 8 where HTTPHeaders.namesMatch(name, "If-Match"): ifMatch = ifMatch ?? value
            case 11 where HTTPHeaders.namesMatch(name, "X-Client-Id"): client = client ?? value
            case 13 where HTTPHeaders.namesMatch(name, "If-None-Match"): ifNoneMatch = ifNoneMatch ?? value
            case 13 where HTTPHeaders.namesMatch(name, "Last-Event-ID"): lastEventID = lastEventID ?? value
            case 15 where HTTPHeaders.namesMatch(name, "Idempotency-Key"): idempotencyKey = idempotencyKey ?? value
            default: break
            }
        }
        var contentType, etag: String?
        var retryAfter: Int?
        record.responseHeaders.forEachField { name, value in
            switch name.utf8.count {
            case 4 where HTTPHeaders.namesMatch(name, "ETag"): etag = value
            case 11 where HTTPHeaders.namesMatch(name, "Retry-After"): retryAfter = Int(value)
            case 12 where HTTPHeaders.namesMatch(name, "Content-Type"): contentType = value
            default: break
            }
        }
        self.range = range
        self.ifMatch = ifMatch
        self.ifNoneMatch = ifNoneMatch
        self.lastEventID = lastEventID
        self.idempotencyKey = idempotencyKey
        self.contentType = contentType
        self.etag = etag
        self.retryAfter = retryAfter
        start = Self.microseconds(epoch.duration(to: record.start))
        duration = max(0, Self.microseconds(record.start.duration(to: record.end)))
        if client == nil, ByteSearch.contains(request.target, "client_id="),
            let value = (try? RequestTarget(request.target).queryItems())?.first(where: { $0.name == "client_id" })?
                .value, !value.isEmpty
        {
            client = value  // what an `<img>` or an `EventSource`, which send no field of their own, can say
        }
        self.client = client ?? peers.name(of: request)
        method = request.method
        target = request.target
        route = record.route.flatMap { routes.indices.contains($0) ? routes[$0] : nil } ?? "other"
        status = record.status
        bytes = record.bytes
        abandonedAt = record.abandonedAt
        switch record.note {
        case .injected(let name): fault = name
        case .listed(let lowest, let highest, let count, let last):
            listed = ListedIDs(lowest: lowest, highest: highest, count: count, last: last)
        case nil: break
        }
        if fault == nil, let wireFault = record.wireFault {
            fault = Self.name(of: wireFault)
        }
        if request.method == .post, !request.body.isEmpty {
            var hasher = Hasher()
            request.body.withUnsafeBytes { hasher.combine(bytes: $0) }
            bodyHash = hasher.finalize()
        }
    }

    /// A wire fault's name, as the access log writes it.
    static func name(of fault: WireFault) -> String {
        switch fault {
        case .reset: "reset"
        case .truncated: "truncated"
        case .hang: "hang"
        }
    }

    /// `duration` in whole microseconds (negative for a negative one).
    static func microseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds &* 1_000_000 &+ attoseconds / 1_000_000_000_000
    }
}

/// `peer:<address>:<port>`, the client a request without `X-Client-Id` is recorded as, made once per connection (a
/// loop keeps one of these): a new string per entry was an allocation and a formatted print for nearly every request
/// of a load test, whose clients send no id.
struct PeerNames {
    private var names: [UInt16: (address: String, name: String)] = [:]
    /// The most names kept; past it they are made again.
    static let limit = 4096

    /// The name of `request`'s connection.
    mutating func name(of request: HTTPRequest) -> String {
        guard !request.peer.isEmpty else { return "peer:-" }
        if let known = names[request.peerPort], known.address == request.peer { return known.name }
        if names.count >= Self.limit { names.removeAll(keepingCapacity: true) }
        let name = "peer:\(request.peer):\(request.peerPort)"
        names[request.peerPort] = (request.peer, name)
        return name
    }
}
