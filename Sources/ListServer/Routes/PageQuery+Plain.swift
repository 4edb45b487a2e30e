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
        var start = 0
        while start < bytes.count {
            var end = start
            var equals = -1
            while end < bytes.count {
                let byte = bytes[end]
                if byte == UInt8(ascii: "&") { break }
                if byte == UInt8(ascii: "="), equals < 0 {
                    equals = end
                } else if !Self.isPlain(byte) {
                    return nil
                }
                end &+= 1
            }
            if end > start {
                let nameEnd = equals < 0 ? end : equals
                let valueStart = equals < 0 ? end : equals &+ 1
                switch Self.parameter(bytes, start..<nameEnd) {
                case .page:
                    guard !seen.contains(.page),
                        let page = Self.decimal(bytes, valueStart..<end), (1...Self.maximumPage).contains(page)
                    else { return nil }
                    seen.insert(.page)
                    result.page = page
                case .limit:
                    guard !seen.contains(.limit),
                        let limit = Self.decimal(bytes, valueStart..<end), (1...maximumLimit).contains(limit)
                    else { return nil }
                    seen.insert(.limit)
                    result.limit = limit
                case .order:
                    guard !seen.contains(.order), let order = Self.listOrder(bytes, valueStart..<end) else {
                        return nil
                    }
                    seen.insert(.order)
                    result.order = order
                case .cursor:
                    return nil
                case nil:
                    break  // Unknown parameters are ignored; plain bytes always decode.
                }
            }
            start = end &+ 1
        }
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

    /// A byte that means itself in a query name or value (RFC 3986's unreserved characters).
    @inline(__always)
    private static func isPlain(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            true
        default: false
        }
    }

    /// The parameter named by `bytes[name]`, or nil for any other name.
    private static func parameter(_ bytes: Span<UInt8>, _ name: Range<Int>) -> Parameter? {
        if HTTPBytes.equals(bytes, name, "page") { return .page }
        if HTTPBytes.equals(bytes, name, "limit") { return .limit }
        if HTTPBytes.equals(bytes, name, "order") { return .order }
        if HTTPBytes.equals(bytes, name, "after") || HTTPBytes.equals(bytes, name, "before") { return .cursor }
        return nil
    }

    /// `bytes[value]` as a plain decimal integer (one or more digits, fitting 64 bits: as `UInt64(plainDecimal:)`
    /// reads it, a digit at a time with the same step), or nil.
    private static func decimal(_ bytes: Span<UInt8>, _ value: Range<Int>) -> UInt64? {
        guard !value.isEmpty else { return nil }
        var number: UInt64 = 0
        for index in value {
            guard let next = number.appendingDecimalDigit(bytes[index]) else { return nil }
            number = next
        }
        return number
    }

    private static func listOrder(_ bytes: Span<UInt8>, _ value: Range<Int>) -> ListOrder? {
        if HTTPBytes.equals(bytes, value, "asc") { return .asc }
        if HTTPBytes.equals(bytes, value, "desc") { return .desc }
        return nil
    }
}
