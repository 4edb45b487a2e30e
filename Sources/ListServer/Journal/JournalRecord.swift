/// A request as a loop hands it to the journal, the moment its answer is done: the request and the answer's parts,
/// retained as they are (nothing parsed, nothing copied), for ``JournalEntry/init(_:epoch:)`` to read later, off the
/// request path.
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
    /// The entry of `record`, with times in microseconds since `epoch`; `routes` names the route table's routes.
    init(_ record: JournalRecord, epoch: ContinuousClock.Instant, routes: [String]) {
        let request = record.request
        var client: String?
        for (name, value) in request.headers {
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
        for (name, value) in record.responseHeaders {
            switch name.utf8.count {
            case 4 where HTTPHeaders.namesMatch(name, "ETag"): etag = value
            case 11 where HTTPHeaders.namesMatch(name, "Retry-After"): retryAfter = Int(value)
            case 12 where HTTPHeaders.namesMatch(name, "Content-Type"): contentType = value
            default: break
            }
        }
        start = Self.microseconds(epoch.duration(to: record.start))
        duration = max(0, Self.microseconds(record.start.duration(to: record.end)))
        if client == nil, request.target.utf8.firstRange(of: "client_id=".utf8) != nil,
            let value = (try? RequestTarget(request.target).queryItems())?.first(where: { $0.name == "client_id" })?
                .value, !value.isEmpty
        {
            client = value  // what an `<img>` or an `EventSource`, which send no field of their own, can say
        }
        self.client = client ?? Self.peerClient(request)
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

    /// `peer:<address>:<port>`: one connection of a client that does not say who it is.
    private static func peerClient(_ request: HTTPRequest) -> String {
        request.peer.isEmpty ? "peer:-" : "peer:\(request.peer):\(request.peerPort)"
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
