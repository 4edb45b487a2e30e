package import ListDomain

/// What the router answers: a response at once, work to await, a stream, or a route to take once something is done.
package enum RouteOutcome: Sendable {
    /// The complete response, computed synchronously.
    case response(HTTPResponse)
    /// A response that needs the detail cache, the store or the change feed; the LibEvent layer runs the closure
    /// in a task on the loop.
    case deferred(@Sendable () async -> HTTPResponse)
    /// A response that comes back through a callback, on whatever thread finishes the work (a write, once its group
    /// is committed), as a function that makes it: like `.deferred`, without a task per request. The LibEvent layer
    /// calls that function on the loop.
    case pending(PendingResponse)
    /// `GET /items/events`: an event stream the LibEvent layer opens and keeps fed (see ``EventStreamRequest``).
    case stream(EventStreamRequest)
    /// A request that can be routed only once something is done: a dataset read from the store on its first use
    /// (`Router+Loading.swift`). The LibEvent layer awaits the closure in a task on the loop and handles the
    /// outcome it returns as if the request had been routed then (a stream or a write alike).
    case after(@Sendable () async -> RouteOutcome)

    /// The outcome once what ``after(_:)`` waits for is done (itself for every other case).
    package func settled() async -> RouteOutcome {
        guard case .after(let next) = self else { return self }
        return await next().settled()
    }
}

/// A response delivered later through a callback (see ``RouteOutcome/pending(_:)``).
///
/// The work hands over a function that makes its response, and ``finish(_:)`` calls it and applies what ``map(_:)``
/// added (the router's decoration), where the taker is: on the loop, not on the thread that finished the work. A
/// write finishes on the store's thread, which every write of the server waits for; made there, a 201 (its JSON,
/// its header fields, its metrics) took about 5,000 instructions of that thread per write (callgrind, 64 clients).
/// Wrapping the work's callback in a closure per `map`, as this once did, cost two closure contexts per write.
package struct PendingResponse: Sendable {
    /// How the work hands over its answer: a function that makes the response, called once by the taker.
    package typealias Respond = @Sendable (_ make: @escaping @Sendable () -> HTTPResponse) -> Void

    /// Starts the work; it calls `respond` once, on any thread, with what makes the response before ``finish(_:)``.
    package let start: @Sendable (_ respond: @escaping Respond) -> Void
    /// What ``map(_:)`` added, in order; nil for none.
    private var transform: (@Sendable (inout HTTPResponse) -> Void)?

    package init(_ start: @escaping @Sendable (_ respond: @escaping Respond) -> Void) {
        self.start = start
    }

    /// The same work, with `transform` applied to its response by ``finish(_:)`` (after any earlier one).
    func map(_ transform: @escaping @Sendable (inout HTTPResponse) -> Void) -> PendingResponse {
        var mapped = self
        if let earlier = self.transform {
            mapped.transform = { response in
                earlier(&response)
                transform(&response)
            }
        } else {
            mapped.transform = transform
        }
        return mapped
    }

    /// The response the work's `make` makes, with what ``map(_:)`` added: whoever takes it calls this once.
    package func finish(_ make: () -> HTTPResponse) -> HTTPResponse {
        var response = make()
        transform?(&response)
        return response
    }

    /// Awaits the response (tests, and callers that wait anyway).
    package func response() async -> HTTPResponse {
        let make = await withCheckedContinuation { continuation in start { continuation.resume(returning: $0) } }
        return finish(make)
    }
}

