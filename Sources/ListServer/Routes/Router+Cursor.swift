import ListDomain

/// `GET /items?after=X` and `?before=X`: cursor paging, stable while the list grows (chat-like lists).
extension Router {
    /// One cursor page: the items right after or before an id, in ascending or descending id order.
    ///
    /// Page numbers drift when items are added (page 2 after a new item holds one item page 1 already showed);
    /// cursors do not, because they name an item rather than a position. Body:
    /// `{"items":[…],"has_more":true,"next_cursor":41,"order":"desc","limit":20,"total":N,"version":V}`, where
    /// `next_cursor` goes back in the same parameter (`after` or `before`) to continue. Headers: `X-Total-Count`,
    /// an RFC 8288 `Link` with `rel="next"` when `has_more`, and a strong `ETag` (304 on a match).
    func cursorPage(
        _ position: ListCursor,
        order: ListOrder,
        limit: UInt64,
        state: ListState,
        headers requestHeaders: HTTPHeaders,
        basePath: [UInt8]? = nil
    ) -> HTTPResponse {
        let catalog = state.catalog
        let version = state.header.version
        let (kind, cursorID): (UInt64, UInt64) =
            switch position {
            case .start: (0, 0)
            case .after(let id): (1, id)
            case .before(let id): (2, id)
            }
        let hasMore: Bool
        let nextCursor: UInt64?
        let listed: ResponseNote
        let total: UInt64
        var json = JSONWriter(capacity: Self.estimatedEnvelopeBytes + Int(limit) * Self.estimatedItemBytes)
        json.basePath = basePath
        // 3: a `/items` page by cursor (see `EntityTag`).
        let generatedTag = EntityTag(
            version: version, catalog.seed, catalog.count, 3, kind, cursorID, order == .asc ? 0 : 1, limit)
        let tag: EntityTag
        if state.isPristine {
            tag = generatedTag
            let page = CursorPage(cursor: position, order: order, limit: limit, total: catalog.count)
            listed =
                page.idRange.isEmpty
                ? .listed(lowest: 0, highest: 0, count: 0, last: !page.hasMore)
                : .listed(
                    lowest: page.idRange.lowerBound, highest: page.idRange.upperBound - 1,
                    count: page.idRange.count, last: !page.hasMore)
            if var notModified = Self.notModified(tag, requestHeaders) {
                notModified.note = listed  // the client has these ids on screen (the report card's overfetch)
                return notModified
            }
            catalog.writeCursorPage(page, version: version, into: &json)
            (hasMore, nextCursor, total) = (page.hasMore, page.nextCursor, page.total)
        } else {
            // As for pages by number (see `writtenPage`): deletions and the highest revision on the page join in.
            let page = state.cursorPage(position, order: order, limit: limit)
            tag = generatedTag.forPage(page.ids, of: state)
            listed = .listed(page.ids, last: !page.hasMore)
            if var notModified = Self.notModified(tag, requestHeaders) {
                notModified.note = listed
                return notModified
            }
            state.writeItems(page.ids, into: &json)
            Catalog.writeCursorEnvelope(
                hasMore: page.hasMore, nextCursor: page.nextCursor, order: order, limit: limit, total: page.total,
                version: version, into: &json)
            (hasMore, nextCursor, total) = (page.hasMore, page.nextCursor, page.total)
        }
        var headers: HTTPHeaders = [
            "Content-Type": MediaType.json,
            "X-Total-Count": String(total),
            "ETag": tag.headerValue,
        ]
        if hasMore, let next = nextCursor {
            let parameter = if case .before = position { "before" } else { "after" }
            headers.add("Link", "</items?\(parameter)=\(next)&order=\(order.rawValue)&limit=\(limit)>; rel=\"next\"")
        }
        var response = HTTPResponse(status: 200, headers: headers, body: json.bytes)
        response.note = listed
        return response
    }
}
