import ListDomain

/// The request journal's routes: `GET`/`DELETE /admin/journal`, `GET /admin/journal/events`, `GET
/// /admin/journal.har` and `GET /admin/report`, each for the dataset `?dataset=` or `X-Dataset` names (the default
/// list without either; `/d/<name>/admin/…` names it too), and who records what
/// (``journalDataset(of:route:datasetField:)``).
///
/// Admin routes, so access is as for the others (``authorizeAdmin(_:)``); with ``SettingKey/journalCapacity`` 0
/// they answer 404.
extension Router {
    /// Which of the journal's resources a path names.
    enum JournalView: Sendable, Equatable {
        case entries, events, har, report

        /// The view at the segments after `admin`, or nil.
        init?(segments: ArraySlice<String>) {
            switch Array(segments) {
            case ["journal"]: self = .entries
            case ["journal", "events"]: self = .events
            case ["journal.har"]: self = .har
            case ["report"]: self = .report
            default: return nil
            }
        }
    }

    /// The most entries one page of the journal holds, and its default.
    static let maximumJournalLimit: UInt64 = 10_000
    static let defaultJournalLimit: UInt64 = 1000

    /// The dataset a journaled request went to: `X-Dataset`, the `/d/<name>` base of its target, `?dataset=` on a
    /// GET or HEAD of a route that reads it, else the default list; nil for a name that is no dataset's (the request
    /// got a 400, and no journal is made for a name nobody can use) and for an unknown path that names no dataset.
    /// On the routes that read `?dataset=` (what an `<img>` or an `EventSource` loads), also `?client_id=`. `route`
    /// is the place of the request's route in the route table, nil for none; `datasetField` the value of its first
    /// `X-Dataset` field (found by the journal's one pass over the request's fields), nil for none.
    @Sendable static func journalDataset(
        of request: HTTPRequest, route: Int?, datasetField field: String?
    ) -> Journal.Attribution? {
        var attribution: Journal.Attribution?
        if let field {
            guard DatasetName.isValid(field.utf8) else { return nil }
            attribution = Journal.Attribution(dataset: field)
        } else if RequestTarget.startsWithBasePrefix(request.target),
            request.target.utf8.starts(with: RequestTarget.basePrefix.utf8)
        {
            // Read in place first: `ByteSearch.hasPrefix` made spans of both strings, 180 instructions a page.
            let name = request.target.utf8.dropFirst(3).prefix { $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "?") }
            guard DatasetName.isValid(name) else { return nil }
            attribution = Journal.Attribution(dataset: String(Substring(name)))
        }
        guard let route, Self.readsDatasetQuery.indices.contains(route) else { return attribution }
        guard Self.readsDatasetQuery[route], request.method == .get || request.method == .head,
            ByteSearch.contains(request.target, "dataset=") || ByteSearch.contains(request.target, "client_id="),
            let query = try? RequestTarget(request.target).queryItems()
        else { return attribution ?? Journal.Attribution(dataset: ListRegistry.defaultList) }
        if attribution == nil {
            let name = query.first(where: { $0.name == "dataset" })?.value
            guard name.map({ DatasetName.isValid($0.utf8) }) ?? true else { return nil }
            attribution = Journal.Attribution(dataset: name ?? ListRegistry.defaultList)
        }
        attribution?.queryClient = query.first(where: { $0.name == "client_id" && !$0.value.isEmpty })?.value
        return attribution
    }

    /// Whether the route at each place of the route table reads `?dataset=` (``Route/Flags/datasetQuery``): read by
    /// place for every journaled request, where making the `Route` and reading its flags cost 7 of the record's 88
    /// perf samples.
    private static let readsDatasetQuery = Route.allCases.map(\.flags.datasetQuery)

    /// What the journal's routes read from the query: the dataset, a client, a position and a limit.
    struct JournalQuery {
        var dataset: String
        var client: String?
        var since: UInt64 = 0
        var limit = Router.defaultJournalLimit
    }

    /// The journal, or the 404 of a server that keeps none.
    func journal() throws(Problem) -> Journal {
        guard let journal = observability.journal else {
            throw Problem(
                .notFound, detail: "the request journal is off (\(SettingKey.journalCapacity.name) is 0)")
        }
        return journal
    }

    /// The journal query of `request`.
    func journalQuery(_ request: HTTPRequest, target: RequestTarget) throws(Problem) -> JournalQuery {
        let items = try ImageQuery.items(of: target)
        var query = JournalQuery(dataset: try Self.listName(request.headers, query: items))
        let sinceRule = QueryIntegerRule(name: "since", range: 0...UInt64(Int64.max))
        let limitRule = QueryIntegerRule(name: "limit", range: 1...Self.maximumJournalLimit)
        for item in items {
            switch item.name {
            case "client": query.client = item.value.isEmpty ? nil : item.value
            case "since": query.since = try sinceRule.validate(item.value)
            case "limit": query.limit = try limitRule.validate(item.value)
            default: continue
            }
        }
        return query
    }

    /// `GET /admin/journal`: a page of the dataset's journal, oldest first; `DELETE`: empties it (204).
    func journalRoute(_ request: HTTPRequest, target: RequestTarget) throws(Problem) -> RouteOutcome {
        let journal = try journal()
        let query = try journalQuery(request, target: target)
        if request.method == .delete {
            journal.clear(query.dataset)
            return .response(HTTPResponse(status: 204))
        }
        return .deferred {
            let page = await Self.offLoop {
                journal.page(of: query.dataset, client: query.client, since: query.since, limit: Int(query.limit))
            }
            return Self.journalResponse(page, query: query, capacity: journal.settings.capacity)
        }
    }

    /// The JSON of `GET /admin/journal`:
    /// `{"dataset","client","entries":[…],"next_since","first_seq","last_seq","missed","capacity"}`.
    private static func journalResponse(_ page: JournalPage, query: JournalQuery, capacity: Int) -> HTTPResponse {
        var json = JSONWriter(capacity: 256 + page.entries.count * 400)
        json.append(raw: "{\"dataset\":")
        json.append(string: query.dataset)
        json.append(raw: ",\"client\":")
        if let client = query.client { json.append(string: client) } else { json.appendNull() }
        json.append(raw: ",\"entries\":[")
        for (index, entry) in page.entries.enumerated() {
            if index > 0 { json.append(raw: ",") }
            entry.write(into: &json, origin: page.origin)
        }
        json.append(raw: "],\"next_since\":")
        json.append(integer: page.nextSince)
        json.append(raw: ",\"first_seq\":")
        json.append(integer: page.firstSeq)
        json.append(raw: ",\"last_seq\":")
        json.append(integer: page.lastSeq)
        json.append(raw: ",\"missed\":")
        json.append(integer: page.missed)
        json.append(raw: ",\"capacity\":")
        json.append(integer: capacity)
        json.append(raw: "}")
        return HTTPResponse(status: 200, headers: ["Content-Type": MediaType.json], body: json.bytes)
    }

    /// `GET /admin/report`: the report card of the dataset's journal (of one client, with `?client=`).
    func reportRoute(_ request: HTTPRequest, target: RequestTarget) throws(Problem) -> RouteOutcome {
        let journal = try journal()
        let query = try journalQuery(request, target: target)
        return .deferred {
            let body = await Self.offLoop {
                let card = ReportCard(
                    journal.entries(of: query.dataset, client: query.client).entries,
                    maxInFlight: journal.settings.maxInFlightHint)
                var json = JSONWriter(capacity: 1024)
                card.write(into: &json, dataset: query.dataset, client: query.client)
                return json.bytes
            }
            return HTTPResponse(status: 200, headers: ["Content-Type": MediaType.json], body: body)
        }
    }

    /// `GET /admin/journal.har`: the dataset's journal as a HAR 1.2 file.
    func harRoute(_ request: HTTPRequest, target: RequestTarget) throws(Problem) -> RouteOutcome {
        let journal = try journal()
        let query = try journalQuery(request, target: target)
        let host = request.headers["Host"] ?? "localhost"
        return .deferred {
            let body = await Self.offLoop {
                let (entries, _) = journal.entries(of: query.dataset, client: query.client)
                return JournalHAR(entries, epochWallMilliseconds: journal.epochWallMilliseconds, host: host).bytes
            }
            return HTTPResponse(
                status: 200,
                headers: [
                    "Content-Type": MediaType.json,
                    "Content-Disposition": "attachment; filename=\"journal.har\"",
                ],
                body: body)
        }
    }

    /// `GET /admin/journal/events`: the dataset's journal as Server-Sent Events, from `?since=` (or
    /// `Last-Event-ID`) on, then live.
    func journalEventsRoute(_ request: HTTPRequest, target: RequestTarget) throws(Problem) -> RouteOutcome {
        _ = try journal()
        var query = try journalQuery(request, target: target)
        if let lastEventID = request.headers["Last-Event-ID"] {
            guard let seq = UInt64(plainDecimal: lastEventID) else {
                throw Problem(
                    .invalidHeader,
                    detail: "Last-Event-ID must be a journal entry's seq, got \(Problem.quoted(lastEventID))")
            }
            query.since = seq
        }
        let headers: HTTPHeaders = [
            "Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-store",
            "X-Accel-Buffering": "no",
        ]
        var stream = EventStreamRequest(list: query.dataset, after: query.since, headers: headers, settings: events)
        stream.journal = JournalFollow(client: query.client)
        return .stream(stream)
    }

    /// Runs `work` on the global executor, off the loop that awaits it: a report over 10,000 entries takes
    /// milliseconds, which the loop's other requests must not wait for.
    static func offLoop<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await Task.detached(operation: work).value
    }
}
