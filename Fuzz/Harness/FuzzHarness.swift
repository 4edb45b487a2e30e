#if LISTSERVER_FUZZ
    import Foundation  // before anything that imports Glibc (see LibEvent/): CEvent and Glibc both define fd_set
    import ListDomain
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
                let limits = input.smallLimits ? smallLimits : HTTPLimits()
                var rest = input.payload
                for _ in 0..<4 {
                    guard let head = checkHead(Array(rest), limits: limits) else { break }
                    if let request = FuzzText.naiveHead(rest.prefix(head.headLength)) {
                        checkRoute(request, router: router)
                    }
                    rest = rest.dropFirst(head.headLength + head.bodyLength)
                    if rest.isEmpty { break }
                }
            }
        }

        /// Head limits that short inputs reach (the scanner's own property tests use the same).
        static let smallLimits = HTTPLimits(
            maxRequestLineBytes: 80, maxHeaderBytes: 300, maxHeaderCount: 6, maxBodyBytes: 1000)

        /// The strict head scanner: the same answer whole and byte by byte, and each answer keeps its promises.
        ///
        /// - Returns: The head when the scanner accepts one.
        static func checkHead(_ bytes: [UInt8], limits: HTTPLimits) -> RequestHead? {
            // A scanner that has finished a request and been reset must answer like a fresh one.
            var whole = RequestHeadScanner(limits: limits)
            _ = Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8).withUnsafeBytes { whole.scan($0) }
            whole.reset()
            let result = bytes.withUnsafeBytes { whole.scan($0) }
            var growing = RequestHeadScanner(limits: limits)
            var grown = HeadScan.needMore
            bytes.withUnsafeBytes { all in
                var offered = 0
                while grown == .needMore && offered < all.count {
                    offered += 1
                    grown = growing.scan(UnsafeRawBufferPointer(rebasing: all[0..<offered]))
                }
            }
            FuzzCheck.require(grown == result, "byte-by-byte scan \(grown) differs from whole scan \(result)")
            switch result {
            case .needMore:
                FuzzCheck.require(bytes.count <= limits.maxHeaderBytes, "needMore past http.max_header_bytes")
                return nil
            case .complete(let head):
                FuzzCheck.require(head.headLength <= min(bytes.count, limits.maxHeaderBytes), "head length")
                FuzzCheck.require(bytes[head.headLength - 1] == UInt8(ascii: "\n"), "a head that does not end in LF")
                FuzzCheck.require((0...limits.maxBodyBytes).contains(head.bodyLength), "body length")
                FuzzCheck.require(head.method != .connect, "CONNECT accepted")
                var prefix = RequestHeadScanner(limits: limits)
                let again = bytes.withUnsafeBytes {
                    prefix.scan(UnsafeRawBufferPointer(rebasing: $0[..<head.headLength]))
                }
                FuzzCheck.require(again == result, "the head alone scans differently")
                return head
            case .reject(let rejection):
                FuzzCheck.require(
                    [400, 405, 411, 413, 414, 431, 501, 505].contains(rejection.status), "rejection \(rejection.status)"
                )
                FuzzCheck.require(
                    rejection.wireBytes.starts(with: Array("HTTP/1.1 \(rejection.status) ".utf8)),
                    "rejection status line")
                FuzzCheck.require(
                    rejection.response.headers["Connection"] == "close", "a rejection that keeps the connection")
                FuzzCheck.response(
                    rejection.response, for: HTTPRequest(method: .get, target: "(head)"), statuses: headStatuses)
                return nil
            }
        }

        /// Statuses the head scanner may answer with.
        static let headStatuses: Set<Int> = [400, 405, 411, 413, 414, 431, 501, 505]

        /// Target parsing: whatever it accepts is well-formed, and it never traps.
        static func checkTarget(_ raw: String, paging: PagingSettings) {
            let target: RequestTarget
            do {
                target = try RequestTarget(raw)
            } catch {
                FuzzCheck.problem(error, statuses: [400])
                return
            }
            FuzzCheck.require(target.path.utf8.first == UInt8(ascii: "/"), "a path that does not start with /")
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

        /// Routing: every answer is one the API documents, HEAD answers exactly as GET, and nothing traps.
        static func checkRoute(_ request: HTTPRequest, router: Router) {
            let response = answer(request, router: router)
            FuzzCheck.response(response, for: request)
            if request.method == .get || request.method == .head {
                var other = request
                other.method = request.method == .get ? .head : .get
                let twin = answer(other, router: router)
                // A detail's X-Cache and Server-Timing depend on what was cached before; its body does not.
                FuzzCheck.require(twin.status == response.status && twin.body == response.body, "HEAD differs from GET")
            }
        }

        /// The router's answer, awaiting deferred work on a task while this thread waits.
        ///
        /// The one blocking wait in Sources/, and not server code: this file is compiled only into the fuzzer
        /// (`-DLISTSERVER_FUZZ`), whose synchronous entry point libFuzzer calls on its own thread.
        static func answer(_ request: HTTPRequest, router: Router) -> HTTPResponse {
            switch router.route(request) {
            case .response(let response):
                return response
            case .deferred(let work):
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
    }
#endif
