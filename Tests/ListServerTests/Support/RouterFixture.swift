import ListDomain
import Testing

@testable import ListServer

/// Builds routers over the stand-in domain and turns responses into values tests can read.
enum RouterFixture {
    /// The paging settings the issue documents as defaults.
    static let defaultPaging = PagingSettings(defaultLimit: 20, maxLimit: 100)

    /// The image workers every fixture router draws and encodes with: two real threads and the real codecs,
    /// shared by the whole test process (they live as long as it does).
    static let imageWorkers: ImageWorkers = {
        do {
            return try ImageWorkers(count: 2, queueLimit: 64)
        } catch {
            fatalError("the image codecs cannot be set up: \(error)")
        }
    }()

    /// An image cache over ``imageWorkers`` with no store latency, for a router's own use.
    static func imageCache(clock: ImmediateClock = ImmediateClock()) -> ImageCache {
        ImageCache(encoder: imageWorkers, latency: .none, capacityBytes: 8 << 20, clock: clock)
    }

    /// Metrics and a request journal when `metrics`; nothing at all otherwise.
    static func observability(metrics: Bool) -> Observability {
        guard metrics else { return .disabled }
        return Observability(
            metrics: ServerMetrics(routes: Route.templates), accessLog: nil,
            journal: Journal(
                settings: JournalSettings(), routes: Route.templates,
                datasetOf: Router.journalDataset(of:route:datasetField:)))
    }

    /// A router over a catalog of `count` items whose store sleeps `latency` on `clock` (instant by default), with
    /// every route on (`/metrics` too, unless `metrics` is false).
    static func router(
        count: UInt64 = 10_000,
        paging: PagingSettings = defaultPaging,
        latency: Duration = .milliseconds(250),
        clock: ImmediateClock = ImmediateClock(),
        service: ServiceOptions = ServiceOptions(),
        metrics: Bool = true
    ) -> Router {
        let catalog = Catalog(seed: 42, count: count)
        let store = SlowStore(catalog: catalog, latency: .uniform(min: latency, max: latency), clock: clock)
        return Router(
            catalog: catalog, cache: DetailCache(store: store, capacity: 100), images: imageCache(clock: clock),
            paging: paging,
            observability: observability(metrics: metrics),
            service: service)
    }

    /// A router over a list of `count` generated items whose writes and change feed go to `store`, which the test
    /// holds: `failNextCommits(_:with:)` makes writes fail as a full or broken disk would, `close()` makes reads
    /// fail too. `stored` are lists as a restarted server loads them (their changes are then only in the store).
    static func router(
        store: MemoryListStore,
        count: UInt64 = 10_000,
        stored: [String: StoredList] = [:],
        service: ServiceOptions = ServiceOptions(),
        metrics: Bool = false,
        chat: ChatSettings = ChatSettings()
    ) -> Router {
        let catalog = Catalog(seed: 42, count: count)
        let lists = ListRegistry(seed: catalog.seed, count: catalog.count, stored: stored)
        let writes = WriteCoordinator(
            lists: lists, feed: ChangeFeed(store: store, lists: lists), store: store, idempotencyTTL: .seconds(86_400),
            wallClock: { WallTime(milliseconds: 1_700_000_000_000) })
        let slowStore = SlowStore(catalog: catalog, latency: .uniform(min: .zero, max: .zero), clock: ImmediateClock())
        return Router(
            writes: writes, cache: DetailCache(store: slowStore, capacity: 100), images: imageCache(),
            paging: defaultPaging,
            observability: observability(metrics: metrics),
            service: service, chat: chat)
    }
}

extension Router {
    /// Routes `method target`, expecting a synchronous response (records an issue and returns a 0 status if not).
    func respond(
        _ target: String, method: HTTPMethod = .get, headers: HTTPHeaders = [:], body: [UInt8] = []
    ) -> HTTPResponse {
        switch route(HTTPRequest(method: method, target: target, headers: headers, body: body)) {
        case .response(let response):
            return response
        case .deferred, .pending, .stream, .after:
            Issue.record("\(method.name) \(target) was deferred; expected a synchronous response")
            return HTTPResponse(status: 0)
        }
    }

    /// Routes `request` and awaits the answer, deferred or not, held for its `delay` as the server holds it.
    func answer(_ request: HTTPRequest) async -> HTTPResponse {
        switch await route(request).settled() {
        case .response(let response): await awaitHeld { response }
        case .deferred(let work): await awaitHeld(work)
        case .pending(let pending): await awaitHeld { await pending.response() }
        case .stream(let stream): stream.opening
        case .after: HTTPResponse(status: 0)  // settled above
        }
    }

    /// Awaits deferred work as the server does: it holds the response for its `delay` (a detail miss until its
    /// store fetch is ready), so the store's test clock moves on by that much before the next request.
    func awaitHeld(_ work: @Sendable () async -> HTTPResponse) async -> HTTPResponse {
        let response = await work()
        (cache.store.clock as? ImmediateClock)?.advance(by: response.delay)
        return response
    }

    /// Sends a write (`POST`, `PATCH`, `DELETE`) with a JSON body, expecting a deferred answer, and awaits it.
    func write(
        _ method: HTTPMethod, _ target: String, json body: String = "", contentType: String? = "application/json",
        headers: HTTPHeaders = [:]
    ) async -> HTTPResponse {
        var fields = headers
        if let contentType { fields.add("Content-Type", contentType) }
        return await respondDeferred(target, method: method, headers: fields, body: Array(body.utf8))
    }

    /// Routes `method target`, answered at once or deferred, and awaits it held for its `delay` (a detail miss is
    /// answered at once but held until its store fetch is ready).
    func respondHeld(
        _ target: String, method: HTTPMethod = .get, headers: HTTPHeaders = [:], body: [UInt8] = []
    ) async -> HTTPResponse {
        await answer(HTTPRequest(method: method, target: target, headers: headers, body: body))
    }

    /// Routes `method target`, expecting a deferred response, and awaits it.
    func respondDeferred(
        _ target: String, method: HTTPMethod = .get, headers: HTTPHeaders = [:], body: [UInt8] = []
    ) async -> HTTPResponse {
        switch await route(HTTPRequest(method: method, target: target, headers: headers, body: body)).settled() {
        case .response(let response):
            Issue.record("\(method.name) \(target) answered at once (\(response.status)); expected .deferred")
            return response
        case .deferred(let work):
            return await awaitHeld(work)
        case .pending(let pending):
            return await awaitHeld { await pending.response() }
        case .stream(let stream):
            Issue.record("\(method.name) \(target) opened an event stream; expected .deferred")
            return stream.opening
        case .after:
            return HTTPResponse(status: 0)  // settled above
        }
    }
}

extension HTTPResponse {
    /// The body as UTF-8 text.
    var text: String { String(decoding: body, as: UTF8.self) }
}
