import ListDomain

/// The change feed: `GET /items/changes` (JSON, long-poll) and `GET /items/events` (Server-Sent Events).
extension Router {
    /// `since`, on `/items/changes` and `/items/events` alike: a change sequence number.
    private static let sinceRule = QueryIntegerRule(name: "since", range: 0...UInt64.max)

    /// The most changes one `/items/changes` answer holds, and its default.
    static let maximumChangesLimit: UInt64 = 1000
    static let defaultChangesLimit: UInt64 = 100

    /// `GET /items/changes?since=S&limit=L&wait_ms=W`: the changes after sequence number S (0: from the start of
    /// what is kept), at most L, as `{"changes":[…],"next_since":S'}`. With `wait_ms` and nothing after S yet, the
    /// answer waits up to W ms (at most ``SettingKey/maxWaitMs``) for the next change, then comes empty: a long-poll.
    ///
    /// - Throws: 400 for a bad parameter; the deferred answer is 410 `changes-expired` when S is older than what
    ///   is kept (``SettingKey/changesKept``) or later than any change the list has had: reload, then continue from the
    ///   sequence number the problem names.
    func changes(_ target: RequestTarget, headers: HTTPHeaders) throws(Problem) -> RouteOutcome {
        let list = try Self.listName(headers)
        _ = try readableState(of: list)  // in memory (a use), or loaded first; the feed reads it in a moment
        var since: UInt64 = 0
        var limit = Self.defaultChangesLimit
        var wait: UInt64 = 0
        let items: [QueryItem]
        do { items = try target.queryItems() } catch {
            throw Problem(
                .invalidRequestTarget, detail: "the query \(Problem.quoted(error.raw)) \(error.reason.phrase)")
        }
        for item in items {
            switch item.name {
            case "since": since = try Self.sinceRule.validate(item.value)
            case "limit":
                limit = try QueryIntegerRule(name: "limit", range: 1...Self.maximumChangesLimit).validate(item.value)
            case "wait_ms":
                let longest = UInt64(events.maxWait.wholeMilliseconds)
                wait = try QueryIntegerRule(name: "wait_ms", range: 0...longest).validate(item.value)
            default: continue  // cache-busters and the request controls
            }
        }
        let feed = writes.feed
        let basePath = target.basePath
        return .deferred { [since, limit = Int(limit), wait = Duration.milliseconds(Int64(wait))] in
            do throws(StoreFailure) {
                switch try await feed.changes(of: list, after: since, limit: limit, wait: wait) {
                case .changes(let changes, let nextSince):
                    var json = JSONWriter(capacity: 48 + changes.count * 200)
                    json.basePath = basePath
                    json.append(raw: "{\"changes\":[")
                    for (index, change) in changes.enumerated() {
                        if index > 0 { json.append(raw: ",") }
                        change.writeJSON(into: &json)
                    }
                    json.append(raw: "],\"next_since\":")
                    json.append(integer: nextSince)
                    json.append(raw: "}")
                    var response = HTTPResponse(
                        status: 200, headers: ["Content-Type": MediaType.json], body: json.bytes)
                    // The ids the client learns here (the report card's overfetch counts them as listed).
                    response.note = .listed(changes.compactMap(\.event.itemID), last: false)
                    return response
                case .expired(let last):
                    return Self.changesExpired(since: since, last: last).response()
                }
            } catch {
                return Problem(
                    .storeUnavailable, detail: "the change feed could not be read (\(error.message))",
                    headers: ["Retry-After": "1"]
                ).response()
            }
        }
    }

    static func changesExpired(since: UInt64, last: UInt64) -> Problem {
        Problem(
            .changesExpired,
            detail: "changes after \(since) are no longer kept (or never were); reload the list, then continue "
                + "from since=\(last)")
    }

