import Dispatch
import Foundation
import ListDomain
import ListServer
import Synchronization

/// Feeds one ``FuzzInput`` through the pure-Swift request pipeline and checks what the code promises.
enum FuzzHarness {
    /// The methods the route entries pick from by a payload byte (the last one stands for any other token).
    static let methods: [HTTPMethod] = [
        .get, .head, .post, .put, .delete, .options, .patch, .trace, .connect, .other("PROPFIND"),
    ]

    /// The server's default setup: 10,000 items, pages of 20 up to 100, instant store.
    static let defaultRouter = makeRouter(count: 10_000, paging: PagingSettings(defaultLimit: 20, maxLimit: 100))
    /// The largest catalog and page size the configuration allows: arithmetic at its edges. Pages default to 20
    /// items so that most inputs stay fast; `limit` reaches 10,000 when the fuzzer asks for it.
    static let hugeRouter = makeRouter(
        count: 1 << 53, paging: PagingSettings(defaultLimit: 20, maxLimit: 10_000))

    /// A router over a catalog of `count` items whose store answers at once (latency 0: still an `await`).
    static func makeRouter(count: UInt64, paging: PagingSettings) -> Router {
        let catalog = Catalog(seed: 42, count: count)
        let store = SlowStore(catalog: catalog, latency: .uniform(min: .zero, max: .zero), clock: ContinuousClock())
        return Router(catalog: catalog, cache: DetailCache(store: store, capacity: 64), paging: paging)
    }

    /// Runs `input` through its entry; a broken promise crashes (see ``FuzzCheck``).
    static func run(_ input: FuzzInput) {
        let router = input.hugeCatalog ? hugeRouter : defaultRouter
        switch input.entry {
        case .target:
            checkTarget(FuzzText.cString(input.payload), paging: router.paging)
        case .route:
            if let request = FuzzText.routeRequest(input.payload) {
                checkRoute(request, router: router)
            }
        case .head:
            // Pipelined requests: after a complete head and its body, the scanner is reset for the next bytes,
            // as the connection filter does (at most 4 requests per input, so every input stays cheap).
            let limits = input.smallLimits ? HeadScanProperties.smallLimits : HTTPLimits.defaults
            var rest = input.payload
            for _ in 0..<4 {
                guard let head = checkHead(Array(rest), limits: limits) else { break }
                if let request = FuzzText.naiveHead(rest.prefix(head.headLength)) {
                    checkRoute(request, router: router)
                }
                rest = rest.dropFirst(head.headLength + head.bodyLength)
                if rest.isEmpty { break }
            }
        case .json:
            FuzzBodies.checkJSON(Array(input.payload))
        case .patch:
            FuzzBodies.checkPatch(Array(input.payload))
        case .image(let format):
            FuzzImages.check(Array(input.payload), as: format)
        case .webSocket:
            FuzzWebSocket.check(Array(input.payload))
        }
    }

    /// The entry `LISTSERVER_FUZZ_ENTRY` names for every input, if it names one.
    static let forcedEntry = FuzzInput.Entry(named: ProcessInfo.processInfo.environment["LISTSERVER_FUZZ_ENTRY"])

    /// The strict head scanner: every promise of ``HeadScanProperties`` (offered whole, after a reset and byte by
    /// byte), and a rejection's response keeps a response's promises.
    ///
    /// - Returns: The head when the scanner accepts one.
    static func checkHead(_ bytes: [UInt8], limits: HTTPLimits) -> RequestHead? {
        let broken = HeadScanProperties.brokenPromises(of: bytes, limits: limits) { _ in 1 }
        FuzzCheck.require(broken.isEmpty, broken.joined(separator: "; "))
        switch HeadScanProperties.scanWhole(bytes, limits: limits) {
        case .needMore:
            return nil
        case .complete(let head):
            return head
        case .reject(let rejection):
            FuzzCheck.response(
                rejection.response, for: HTTPRequest(method: .get, target: "(head)"),
                statuses: HeadScanProperties.rejectionStatuses)
            return nil
        }
    }

