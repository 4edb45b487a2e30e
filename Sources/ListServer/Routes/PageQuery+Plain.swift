import ListDomain

/// The common page query read straight from its bytes: the page path's fast twin of ``PageQuery/init(target:paging:)``.
///
/// Every page request pays for its query: decoding every name and value into a `String`, an array of them, then
/// the rules (about 8.5k of a page request's ~105k instructions, callgrind, issue 16, where the C baseline spends
/// under 1k). A query of plain bytes (letters, digits, `-`, `.`, `_`, `~`, one `=` a pair), with `page`, `limit` and
/// `order` each at most once and in range and no cursor, means exactly what its bytes say, so it is read here in one
/// pass with nothing allocated. Anything else (an escape, `+`, a repeat, a cursor, a bad or out-of-range value)
/// returns nil and goes through the full reading, which accepts it or names the problem: this path never answers a
/// 400 of its own, so the two cannot disagree about an error.
extension PageQuery {
    /// `query` read as ``PageQuery/init(target:paging:)`` reads it, when it is plain and valid; nil otherwise.
    static func plain(_ query: Substring?, paging: PagingSettings) -> PageQuery? {
        var result = PageQuery(page: 1, limit: UInt64(max(paging.defaultLimit, 1)))
        guard let query else { return result }
        let maximumLimit = UInt64(max(paging.maxLimit, 1))
        let bytes = query.utf8.span
        var seen = Given()
        let read = PlainQuery.forEachPair(bytes) { name, value in
            switch Self.parameter(bytes, name) {
            case .page:
                guard !seen.contains(.page), let page = PlainQuery.decimal(bytes, value),
                    (1...Self.maximumPage).contains(page)
                else { return false }
                seen.insert(.page)
                result.page = page
            case .limit:
                guard !seen.contains(.limit), let limit = PlainQuery.decimal(bytes, value),
                    (1...maximumLimit).contains(limit)
                else { return false }
                seen.insert(.limit)
                result.limit = limit
            case .order:
                guard !seen.contains(.order), let order = PlainQuery.listOrder(bytes, value) else { return false }
                seen.insert(.order)
                result.order = order
            case .cursor:
                return false
            case nil:
                break  // Unknown parameters are ignored; plain bytes always decode.
            }
            return true
        }
        guard read else { return nil }
        // `order` without `page` asks for cursor paging: the full reading builds the cursor.
        return seen.contains(.order) && !seen.contains(.page) ? nil : result
    }

    /// Which of `page`, `limit` and `order` a plain query has given.
    private struct Given: OptionSet {
        let rawValue: UInt8
        static let page = Given(rawValue: 1)
        static let limit = Given(rawValue: 2)
        static let order = Given(rawValue: 4)
    }

    private enum Parameter { case page, limit, order, cursor }

    /// The parameter named by `bytes[name]`, or nil for any other name.
    private static func parameter(_ bytes: Span<UInt8>, _ name: Range<Int>) -> Parameter? {
        if HTTPBytes.equals(bytes, name, "page") { return .page }
        if HTTPBytes.equals(bytes, name, "limit") { return .limit }
        if HTTPBytes.equals(bytes, name, "order") { return .order }
        if HTTPBytes.equals(bytes, name, "after") || HTTPBytes.equals(bytes, name, "before") { return .cursor }
        return nil
    }
}
