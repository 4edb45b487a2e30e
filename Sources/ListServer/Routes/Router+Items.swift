import ListDomain

/// `GET /items` and `GET /items/<id>`: pure computation, answered synchronously on the calling thread.
extension Router {
    /// Bytes reserved per item when sizing a page body up front (a generated item is about 150 bytes of JSON).
    static let estimatedItemBytes = 192
    /// Bytes reserved for a page body's envelope (`"page"`, `"limit"`, `"total"`, … up to 2^53).
    static let estimatedEnvelopeBytes = 160

    /// `GET /items`: one page of the catalog, by page number or by cursor.
    ///
    /// Page-number body (written by `Catalog.writePage` into a buffer reserved once):
    /// `{"items":[…],"page":P,"limit":L,"total":N,"total_pages":T,"next_page":P+1 or null,"version":V}`; past the
    /// end, a 200 with `"items":[]` and `"next_page":null`. Headers: `X-Total-Count: N` and ``linkHeader(for:order:)``.
    /// Cursor body (`after`, `before`, `order`; see ``cursorPage(_:order:limit:state:headers:)``):
    /// `{"items":[…],"has_more":B,"next_cursor":ID or null,"order":"asc","limit":L,"total":N,"version":V}`.
    ///
    /// Both carry a strong `ETag` of the catalog version and the page's inputs; a matching `If-None-Match` gets 304
    /// with no body. Both are held for the page latency (``SettingKey/pageLatencyMs``), 304s too: the latency stands
    /// for the backend's work, which a conditional request does as well.
    ///
    /// - Parameters:
    ///   - target: The request-target, whose query holds `page` and `limit` or the cursor (see ``PageQuery``).
    ///   - headers: The request's fields (for `If-None-Match`).
    /// - Throws: A 400 ``Problem`` for a bad parameter, or a query that does not decode.
    func itemsPage(_ target: RequestTarget, headers: HTTPHeaders) throws(Problem) -> HTTPResponse {
        let request = try PageQuery(target: target, paging: paging)
        let state = try readableState(of: try Self.listName(headers))
        var response: HTTPResponse
        let basePath = target.basePath
        if let position = request.cursor {
            response = cursorPage(
                position, order: request.order, limit: request.limit, state: state, headers: headers,
                basePath: basePath)
        } else if state.isPristine {
            response = generatedPage(request, state: state, headers: headers, basePath: basePath)
        } else {
            response = writtenPage(request, state: state, headers: headers, basePath: basePath)
        }
        response.delay = service.pageLatency
        return response
    }

    /// A page by number of a list nobody wrote to: ids are positions, written straight from the catalog.
    private func generatedPage(_ request: PageQuery, state: ListState, headers: HTTPHeaders, basePath: [UInt8]?)
        -> HTTPResponse
    {
        let catalog = state.catalog
        let version = state.header.version
        let tag = Self.generatedPageTag(request, state: state)
        let page = catalog.page(request.page, limit: request.limit)
        if var notModified = Self.notModified(tag, headers) {
            notModified.note = Self.listed(page)  // the client has these ids on screen (the report card's overfetch)
            return notModified
        }
        var json = JSONWriter(capacity: Self.estimatedEnvelopeBytes + page.ids.count * Self.estimatedItemBytes)
        json.basePath = basePath
        catalog.writePage(page, order: request.order, version: version, into: &json)
        var response = pageResponse(page, order: request.order, tag: tag, body: json.bytes)
        response.note = Self.listed(page)
        return response
    }

    /// The journal's note of a generated page: its ids, and whether it is the last.
    private static func listed(_ page: Page) -> ResponseNote {
        page.ids.isEmpty
            ? .listed(lowest: 0, highest: 0, count: 0, last: true)
            : .listed(
                lowest: page.ids.lowerBound, highest: page.ids.upperBound - 1, count: page.ids.count,
                last: page.nextPage == nil)
    }

    /// A page by number of a list with writes: live items only, written items with their fields.
    ///
    /// The `ETag` is the generated page's, with the list's deletions and the highest revision on the page added
    /// once there are any (see ``EntityTag/forPage(_:of:)``): it changes exactly when an item on the page does.
    private func writtenPage(_ request: PageQuery, state: ListState, headers: HTTPHeaders, basePath: [UInt8]?)
        -> HTTPResponse
    {
        let (page, ids) = state.page(request.page, limit: request.limit, order: request.order)
        let tag = Self.generatedPageTag(request, state: state).forPage(ids, of: state)
        if var notModified = Self.notModified(tag, headers) {
            notModified.note = .listed(ids, last: page.nextPage == nil)
            return notModified
        }
        var json = JSONWriter(capacity: Self.estimatedEnvelopeBytes + ids.count * Self.estimatedItemBytes)
        json.basePath = basePath
        state.writeItems(ids, into: &json)
        Catalog.writePageEnvelope(page, version: state.header.version, into: &json)
        var response = pageResponse(page, order: request.order, tag: tag, body: json.bytes)
        response.note = .listed(ids, last: page.nextPage == nil)
        return response
    }

    /// The tag of a page by number as the generated catalog of `state` gives it.
    private static func generatedPageTag(_ request: PageQuery, state: ListState) -> EntityTag {
        // 1: a `/items` page by number (see `EntityTag`).
        EntityTag(
            version: state.header.version, state.header.seed, state.header.nextID, 1, request.page, request.limit,
            request.order == .asc ? 0 : 1)
    }

