import Foundation
import ListDomain
import Synchronization
import Testing

@testable import ListServer

/// Builds routers over the stand-in domain and turns responses into values tests can read.
enum RouterFixture {
    /// The paging settings the issue documents as defaults.
    static let defaultPaging = PagingSettings(defaultLimit: 20, maxLimit: 100)

    /// A router over a catalog of `count` items whose store sleeps `latency` on `clock` (instant by default).
    static func router(
        count: UInt64 = 10_000,
        paging: PagingSettings = defaultPaging,
        latency: Duration = .milliseconds(250),
        clock: ImmediateClock = ImmediateClock(),
        service: ServiceOptions = ServiceOptions()
    ) -> Router {
        let catalog = Catalog(seed: 42, count: count)
        let store = SlowStore(catalog: catalog, latency: .uniform(min: latency, max: latency), clock: clock)
        return Router(
            catalog: catalog, cache: DetailCache(store: store, capacity: 100), paging: paging, service: service)
    }
}

/// A clock whose sleeps end at once, moving its time to the deadline; ``advance(by:)`` moves it on too.
final class ImmediateClock: Clock, Sendable {
    /// A point on the test clock: the time slept since it was created.
    struct Instant: InstantProtocol {
        var offset: Duration
        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private let time = Mutex(Duration.zero)

    var now: Instant { Instant(offset: time.withLock { $0 }) }
    var minimumResolution: Duration { .nanoseconds(1) }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        time.withLock { $0 = max($0, deadline.offset) }
    }

    /// Moves the clock on by `duration`.
    func advance(by duration: Duration) {
        time.withLock { $0 += duration }
    }
}

extension Router {
    /// Routes `method target`, expecting a synchronous response (records an issue and returns a 0 status if not).
    func respond(_ target: String, method: HTTPMethod = .get, headers: HTTPHeaders = [:]) -> HTTPResponse {
        switch route(HTTPRequest(method: method, target: target, headers: headers)) {
        case .response(let response):
            return response
        case .deferred:
            Issue.record("\(method.name) \(target) was deferred; expected a synchronous response")
            return HTTPResponse(status: 0)
        }
    }

    /// Routes `request` and awaits the answer, deferred or not.
    func answer(_ request: HTTPRequest) async -> HTTPResponse {
        switch route(request) {
        case .response(let response): response
        case .deferred(let work): await awaitHeld(work)
        }
    }

    /// Awaits deferred work as the server does: it holds the response for its `delay` (a detail miss until its
    /// store fetch is ready), so the store's test clock moves on by that much before the next request.
    func awaitHeld(_ work: @Sendable () async -> HTTPResponse) async -> HTTPResponse {
        let response = await work()
        (cache.store.clock as? ImmediateClock)?.advance(by: response.delay)
        return response
    }

    /// Routes `method target`, expecting a deferred response, and awaits it.
    func respondDeferred(
        _ target: String, method: HTTPMethod = .get, headers: HTTPHeaders = [:]
    ) async -> HTTPResponse {
        switch route(HTTPRequest(method: method, target: target, headers: headers)) {
        case .response(let response):
            Issue.record("\(method.name) \(target) answered at once (\(response.status)); expected .deferred")
            return response
        case .deferred(let work):
            return await awaitHeld(work)
        }
    }
}

extension HTTPResponse {
    /// The body parsed as a JSON object, or nil.
    var jsonObject: [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]
    }

    /// The body as UTF-8 text.
    var text: String { String(decoding: body, as: UTF8.self) }
}

/// A JSON number as UInt64 (our bodies hold no booleans, which would also read as NSNumber 0 or 1).
func uint64(_ value: Any?) -> UInt64? {
    (value as? NSNumber)?.uint64Value
}

@Suite("Router basics")
struct RouterTests {
    let router = RouterFixture.router()

    @Test("every success is application/json; charset=utf-8", arguments: ["/items", "/items/42", "/items?page=3"])
    func successContentType(target: String) {
        let response = router.respond(target)
        #expect(response.status == 200)
        #expect(response.headers["Content-Type"] == "application/json; charset=utf-8")
        #expect(response.headers["content-type"] == response.headers["CONTENT-TYPE"])
        #expect(response.jsonObject != nil)
    }

    @Test(
        "HEAD is answered exactly as GET, body included",
        arguments: [
            "/items", "/items?page=2&limit=5", "/items?page=999999", "/items/7", "/items/10000", "/items/x", "/nope",
            "/items?page=0",
        ])
    func headEqualsGet(target: String) {
        let get = router.respond(target, method: .get)
        let head = router.respond(target, method: .head)
        #expect(head.status == get.status)
        #expect(head.headers == get.headers)
        #expect(head.body == get.body)
        #expect(!head.body.isEmpty)
    }

    @Test("HEAD of a detail is deferred like GET and gives the same body")
    func headDetail() async {
        let get = await RouterFixture.router().respondDeferred("/items/42/detail", method: .get)
        let head = await RouterFixture.router().respondDeferred("/items/42/detail", method: .head)
        #expect(head.status == 200)
        #expect(head.headers == get.headers)
        #expect(head.body == get.body)
    }

    @Test("a router is shared by value across tasks")
    func sendable() async {
        let router = self.router
        let statuses = await withTaskGroup(of: Int.self) { group in
            for page in 1...8 {
                group.addTask { router.respond("/items?page=\(page)").status }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses == Array(repeating: 200, count: 8))
    }
}
