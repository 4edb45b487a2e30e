import ListDomain

/// What the router answers: a response at once, or work to await (only `/items/<id>/detail` awaits).
enum RouteOutcome: Sendable {
    /// The complete response, computed synchronously.
    case response(HTTPResponse)
    /// A response that needs the detail cache; the LibEvent layer runs the closure in a task on the loop.
    case deferred(@Sendable () async -> HTTPResponse)
}

/// Maps requests to responses: the whole HTTP API on plain values, with no sockets, locks or Foundation.
///
/// | Route | Answer |
/// |---|---|
/// | `GET\|HEAD /items?page=P&limit=L` | a page, `X-Total-Count`, RFC 8288 `Link` (see ``itemsPage(_:)``) |
/// | `GET\|HEAD /items/<id>` | the item alone, 404 past the end |
/// | `GET\|HEAD /items/<id>/detail` | `.deferred`: the detail through the cache, `X-Cache`, `Server-Timing` |
/// | `GET\|HEAD /healthz`, `/readyz` | `{"status":"ok"}`, `{"status":"ready"}` (see `Router+Health.swift`) |
/// | `GET\|HEAD /openapi.yaml`, `/openapi.json` | this API's OpenAPI description (see ``openAPIDocument(_:)``) |
/// | `GET\|HEAD /metrics` | `.deferred`: Prometheus text (see `Observability/Router+Metrics.swift`) |
///
/// Every error is an RFC 9457 ``Problem`` (`application/problem+json`): 400 for a bad request-target, parameter or
/// id; 404 for an unknown path or an id past the end; 405 with `Allow: GET, HEAD` for a known path with any other
/// method; 503 when the store fails. HEAD is answered exactly as GET; the LibEvent layer drops the body.
///
/// The order of checks is path shape (404), then method (405), then id and parameters (400, 404), so a client learns
/// first whether the resource exists at all. A router is an immutable value: share one across every loop thread.
struct Router: Sendable {
    /// The value of `Allow` on a 405: the methods every route supports.
    static let allowedMethods = "GET, HEAD"
    /// The most path segments any route has (`/items/<id>/detail`).
    static let maximumSegments = 3

    /// The items served.
    let catalog: Catalog
    /// The detail cache in front of the slow store.
    let cache: DetailCache
    /// The default and largest page size.
    let paging: PagingSettings
    /// The metrics served at `/metrics` and the access log, which the LibEvent layer records into.
    let observability: Observability
    /// The limits of `?delay_ms` and of injected faults (see `Router+Faults.swift`).
    let faults: FaultSettings

    /// Creates a router.
    ///
    /// - Parameters:
    ///   - catalog: The items served (`items.count`, `items.seed`).
    ///   - cache: The detail cache (`cache.capacity`) over the slow store (`store.latency.min_ms`, `.max_ms`).
    ///   - paging: `paging.default_limit` and `paging.max_limit`; `1 <= defaultLimit <= maxLimit` (the configuration
    ///     layer validates this).
    ///   - observability: Metrics (`metrics.enabled`) and access log (`log.*`); none by default.
    ///   - faults: The limits of `?delay_ms` and injected faults; the defaults by default.
    init(
        catalog: Catalog, cache: DetailCache, paging: PagingSettings, observability: Observability = .disabled,
        faults: FaultSettings = FaultSettings()
    ) {
        precondition(
            paging.defaultLimit >= 1 && paging.defaultLimit <= paging.maxLimit,
            "PagingSettings needs 1 <= defaultLimit <= maxLimit")
        self.catalog = catalog
        self.cache = cache
        self.paging = paging
        self.observability = observability
        self.faults = faults
    }

    /// Answers `request`: synchronously for everything but `/items/<id>/detail`, which is `.deferred` once its id
    /// has been validated (a bad or unknown id is answered at once, without a task).
    func route(_ request: HTTPRequest) -> RouteOutcome {
        let answer = Result { () throws(Problem) in try dispatch(request) }
        // `?delay_ms` and `?fail=` (Router+Faults.swift): a byte scan of the target when there are none.
        return applyingControls(of: request, to: answer)
    }

    /// The resources the API serves, matched from decoded path segments.
    enum Resource: Sendable, Equatable {
        /// `/items`
        case items
        /// `/items/<id>`, with the id segment still unparsed.
        case item(String)
        /// `/items/<id>/detail`, with the id segment still unparsed.
        case itemDetail(String)
        /// `/healthz` (alive) or `/readyz` (ready).
        case probe(ready: Bool)
        /// `/openapi.yaml` or `/openapi.json`.
        case openAPI(OpenAPIFormat)
        /// `/metrics`
        case metrics

        /// The resource at `segments`, or nil for an unknown path (including `/items/` and `/items/42/`).
        init?(segments: [String]) {
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
            guard segments.first == "items" else { return nil }
            switch segments.count {
            case 1: self = .items
            case 2 where !segments[1].isEmpty: self = .item(segments[1])
            case 3 where !segments[1].isEmpty && segments[2] == "detail": self = .itemDetail(segments[1])
            default: return nil
            }
        }
    }

    private func dispatch(_ request: HTTPRequest) throws(Problem) -> RouteOutcome {
        let target = try RequestTarget(request.target)
        guard let segments = try target.segments(maximumCount: Self.maximumSegments),
            let resource = Resource(segments: segments)
        else {
            throw Problem(.notFound, detail: "there is no resource at \(Problem.quoted(target.path))")
        }
        guard request.method == .get || request.method == .head else {
            throw Problem(
                .methodNotAllowed,
                detail: "\(Problem.quoted(request.method.name)) is not allowed on \(Problem.quoted(target.path)); "
                    + "use \(Self.allowedMethods)",
                headers: ["Allow": Self.allowedMethods])
        }
        switch resource {
        case .items:
            return .response(try itemsPage(target))
        case .item(let rawID):
            return .response(try item(rawID))
        case .itemDetail(let rawID):
            return try detail(rawID, headers: request.headers)
        case .probe(let ready):
            return .response(Self.probeResponse(ready: ready))
        case .openAPI(let format):
            return .response(Self.openAPIDocument(format))
        case .metrics:
            return try scrapeMetrics()
        }
    }
}