    /// The 200 answer for a page by number: `X-Total-Count`, `Link` and `ETag`.
    private func pageResponse(_ page: Page, order: ListOrder, tag: EntityTag, body: [UInt8]) -> HTTPResponse {
        var headers = HTTPHeaders(capacity: 8)
        headers.add("Content-Type", MediaType.json)
        headers.add("X-Total-Count", String(page.total))
        headers.add("Link", Self.linkHeader(for: page, order: order))
        headers.add("ETag", tag.headerValue)
        return HTTPResponse(status: 200, headers: headers, body: body)
    }

    /// The RFC 8288 `Link` value for `page`: `first`, `prev` (when P > 1), `next` (when there is one) and `last`
    /// (`max(totalPages, 1)`, so an empty catalog still has a first and last page), as server-relative URLs that
    /// always carry the effective `limit`, e.g. for page 1 of 500:
    /// ```
    /// </items?page=1&limit=20>; rel="first", </items?page=2&limit=20>; rel="next",
    /// </items?page=500&limit=20>; rel="last"
    /// ```
    /// (one line on the wire).
    ///
    /// Past the end, `prev` is still P - 1, as for any P > 1, and there is no `next`.
    static func linkHeader(for page: Page, order: ListOrder = .asc) -> String {
        // Built with the byte writer rather than String interpolation: this runs on every page request, and four
        // interpolations and concatenations cost about 0.9 µs of the ~18 µs a page takes (perf,
        // Benchmarks/HISTORY.md).
        var value = JSONWriter(capacity: 192)
        let descending = order == .desc
        appendLink(to: &value, page: 1, limit: page.limit, descending: descending, rel: "first")
        if let previous = page.previousPage {
            value.append(raw: ", ")
            appendLink(to: &value, page: previous, limit: page.limit, descending: descending, rel: "prev")
        }
        if let next = page.nextPage {
            value.append(raw: ", ")
            appendLink(to: &value, page: next, limit: page.limit, descending: descending, rel: "next")
        }
        value.append(raw: ", ")
        appendLink(to: &value, page: max(page.totalPages, 1), limit: page.limit, descending: descending, rel: "last")
        return String(decoding: value.bytes, as: UTF8.self)
    }

    /// One link-value: `</items?page=2&limit=20>; rel="next"`, with `&order=desc` for a newest-first list.
    private static func appendLink(
        to value: inout JSONWriter, page: UInt64, limit: UInt64, descending: Bool, rel: StaticString
    ) {
        value.append(raw: "</items?page=")
        value.append(integer: page)
        value.append(raw: "&limit=")
        value.append(integer: limit)
        if descending {
            value.append(raw: "&order=desc")
        }
        value.append(raw: ">; rel=\"")
        value.append(raw: rel)
        value.append(raw: "\"")
    }

    /// `GET /items/<id>`: the item alone, `{"id":42,"label":"Line 42",…}`, with a strong `ETag` (304 when
    /// `If-None-Match` matches).
    ///
    /// - Parameters:
    ///   - rawID: The decoded id segment.
    ///   - headers: The request's fields (for `If-None-Match` and `X-Dataset`).
    /// - Throws: A ``Problem``: 400 for an id that is not a plain decimal integer or overflows, 404 past the end or
    ///   for a deleted item.
    func item(_ rawID: String, headers: HTTPHeaders, basePath: [UInt8]? = nil) throws(Problem) -> HTTPResponse {
        let state = try readableState(of: try Self.listName(headers))
        let id = try itemID(rawID, in: state)
        let tag = EntityTag(item: state.itemRevision(id))
        // The client has the item now: its detail and image are no overfetch (the report card).
        let note = ResponseNote.listed(lowest: id, highest: id, count: 1, last: false)
        if var notModified = Self.notModified(tag, headers) {
            notModified.note = note
            return notModified
        }
        var response = HTTPResponse(
            status: 200, headers: ["Content-Type": MediaType.json, "ETag": tag.headerValue],
            body: Self.itemJSON(id, in: state, basePath: basePath))
        response.note = note
        return response
    }

    /// Item `id` of `state` as JSON: the generated fast path unless it has written fields.
    static func itemJSON(_ id: UInt64, in state: ListState, basePath: [UInt8]? = nil) -> [UInt8] {
        var json = JSONWriter(capacity: estimatedItemBytes)
        json.basePath = basePath
        state.writeItem(id, into: &json)
        return json.bytes
    }

    /// The id in an `/items/<id>…` path, checked against the list.
    ///
    /// - Parameters:
    ///   - rawID: The decoded id segment: ASCII digits only (leading zeros allowed), fitting 64 bits.
    ///   - state: The list the request is answered from.
    /// - Returns: The id of a live item.
    /// - Throws: A 400 ``Problem`` (`invalid-id`) for anything but a plain decimal integer or a value past
    ///   `UInt64.max`; a 404 ``Problem`` (`not-found`) for an id past the end of the list or a deleted one.
    func itemID(_ rawID: String, in state: ListState) throws(Problem) -> UInt64 {
        let count = state.header.nextID
        let range = count == 0 ? "the list is empty" : "ids run from 0 to \(count - 1)"
        guard let id = UInt64(plainDecimal: rawID) else {
            let digitsOnly = rawID.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
            let what = digitsOnly ? "is too large" : "is not a plain decimal integer"
            throw Problem(.invalidID, detail: "the item id \(Problem.quoted(rawID)) \(what) (\(range))")
        }
        guard id < count else {
            throw Problem(.notFound, detail: "there is no item \(id) (\(range))")
        }
        guard state.isLive(id) else {
            throw Problem(.notFound, detail: "item \(id) was deleted")
        }
        return id
    }
}