    /// Target parsing: whatever it accepts is well-formed, and it never traps.
    static func checkTarget(_ raw: String, paging: PagingSettings) {
        let target: RequestTarget
        do {
            target = try RequestTarget(raw)
        } catch {
            FuzzCheck.problem(error, statuses: [400])
            return
        }
        // A path starts with "/"; only a bare dataset base (`/d/<name>`, redirected by the router) leaves none.
        FuzzCheck.require(
            target.path.utf8.first == UInt8(ascii: "/") || (target.path.isEmpty && target.hasBase),
            "a path that does not start with /")
        if let dataset = target.dataset {
            FuzzCheck.require(
                target.base.hasPrefix("/d/") && (1...64).contains(dataset.utf8.count) && dataset != "."
                    && dataset != ".."
                    && dataset.utf8.allSatisfy { byte in
                        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                            || byte == 0x2E || byte == 0x5F || byte == 0x2D
                    },
                "a base that names no valid dataset: \(target.base)")
        }
        do {
            if let segments = try target.segments(maximumCount: Router.maximumSegments) {
                FuzzCheck.require(segments.count <= Router.maximumSegments, "more segments than asked for")
                for segment in segments {
                    FuzzCheck.require(!segment.utf8.contains(0), "a NUL in a decoded segment")
                }
            }
        } catch {
            FuzzCheck.problem(error, statuses: [400])
        }
        if let items = try? target.queryItems() {
            for item in items {
                FuzzCheck.require(
                    !item.name.utf8.contains(0) && !item.value.utf8.contains(0), "a NUL in a query item")
            }
        }
        do {
            let query = try PageQuery(target: target, paging: paging)
            FuzzCheck.require((1...PageQuery.maximumPage).contains(query.page), "page out of range")
            FuzzCheck.require((1...UInt64(paging.maxLimit)).contains(query.limit), "limit out of range")
        } catch {
            FuzzCheck.problem(error, statuses: [400])
        }
    }

    /// Routing: every answer is one the API documents, HEAD answers exactly as GET (but on the event stream, which
    /// is GET only), and nothing traps.
    static func checkRoute(_ request: HTTPRequest, router: Router) {
        let response = answer(request, router: router)
        FuzzCheck.response(response, for: request)
        let eventStream = (try? RequestTarget(request.target))?.path == "/items/events"
        if request.method == .get || request.method == .head, !eventStream {
            var other = request
            other.method = request.method == .get ? .head : .get
            let twin = answer(other, router: router)
            // A detail's X-Cache and Server-Timing depend on what was cached before; its body does not.
            FuzzCheck.require(twin.status == response.status && twin.body == response.body, "HEAD differs from GET")
        }
    }

    /// The router's answer, awaiting deferred work on a task while this thread waits.
    ///
    /// A blocking wait, which the server never does: this is the fuzzer's own target, whose synchronous entry
    /// point libFuzzer calls on its own thread.
    static func answer(_ request: HTTPRequest, router: Router) -> HTTPResponse {
        answer(router.route(request))
    }

    /// The response `outcome` comes to, waited for on this thread.
    private static func answer(_ outcome: RouteOutcome) -> HTTPResponse {
        switch outcome {
        case .response(let response):
            return response
        case .deferred(let work):
            return waitFor(work)
        case .pending(let pending):
            return waitFor { await pending.response() }
        case .stream(let stream):
            return HTTPResponse(status: 200, headers: stream.headers)  // the head an event stream starts with
        case .after:
            let settled = Mutex<RouteOutcome?>(nil)
            let done = DispatchSemaphore(value: 0)
            Task {
                let outcome = await outcome.settled()
                settled.withLock { $0 = outcome }
                done.signal()
            }
            done.wait()
            return answer(settled.withLock { $0 }!)
        }
    }

    /// Runs `work` on a task and waits for its response on this thread.
    private static func waitFor(_ work: @escaping @Sendable () async -> HTTPResponse) -> HTTPResponse {
        let result = Mutex<HTTPResponse?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            let response = await work()
            result.withLock { $0 = response }
            done.signal()
        }
        done.wait()
        return result.withLock { $0 } ?? HTTPResponse(status: 0)
    }
}
