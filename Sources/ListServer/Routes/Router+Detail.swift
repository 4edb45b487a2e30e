import ListDomain

/// `GET /items/<id>/detail`: answered from the detail cache at once, and on a miss held until the slow store's fetch
/// is ready.
extension Router {
    /// `GET /items/<id>/detail`: validates the id, then asks the detail cache (synchronously: it answers without
    /// waiting, see ``DetailCache/lookUp(_:in:bypassCache:)``).
    ///
    /// The response is `{"id":42,"amount":0.4215…}` with `X-Cache: HIT` or `X-Cache: MISS`, and on a miss
    /// `Server-Timing: store;dur=<ms>` (the latency of the store fetch this request waited for, shared when
    /// coalesced). A miss is answered when that fetch is ready: the response's `delay` holds it on a loop timer
    /// until then, so a request waiting on the slow store costs no task (in scenario 3 of the benchmarks 5,000 of
    /// them at once, Benchmarks/HISTORY.md, "Memory per waiting request"), and a hit costs none either.
    /// A request with `Cache-Control: no-cache` (or, without `Cache-Control`, the HTTP/1.0 `Pragma: no-cache`,
    /// RFC 9111 §5.4) bypasses the cache: a fresh store fetch whose result is then cached.
    ///
    /// The detail carries a strong `ETag` (catalog version, seed, id). A matching `If-None-Match` gets a 304, but
    /// only after the lookup: revalidating costs what fetching costs, as with a real backend, so a client sees the
    /// same latency either way and only the body is saved.
    ///
    /// - Parameters:
    ///   - rawID: The decoded id segment.
    ///   - headers: The request's header fields (for `Cache-Control` and `Pragma`).
    ///   - target: The request's target (whether it may carry fault controls).
    /// - Returns: `.response`, delayed until the store's fetch is ready on a miss; `.deferred` while an injected
    ///   fault may replace it.
    /// - Throws: A ``Problem`` for a bad id (400) or one past the end (404).
    func detail(_ rawID: String, headers: HTTPHeaders, target: RequestTarget) throws(Problem) -> RouteOutcome {
        let state = try readableState(of: try Self.listName(headers))
        let catalog = state.catalog
        let id = try itemID(rawID, in: state)
        let bypassCache = Self.requestsFreshDetail(headers)
        let tag = EntityTag(version: state.header.version, catalog.seed, 4, id)  // 4: `/items/<id>/detail`
        let condition = headers["If-None-Match"]
        // A fault that replaces the answer (`Router+Faults.swift`) is chosen after the route answered, and must not
        // consult the cache (no store fetch, nothing cached for a request that failed): while one may be chosen,
        // the lookup waits for that decision as deferred work that a fault drops unrun. Otherwise it runs now, with
        // no closure to allocate.
        if mayApplyControls(to: target) {
            return .deferred { [cache] in
                Self.lookUp(id, in: catalog, cache: cache, bypassCache: bypassCache, tag: tag, ifNoneMatch: condition)
            }
        }
        return .response(
            Self.lookUp(id, in: catalog, cache: cache, bypassCache: bypassCache, tag: tag, ifNoneMatch: condition))
    }

    /// Asks the detail cache for item `id` and makes the answer, held until the store's fetch is ready on a miss.
    private static func lookUp(
        _ id: UInt64, in catalog: Catalog, cache: DetailCache, bypassCache: Bool, tag: EntityTag,
        ifNoneMatch condition: String?
    ) -> HTTPResponse {
        // The cache cannot refuse the id: it was checked against the same catalog, which is what the store refuses
        // ids by. Were that to change, a refusal is that 404 again.
        guard let pending = try? cache.lookUp(id, in: catalog, bypassCache: bypassCache) else {
            return Problem(.notFound, detail: "there is no item \(id)").response()
        }
        var response = detailResponse(pending.lookup, tag: tag, ifNoneMatch: condition)
        response.delay += pending.readyIn
        return response
    }

    /// The answer to a detail request once its lookup is done: 200, or 304 when `ifNoneMatch` matches `tag`
    /// (the same fields but `Content-Type`, and no body); both with the `ETag`.
    static func detailResponse(_ lookup: DetailLookup, tag: EntityTag, ifNoneMatch condition: String?) -> HTTPResponse {
        var response = detailResponse(lookup)
        if let condition, tag.matches(ifNoneMatch: condition) {
            response.status = 304
            response.body = []
            response.vary.insert(.acceptEncoding)  // as its JSON 200 (RFC 9110 §15.4.5)
            response.headers = HTTPHeaders(
                response.headers.filter { $0.name != "Content-Type" }.map { ($0.name, $0.value) })
        }
        response.headers.add("ETag", tag.headerValue)
        return response
    }

    /// Whether the request asks to skip cached details: `Cache-Control: no-cache`, or `Pragma: no-cache` when there
    /// is no `Cache-Control` field.
    static func requestsFreshDetail(_ headers: HTTPHeaders) -> Bool {
        if headers["Cache-Control"] != nil {
            return headers.listsDirective("no-cache", in: "Cache-Control")
        }
        return headers.listsDirective("no-cache", in: "Pragma")
    }

    /// The 200 response for a detail lookup: body, `X-Cache` and, on a miss, `Server-Timing`.
    static func detailResponse(_ lookup: DetailLookup) -> HTTPResponse {
        var json = JSONWriter(capacity: 64)
        lookup.detail.writeJSON(into: &json)
        var headers = HTTPHeaders(capacity: 8)
        headers.add("Content-Type", MediaType.json)
        switch lookup.result {
        case .hit:
            headers.add("X-Cache", "HIT")
        case .miss(let storeDuration):
            headers.add("X-Cache", "MISS")
            headers.add("Server-Timing", "store;dur=" + milliseconds(storeDuration))
        }
        return HTTPResponse(status: 200, headers: headers, body: json.bytes)
    }

    /// `duration` in milliseconds, rounded to one decimal and without a trailing `.0`: `1234.5`, `500`, `0.1`.
    ///
    /// Negative durations read as 0; durations beyond `Int64.max` tenths of a millisecond are clamped.
    static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0, duration > .zero else { return "0" }
        // 1 tenth of a millisecond is 10^14 attoseconds; round half up.
        let tenthsInFraction = (attoseconds + 50_000_000_000_000) / 100_000_000_000_000
        let (secondTenths, overflow1) = seconds.multipliedReportingOverflow(by: 10_000)
        let (tenths, overflow2) = secondTenths.addingReportingOverflow(tenthsInFraction)
        guard !overflow1, !overflow2 else { return String(Int64.max / 10) }
        let whole = String(tenths / 10)
        let fraction = tenths % 10
        return fraction == 0 ? whole : whole + "." + String(fraction)
    }
}