    /// `GET /items/events`: every change of the list from now on as a Server-Sent Event (`event:` the kind, `id:`
    /// its sequence number, `data:` its JSON). With `Last-Event-ID` (which browsers send when they reconnect) or
    /// `?since=S`, the kept changes after it come first, so a reconnecting client misses nothing and sees nothing
    /// twice; when they are no longer kept, one `expired` event says so (reload the list) before the live ones.
    /// `?dataset=` names the dataset as `X-Dataset` does, for browsers' `EventSource`, which sends no header of its
    /// own choosing (both given: they must agree).
    ///
    /// `GET /conversations/events` (`chatOnly`) is the same stream without the items' changes: the chat's
    /// (`message.*`, `read`, `conversation.updated`), `reset`, `expired` and typing, with the feed's sequence numbers.
    func eventStream(_ target: RequestTarget, headers: HTTPHeaders, chatOnly: Bool = false) throws(Problem)
        -> RouteOutcome
    {
        let query = try ImageQuery.items(of: target)  // a query that does not decode is a 400, not the default list
        let list = try Self.listName(headers, query: query)
        var after: UInt64?
        if let lastEventID = headers["Last-Event-ID"] {
            guard let id = UInt64(plainDecimal: lastEventID) else {
                throw Problem(
                    .invalidHeader,
                    detail: "Last-Event-ID must be a change sequence number, got "
                        + Problem.quoted(lastEventID))
            }
            after = id
        } else {
            if let since = query.first(where: { $0.name == "since" }) {
                after = try Self.sinceRule.validate(since.value)
            }
        }
        let streamHeaders: HTTPHeaders = [
            "Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-store",
            // nginx and similar proxies would otherwise buffer the stream.
            "X-Accel-Buffering": "no",
        ]
        let webSocketAccept = try Self.webSocketAccept(headers)
        // Who a WebSocket's typing comes from: `X-Client-Id`, or `?client_id=` (a browser's WebSocket sends no
        // header of its own choosing), as long as a read marker's.
        let client = headers["X-Client-Id"] ?? query.first(where: { $0.name == "client_id" })?.value ?? ""
        guard client.utf8.count <= 128 else {
            throw Problem(.invalidHeader, detail: "X-Client-Id (or client_id) must be at most 128 bytes on a stream")
        }
        _ = try readableState(of: list)  // in memory (a use), or loaded first
        var stream = EventStreamRequest(
            list: list, after: after, headers: streamHeaders, settings: events, basePath: target.basePath)
        stream.webSocketAccept = webSocketAccept
        stream.chatOnly = chatOnly
        stream.client = client
        return .stream(stream)
    }
}

/// What the LibEvent layer needs to open an event stream.
package struct EventStreamRequest: Sendable {
    /// The list (dataset) whose changes are streamed.
    package let list: String
    /// Replay the kept changes after this sequence number first; nil for live changes only.
    package let after: UInt64?
    /// The response's header fields.
    package var headers: HTTPHeaders
    /// The request fields the response depends on (its `Vary`).
    var vary: VaryFields = []
    package let settings: EventSettings
    /// What the items' URLs start with: `/d/<name>` for a stream opened under it, else empty.
    package var basePath: [UInt8]? = nil
    /// Set for `GET /admin/journal/events`: the stream follows `list`'s request journal, not its changes, from the
    /// entry after ``after``.
    var journal: JournalFollow?
    /// Set when the request asked for a WebSocket (``Router/webSocketAccept(_:)``): its `Sec-WebSocket-Accept`.
    var webSocketAccept: String?
    /// `GET /conversations/events`: the chat's changes only (``Change/isChat``).
    var chatOnly = false
    /// The client (`X-Client-Id` or `?client_id=`, "" for none), named in the typing a WebSocket announces.
    var client = ""

    /// The answer that opens the stream: 200 and ``headers`` for Server-Sent Events, 101 and the handshake's fields
    /// for a WebSocket.
    var opening: HTTPResponse {
        guard let webSocketAccept else {
            var response = HTTPResponse(status: 200, headers: headers)
            response.vary = vary
            return response
        }
        return HTTPResponse(
            status: 101,
            headers: ["Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Accept": webSocketAccept])
    }
}

/// What a journal stream follows besides its dataset: one client's requests, or (nil) every client's.
struct JournalFollow: Sendable, Equatable {
    var client: String?
}