/// Maps requests to responses: the whole HTTP API on plain values, with no sockets, locks or Foundation.
///
/// The routes, their methods and what else is true of each are one table, ``Route`` (the README's "Routes" lists
/// it). ``match(_:)`` finds a target's ``Resource`` in one pass over its segments;
/// ``route(_:_:waitingForOthers:retried:)`` loads its dataset or waits for a replica's copy if it must, and
/// `dispatch` checks the method against the route's flags and hands the request to the handler for its resource
/// (`Router+Items.swift`, `Router+Detail.swift`, ...), whose answer is a ``RouteOutcome``: a response now, deferred
/// or pending work, a stream, or a request to route again once its dataset is read.
///
/// Every error is an RFC 9457 ``Problem`` (`application/problem+json`): 400 for a bad request-target, parameter or
/// id; 404 for an unknown path or an id past the end; 405 with `Allow` for a known path with a method it does not
/// answer; 500, 503 or 429 for an injected fault (the draining 503 is the LibEvent layer's). HEAD is answered
/// exactly as GET; the LibEvent layer drops the body.
///
/// Every response the router makes carries `Cache-Control: no-cache` unless its route chose its own (`no-store` on
/// the probes, `/metrics` and event streams; clients revalidate with `If-None-Match`: pages, items and details
/// carry a strong `ETag`) and, unless CORS is off, `Access-Control-Allow-Origin` and
/// `Access-Control-Expose-Headers`.
///
/// The order of checks is path shape (404), then method (405), then id and parameters (400, 404), so a client learns
/// first whether the resource exists at all. A router is an immutable value: share one across every loop thread.
package struct Router: Sendable {
    /// The most path segments any route has (Picsum's `/id/<id>/<w>/<h>`).
    package static let maximumSegments = 4

    /// The lists served, by dataset: generated, with the writes over them, versioned, reset by `POST /admin/reset`.
    var lists: ListRegistry { writes.lists }
    /// Every write goes through it, and it publishes the change feed.
    let writes: WriteCoordinator
    /// How long a long-poll may wait, and how event streams behave.
    let events: EventSettings
    /// The detail cache in front of the slow store.
    let cache: DetailCache
    /// The image cache in front of the image workers; nil serves no images (404).
    let images: ImageCache?
    /// The default and largest page size.
    package let paging: PagingSettings
    /// The metrics served at `/metrics`, which the writes and uploads record into too (the loops are handed the same
    /// observability at start-up, not through the router).
    let observability: Observability
    /// CORS, page latency and admin access.
    let service: ServiceOptions
    /// The draws of Picsum's `/<w>/<h>`, shared by every loop.
    let picsumSequence: PicsumSequence
    /// The fault draws and `fail_first` counts, shared by every loop (reset by `POST /admin/reset`).
    let faultInjectors: FaultInjectorRegistry
    /// The datasets' profiles (`/admin/datasets/<name>/profile`), shared by every loop.
    let profiles: ProfileRegistry
    /// The limits of `?delay_ms`, the configured fault rate and mix (see `Router+Faults.swift`).
    let faults: FaultSettings
    /// The generated conversations and messages (`Router+Conversations.swift`).
    let chat: ChatSettings
    /// The simulated participants of the datasets whose profile sets them, following the profiles.
    let chatActivity: ChatActivityDriver<ContinuousClock>

    /// Creates a router.
    ///
    /// - Parameters:
    ///   - writes: The lists served (``SettingKey/itemCount``, ``SettingKey/seed``) and their writes.
    ///   - events: `events.*`.
    ///   - cache: The detail cache (``SettingKey/cacheCapacity``) over the slow store (`store.latency.*`).
    ///   - paging: ``SettingKey/defaultLimit`` and ``SettingKey/maxLimit``; `1 <= defaultLimit <= maxLimit` (the
    ///     configuration layer validates this).
    ///   - observability: Metrics (``SettingKey/metricsEnabled``) and access log (`log.*`); none by default.
    ///   - faults: ``SettingKey/maxDelayMs``, `faults.*`: the limits of `?delay_ms` and the configured faults.
    ///   - service: CORS (``SettingKey/corsAllowOrigin``), page latency (``SettingKey/pageLatencyMs``), admin access
    ///     (``SettingKey/adminToken``).
    init(
        writes: WriteCoordinator,
        events: EventSettings = EventSettings(),
        cache: DetailCache,
        images: ImageCache? = nil,
        paging: PagingSettings,
        observability: Observability = .disabled,
        service: ServiceOptions = ServiceOptions(),
        faultInjector: FaultInjector = FaultInjector(seed: 1),
        faultSeed: UInt64 = 1,
        faults: FaultSettings = FaultSettings(),
        chat: ChatSettings = ChatSettings()
    ) {
        precondition(
            paging.defaultLimit >= 1 && paging.defaultLimit <= paging.maxLimit,
            "PagingSettings needs 1 <= defaultLimit <= maxLimit")
        self.writes = writes
        self.events = events
        self.cache = cache
        self.images = images
        picsumSequence = PicsumSequence(seed: writes.lists.state(of: ListRegistry.defaultList).header.seed)
        self.paging = paging
        self.observability = observability
        self.service = service
        faultInjectors = FaultInjectorRegistry(faultInjector, seed: faultSeed)
        self.faults = faults
        self.chat = chat
        let origin = ContinuousClock.now
        profiles = ProfileRegistry(
            now: { ContinuousClock.now - origin }, wallClock: { WallTime.now().milliseconds },
            signer: TokenSignature.sign)
        let activity = ChatActivityDriver(
            writes: writes, shape: chat.shape, clock: ContinuousClock(), wallClock: WallTime.now)
        chatActivity = activity
        profiles.onSet { name, entry in
            activity.set(entry?.profile.chat, for: name, setAt: entry?.setAt ?? WallTime(milliseconds: 0))
        }
    }

    /// Creates a router over a fixed catalog that never grows, whose writes are kept in memory (tests, benchmarks).
    package init(
        catalog: Catalog,
        cache: DetailCache,
        images: ImageCache? = nil,
        paging: PagingSettings,
        observability: Observability = .disabled,
        service: ServiceOptions = ServiceOptions(),
        faults: FaultSettings = FaultSettings()
    ) {
        let store = MemoryListStore()
        let lists = ListRegistry(seed: catalog.seed, count: catalog.count)
        let writes = WriteCoordinator(
            lists: lists, feed: ChangeFeed(store: store, lists: lists), store: store, idempotencyTTL: .seconds(86_400),
            wallClock: WallTime.now)
        self.init(
            writes: writes, cache: cache, images: images, paging: paging, observability: observability,
            service: service,
            faults: faults)
    }

    /// What the router finds at a request's target before answering it: the target parsed (once per request) and
    /// the resource it names. The LibEvent layer takes the metrics label from it when the request arrives, then
    /// routes with it.
    struct Match: Sendable {
        /// The parsed target, or the 400 for one that does not parse.
        let target: Result<RequestTarget, Problem>
        /// The resource the target names, or why it names none (404, or the target's own 400).
        let resource: Result<Resource, Problem>

        /// The route the request counts under in `/metrics`.
        var label: RouteLabel { (try? resource.get())?.route.label ?? .other }

        /// Whether the journal records the request: its route is one a client's app uses, or it names none (an
        /// unknown path is recorded when it names a dataset, ``journalDataset(of:route:datasetField:)``).
        var journaled: Bool { (try? resource.get())?.route.flags.journaled ?? true }
    }

    /// Parses `request`'s target and finds the resource it names.
    func match(_ request: HTTPRequest) -> Match {
        let target = Result { () throws(Problem) in try RequestTarget(request.target) }
        let resource = target.flatMap { target in Result { () throws(Problem) in try locate(target) } }
        return Match(target: target, resource: resource)
    }

    /// Answers `request`: at once, or, for what must wait (a detail or image lookup, a write until it is durable,
    /// a dataset load, a replica catch-up, `/metrics`, the admin routes), as deferred, pending or later work once
    /// the request has been validated (a bad request is answered at once, without a task).
    package func route(_ request: HTTPRequest) -> RouteOutcome {
        route(request, match(request))
    }

    /// Answers `request`, whose target ``match(_:)`` has already parsed and matched.
    ///
    /// - Parameters:
    ///   - waitingForOthers: Whether a read of a list that another server (sharing the store) has just committed
    ///     to, beyond this server's copy, first waits for the copy to catch up (``readAfterCatchUp``).
    ///   - retried: Whether this is the second try of a request whose list had left memory as it was read
    ///     (``routeAgainAfterLoading(_:_:_:retried:)``).
    ///   - named: Whether `request` already names the dataset its target's base names (a second pass; see
    ///     Router+BasePath.swift).
    func route(
        _ request: HTTPRequest, _ match: Match, waitingForOthers: Bool = true, retried: Bool = false,
        named: Bool = false
    ) -> RouteOutcome {
        let target: RequestTarget
        switch match.target {
        case .success(let parsed):
            target = parsed
        case .failure(let error):
            return finish(.response(error.response()), for: request)  // no controls without a target
        }
        if target.hasBase && !named {  // `/d/<name>/…` (Router+BasePath.swift)
            return routeUnderBase(request, match, target, waitingForOthers: waitingForOthers, retried: retried)
        }
        if let loading = routeAfterLoading(request, match) { return loading }
        if waitingForOthers, let waiting = readAfterCatchUp(request, match) { return waiting }
        let answer = match.resource.flatMap { resource in
            Result { () throws(Problem) in try dispatch(request, target: target, resource: resource) }
        }
        if let again = routeAgainAfterLoading(answer, request, match, retried: retried) { return again }
        // `?delay_ms`, `?fail=…` and configured faults (Router+Faults.swift): a byte scan of the query when there
        // are none.
        let outcome = applyingControls(of: request, target: target, resource: try? match.resource.get(), to: answer)
        return finish(outcome, for: request, base: target.base)
    }

    /// The resources the API serves, matched from decoded path segments.
    enum Resource: Sendable, Equatable {
        /// `/items`
        case items
        /// `/items/<id>`, with the id segment still unparsed.
        case item(String)
        /// `/items/<id>/detail`, with the id segment still unparsed.
        case itemDetail(String)
        /// `/items/<id>/image` or `/items/<id>/image.<extension>`, with the id and the extension still unchecked.
        case itemImage(String, fileExtension: String?)
        /// `/healthz` (alive) or `/readyz` (ready).
        case probe(ready: Bool)
        /// `/openapi.yaml` or `/openapi.json`.
        case openAPI(OpenAPIFormat)
        /// `/metrics`
        case metrics
        /// `/`: the browser app's page.
        case appIndex
        /// `/app/<file>`: a file of the browser app, with the name still unchecked.
        case webApp(String)
        /// `/admin/reset`
        case adminReset
        /// `/admin/datasets/<name>`, with the name still unchecked.
        case adminDataset(String)
        /// `/admin/datasets`: the datasets, listed.
        case adminDatasets
        /// `/admin/datasets/<name>/profile`, with the name still unchecked.
        case adminDatasetProfile(String)
        /// `/auth/token` (or with `revoke`, `/auth/revoke`): a dataset's bearer tokens.
        case auth(revoke: Bool)
        /// `/admin/journal`, `/admin/journal/events`, `/admin/journal.har`, `/admin/report`: the request journal.
        case adminJournal(JournalView)
        /// `/items/changes`: the change feed as JSON (long-poll).
        case changes
        /// `/items/events`: the change feed as Server-Sent Events.
        case events
        /// `/conversations`: the dataset's conversations.
        case conversations
        /// `/conversations/<id>`, with the id segment still unparsed.
        case conversation(String)
        /// `/conversations/<id>/messages`, with the id segment still unparsed.
        case conversationMessages(String)
        /// `/conversations/<id>/messages/<mid>`, with the id segments still unparsed.
        case conversationMessage(String, String)
        /// `/conversations/<id>/read`, with the id segment still unparsed.
        case conversationRead(String)
        /// `/conversations/events`: the chat's part of the change feed, and typing.
        case conversationEvents
        /// Lorem Picsum's `/v2/list`.
        case picsumList
        /// Lorem Picsum's `/id/<id>/info` or `/seed/<seed>/info`.
        case picsumInfo(PicsumPick)
        /// Lorem Picsum's image routes: `/id/<id>/<size>`, `/id/<id>/<w>/<h>`, the same under `/seed/<seed>`, and
        /// `/<size>`, `/<w>/<h>`; the size segments are digits, the last perhaps with an extension.
        case picsumImage(PicsumPick, sizes: [String])

        /// The resource at `segments`, or nil for an unknown path (including `/items/` and `/items/42/`).
        init?(segments: [String]) {
            // The item routes first: nearly every request is one.
            if segments.first == "items" {
                switch segments.count {
                case 1: self = .items
                // Not ids: an id segment is digits only, so these never hide an item.
                case 2 where segments[1] == "changes": self = .changes
                case 2 where segments[1] == "events": self = .events
                case 2 where !segments[1].isEmpty: self = .item(segments[1])
                case 3 where !segments[1].isEmpty && segments[2] == "detail": self = .itemDetail(segments[1])
                case 3 where !segments[1].isEmpty && segments[2] == "image":
                    self = .itemImage(segments[1], fileExtension: nil)
                case 3 where !segments[1].isEmpty && segments[2].hasPrefix("image."):
                    self = .itemImage(segments[1], fileExtension: String(segments[2].dropFirst(6)))
                default: return nil
                }
                return
            }
            if segments.first == "conversations" {
                switch segments.count {
                case 1: self = .conversations
                case 2 where segments[1] == "events": self = .conversationEvents
                case 2 where !segments[1].isEmpty: self = .conversation(segments[1])
                case 3 where !segments[1].isEmpty && segments[2] == "messages":
                    self = .conversationMessages(segments[1])
                case 3 where !segments[1].isEmpty && segments[2] == "read":
                    self = .conversationRead(segments[1])
                case 4 where !segments[1].isEmpty && segments[2] == "messages" && !segments[3].isEmpty:
                    self = .conversationMessage(segments[1], segments[3])
                default: return nil
                }
                return
            }
            if segments.count == 1, segments[0] == "healthz" || segments[0] == "readyz" {
                self = .probe(ready: segments[0] == "readyz")
                return
            }
            if segments.count == 1, let format = OpenAPIFormat(fileName: segments[0]) {
                self = .openAPI(format)
                return
            }
            if segments == ["metrics"] {
                self = .metrics
                return
            }
            if segments == [""] {
                self = .appIndex
                return
            }
            if segments.count == 2, segments[0] == "app", !segments[1].isEmpty {
                self = .webApp(segments[1])
                return
            }
            if let picsum = Self.picsum(segments) {
                self = picsum
                return
            }
            if segments == ["admin", "reset"] {
                self = .adminReset
                return
            }
            if segments == ["admin", "datasets"] {
                self = .adminDatasets
                return
            }
            if segments.count == 3, segments[0] == "admin", segments[1] == "datasets", !segments[2].isEmpty {
                self = .adminDataset(segments[2])
                return
            }
            if segments.count == 4, segments[0] == "admin", segments[1] == "datasets", !segments[2].isEmpty,
                segments[3] == "profile"
            {
                self = .adminDatasetProfile(segments[2])
                return
            }
            if segments.first == "admin", let view = JournalView(segments: segments.dropFirst()) {
                self = .adminJournal(view)
                return
            }
            if segments.count == 2, segments[0] == "auth", segments[1] == "token" || segments[1] == "revoke" {
                self = .auth(revoke: segments[1] == "revoke")
                return
            }
            return nil
        }

        /// The Picsum resource at `segments`, if any.
        private static func picsum(_ segments: [String]) -> Resource? {
            func isSize(_ segment: String) -> Bool {
                let digits = segment.prefix { $0 != "." }
                return !digits.isEmpty && digits.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
            }
            func isPlainSize(_ segment: String) -> Bool { isSize(segment) && !segment.contains(".") }
            switch segments.count {
            case 1 where isSize(segments[0]):
                return .picsumImage(.random, sizes: segments)
            case 2 where segments == ["v2", "list"]:
                return .picsumList
            case 2 where isPlainSize(segments[0]) && isSize(segments[1]):
                return .picsumImage(.random, sizes: segments)
            case 3, 4:
                guard segments[0] == "id" || segments[0] == "seed", !segments[1].isEmpty else { return nil }
                let pick: PicsumPick = segments[0] == "id" ? .id(segments[1]) : .seed(segments[1])
                let rest = Array(segments[2...])
                if rest == ["info"] { return .picsumInfo(pick) }
                guard isSize(rest[rest.count - 1]), rest.count == 1 || isPlainSize(rest[0]) else { return nil }
                return .picsumImage(pick, sizes: rest)
            default:
                return nil
            }
        }

        /// The route (the path template) this resource is at.
        var route: Route {
            switch self {
            case .items: .items
            case .item: .item
            case .itemDetail: .itemDetail
            case .itemImage(_, fileExtension: nil): .itemImage
            case .itemImage: .itemImageFile
            case .probe(let ready): ready ? .readyz : .healthz
            case .openAPI(.json): .openAPIJSON
            case .openAPI(.yaml): .openAPIYAML
            case .metrics: .metrics
            case .appIndex: .app
            case .webApp: .appFile
            case .adminReset: .adminReset
            case .adminDataset: .adminDataset
            case .adminDatasets: .adminDatasets
            case .adminDatasetProfile: .adminDatasetProfile
            case .auth(let revoke): revoke ? .authRevoke : .authToken
            case .adminJournal(.entries): .adminJournal
            case .adminJournal(.events): .adminJournalEvents
            case .adminJournal(.har): .adminJournalHAR
            case .adminJournal(.report): .adminReport
            case .changes: .changes
            case .events: .events
            case .conversations: .conversations
            case .conversation: .conversation
            case .conversationMessages: .conversationMessages
            case .conversationMessage: .conversationMessage
            case .conversationRead: .conversationRead
            case .conversationEvents: .conversationEvents
            case .picsumList: .picsumList
            case .picsumInfo(.seed): .picsumSeedInfo
            case .picsumInfo: .picsumIDInfo  // `/info` is only ever under `/id` or `/seed`
            case .picsumImage(let pick, let sizes):
                switch (pick, sizes.count) {
                case (.id, 1): .picsumIDSquare
                case (.id, _): .picsumIDSized
                case (.seed, 1): .picsumSeedSquare
                case (.seed, _): .picsumSeedSized
                case (.random, 1): .picsumSquare
                case (.random, _): .picsumSized
                }
            }
        }
    }

    /// The resource `target` names: 404 for an unknown path (and `/metrics` with metrics off), 400 for a path
    /// that does not decode.
    private func locate(_ target: RequestTarget) throws(Problem) -> Resource {
        // The path of every page and every create, known without splitting and decoding it into an array of
        // segments (about 2,000 instructions a request, callgrind).
        if target.path == "/items" { return .items }
        if let id = Self.messagesPathID(target.path) { return .conversationMessages(id) }
        // A bare base (`/d/<name>`) names no resource: it is redirected (Router+BasePath.swift), counted as `other`.
        guard !target.path.isEmpty else {
            throw Problem(.notFound, detail: "there is no resource at \(Problem.quoted(target.base))")
        }
        guard let segments = try target.segments(maximumCount: Self.maximumSegments),
            let resource = Resource(segments: segments)
        else {
            throw Problem(.notFound, detail: "there is no resource at \(Problem.quoted(target.path))")
        }
        switch resource.route.flags.gate {
        case .metrics where observability.metrics == nil:
            throw Self.metricsDisabled
        case .picsum where !service.picsumEnabled:
            throw Problem(
                .notFound,
                detail:
                    "there is no resource at \(Problem.quoted(target.path)) (\(SettingKey.picsumEnabled.name) is false)"
            )
        default:
            return resource
        }
    }

    /// The id of a plain `/conversations/<digits>/messages` (a page of a chat), nil for any other path: the
    /// resource ``Resource/init(segments:)`` finds there, without the array of decoded segments (issue 36: a page of
    /// messages is held to the CPU of a page of items, which needs none).
    static func messagesPathID(_ path: Substring) -> String? {
        let bytes = path.utf8.span
        let prefix = "/conversations/".utf8.span
        let suffix = "/messages".utf8.span
        let idEnd = bytes.count - suffix.count
        guard idEnd > prefix.count, ByteSearch.matches(bytes, prefix, at: 0),
            ByteSearch.matches(bytes, suffix, at: idEnd)
        else { return nil }
        for index in prefix.count..<idEnd where bytes[unchecked: index] &- UInt8(ascii: "0") >= 10 { return nil }
        return String(path.utf8.dropFirst(prefix.count).dropLast(suffix.count))
    }

    private func dispatch(_ request: HTTPRequest, target: RequestTarget, resource: Resource) throws(Problem)
        -> RouteOutcome
    {
        let flags = resource.route.flags
        if request.method == .options {
            return .response(options(resource.route.facts, request))
        }
        guard flags.answers(request.method) else {
            let facts = resource.route.facts
            throw Problem(
                .methodNotAllowed,
                detail: "\(Problem.quoted(request.method.name)) is not allowed on \(Problem.quoted(target.path)); "
                    + "use \(facts.allow)",
                headers: ["Allow": facts.allow])
        }
        // A query that does not decode is a 400 on every route. Those that read their query check it as they read it
        // (and name the parameter); the others, here (a stream that ignored `?dataset=%00` served the default list):
        // one byte scan when the query has no escape at all.
        let decodesItsQuery = flags.decodesQuery && (request.method == .get || request.method == .head)
        if !decodesItsQuery, let problem = target.undecodableQueryProblem {
            throw problem
        }
        if flags.admin {
            try authorizeAdmin(request)  // before the handler reads anything (Router+Admin.swift)
        }
        switch resource {
        case .items where request.method == .post:
            return try createItem(request, target: target)
        case .items:
            return .response(try itemsPage(target, headers: request.headers))
        case .item(let rawID) where request.method == .patch:
            return try updateItem(rawID, request, target: target)
        case .item(let rawID) where request.method == .delete:
            return try deleteItem(rawID, request, target: target)
        case .item(let rawID):
            return .response(try item(rawID, headers: request.headers, basePath: target.basePath))
        case .itemDetail(let rawID):
            return try detail(rawID, headers: request.headers, target: target)
        case .itemImage(let rawID, fileExtension: nil) where request.method == .put:
            return try putImage(rawID, request, target: target)
        case .itemImage(let rawID, fileExtension: nil) where request.method == .delete:
            return try removeImage(rawID, request, target: target)
        case .itemImage(let rawID, let fileExtension):
            return try image(
                rawID, fileExtension: fileExtension, target: target, headers: request.headers,
                range: Self.byteRange(request))
        case .changes:
            return try changes(target, headers: request.headers)
        case .events:
            return try eventStream(target, headers: request.headers)
        case .adminDataset(let name):
            return try dropDataset(name, request)
        case .adminDatasets:
            return try listDatasets(request, target: target)
        case .adminDatasetProfile(let name):
            return try datasetProfile(name, request)
        case .auth(let revoke):
            return revoke ? try revokeTokens(request) : .response(try issueToken(request))
        case .adminJournal(.entries):
            return try journalRoute(request, target: target)
        case .adminJournal(.events):
            return try journalEventsRoute(request, target: target)
        case .adminJournal(.har):
            return try harRoute(request, target: target)
        case .adminJournal(.report):
            return try reportRoute(request, target: target)
        case .conversations:
            return .response(try conversationsPage(target, headers: request.headers))
        case .conversation(let rawID):
            return .response(try conversationResponse(rawID, headers: request.headers))
        case .conversationMessages(let rawID) where request.method == .post:
            return try sendMessage(rawID, request, target: target)
        case .conversationMessages(let rawID):
            return .response(try messagesPage(rawID, target: target, headers: request.headers))
        case .conversationMessage(let rawID, let rawMessage) where request.method == .patch:
            return try editMessage(rawID, rawMessage, request, target: target)
        case .conversationMessage(let rawID, let rawMessage) where request.method == .delete:
            return try deleteMessage(rawID, rawMessage, request, target: target)
        case .conversationMessage(let rawID, let rawMessage):
            return .response(try messageResponse(rawID, rawMessage, headers: request.headers))
        case .conversationRead(let rawID):
            return try markRead(rawID, request, target: target)
        case .conversationEvents:
            return try eventStream(target, headers: request.headers, chatOnly: true)
        case .picsumList:
            return .response(try picsumList(target, headers: request.headers))
        case .picsumInfo(let pick):
            return .response(try picsumInfo(pick, headers: request.headers, base: target.base))
        case .picsumImage(let pick, let sizes):
            return try picsumImage(
                pick, sizes: sizes, target: target, headers: request.headers, range: Self.byteRange(request))
        case .probe(let ready):
            return .response(Self.probeResponse(ready: ready, storeReachable: !ready || writes.store.isReachable))
        case .openAPI(let format):
            return .response(Self.openAPIDocument(format))
        case .appIndex:
            return .response(try Self.webAsset("index.html", headers: request.headers))
        case .webApp(let name):
            return .response(try Self.webAsset(name, headers: request.headers))
        case .metrics:
            return try scrapeMetrics()
        case .adminReset:
            return try adminReset(request)
        }
    }

    /// `OPTIONS` on a known resource: 204 with `Allow`, plus the preflight fields for a CORS preflight (none for an
    /// admin endpoint asked from an origin ``AdminOrigin`` refuses, so the browser never sends the request).
    private func options(_ facts: Route.Facts, _ request: HTTPRequest) -> HTTPResponse {
        var headers: HTTPHeaders = ["Allow": facts.allow]
        let refused = facts.admin && service.adminOrigin.refusal(request.headers) != nil
        if let cors = service.cors, CORSPolicy.isPreflight(request), !refused {
            for (name, value) in cors.preflightHeaders(request: request) {
                headers.add(name, value)
            }
        }
        return HTTPResponse(status: 204, headers: headers)
    }

    /// Adds the fields every routed response carries (`Cache-Control`, CORS), also to deferred responses, and moves
    /// the server-relative URLs of `Link` and `Location` under `base` (`/d/<name>`, Router+BasePath.swift).
    private func finish(_ outcome: RouteOutcome, for request: HTTPRequest, base: Substring = "") -> RouteOutcome {
        let origin = service.cors == nil ? nil : request.headers["Origin"]
        switch consume outcome {  // consumed: decorating must not copy the headers of a shared value
        case .response(var response):
            Self.decorate(&response, cors: service.cors, origin: origin, base: base)
            return .response(response)
        case .deferred(let work):
            // Captures only what decorating needs (not the whole router), and awaits nothing but `work`: the frames
            // of waiting requests stay small.
            return .deferred { [cors = service.cors] in
                Self.decorated(await work(), cors: cors, origin: origin, base: base)
            }
        case .pending(let pending):
            return .pending(
                pending.map { [cors = service.cors] in Self.decorate(&$0, cors: cors, origin: origin, base: base) })
        case .stream(var stream):
            Self.decorate(&stream.headers, vary: &stream.vary, cors: service.cors, origin: origin)
            return .stream(stream)
        case .after(let next):
            return .after(next)  // what it routes to is decorated then
        }
    }

    /// `response`, decorated.
    static func decorated(
        _ response: consuming HTTPResponse, cors: CORSPolicy?, origin: String?, base: Substring
    )
        -> HTTPResponse
    {
        var response = response
        decorate(&response, cors: cors, origin: origin, base: base)
        return response
    }

    /// `Cache-Control: no-cache` unless the route chose its own (`no-store` on probes and metrics), CORS, and the
    /// base of a dataset named by path.
    private static func decorate(_ response: inout HTTPResponse, cors: CORSPolicy?, origin: String?, base: Substring) {
        decorate(&response.headers, vary: &response.vary, cors: cors, origin: origin)
        if !base.isEmpty { rebase(&response.headers, base: String(base)) }
    }

    private static func decorate(
        _ headers: inout HTTPHeaders, vary: inout VaryFields, cors: CORSPolicy?, origin: String?
    ) {
        // Room for what is added here (one field, three for a request with `Origin`), unless the route left enough:
        // an unconditional reserve reallocated every image hit's fields, made with room for eight, for a ninth it
        // never needed (0.6 % of its CPU, perf, issue 32).
        let adding = origin == nil ? 1 : 3
        if headers.capacity - headers.count < adding {
            headers.reserveCapacity(headers.count + adding)
        }
        if headers["Cache-Control"] == nil {
            headers.add("Cache-Control", "no-cache")
        }
        cors?.decorate(&headers, vary: &vary, requestOrigin: origin)
    }
}
