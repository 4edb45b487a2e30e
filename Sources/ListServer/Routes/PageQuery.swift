import ListDomain

/// The validated query of a `GET /items` request: page-number paging (`page`, `limit`) or cursor paging (`after` or
/// `before`, `order`, `limit`).
///
/// - `page`: 1-based, default 1, a plain decimal integer in `1...2^53` (2^53 = 9007199254740992 is the largest
///   page a catalog of at most 2^53 items can have, and the largest integer a JavaScript client holds exactly).
/// - `limit`: default `paging.defaultLimit`, a plain decimal integer in `1...paging.maxLimit`.
///
/// "Plain decimal integer" means one or more ASCII digits and nothing else: no sign, no spaces, no fraction, no
/// exponent, not empty (`-1`, `+1`, `abc`, `1.5`, the empty value, `1e3`, ` 1` and values past `UInt64.max` are all
/// rejected, as is `0`, which is out of range). Leading zeros are allowed (`007`).
/// - `order`: `asc` (default: ascending ids, oldest first) or `desc` (newest first).
/// - `after`, `before`: an item id, a plain decimal integer in `0...2^53`; at most one of them, and not with `page`.
///   With either, or with `order` but no `page`, the request uses cursor paging (see ``cursor``).
///
/// Each may be given at most once; other parameters (cache-busters such as `_=1700000000`) are ignored, but must
/// still be well-formed (see ``RequestTarget/queryItems()``).
package struct PageQuery: Sendable, Equatable {
    /// The largest page number a request may ask for: 2^53.
    package static let maximumPage: UInt64 = 1 << 53

    /// The 1-based page number.
    package var page: UInt64
    /// The number of items per page.
    package var limit: UInt64
    /// The order of the list: ascending ids (oldest first, the default) or descending (newest first).
    var order: ListOrder = .asc
    /// The cursor of a cursor-paged request; nil for page-number paging (then ``page`` applies).
    var cursor: ListCursor?

    /// Creates a page-number query from already valid values.
    init(page: UInt64, limit: UInt64) {
        self.page = page
        self.limit = limit
    }

    /// Reads and validates `page` and `limit` from a request's query.
    ///
    /// - Parameters:
    ///   - target: The request-target whose query is read.
    ///   - paging: The default and largest `limit` (``SettingKey/defaultLimit``, ``SettingKey/maxLimit``).
    /// - Throws: A 400 ``Problem``: `invalid-parameter` (with the `parameter` member) for a bad or repeated `page` or
    ///   `limit`, `invalid-request-target` for any other parameter that does not decode.
    package init(target: RequestTarget, paging: PagingSettings) throws(Problem) {
        if let plain = Self.plain(target.query, paging: paging) {
            self = plain
        } else {
            try self.init(decoding: target, paging: paging)
        }
    }

    /// The full reading of ``init(target:paging:)``: every name and value decoded, then the rules applied. The
    /// common plain query takes ``plain(_:paging:)`` instead, which must agree with this wherever it answers.
    init(decoding target: RequestTarget, paging: PagingSettings) throws(Problem) {
        let maximumLimit = UInt64(max(paging.maxLimit, 1))
        let pageRule = QueryIntegerRule(name: "page", range: 1...Self.maximumPage)
        let limitRule = QueryIntegerRule(name: "limit", range: 1...maximumLimit)
        let afterRule = QueryIntegerRule(name: "after", range: 0...Self.maximumPage)
        let beforeRule = QueryIntegerRule(name: "before", range: 0...Self.maximumPage)
        var page: String?
        var limit: String?
        var after: String?
        var before: String?
        var order: String?

        let items: [QueryItem]
        do {
            items = try target.queryItems()
        } catch {
            for rule in [pageRule, limitRule, afterRule, beforeRule] where error.name == rule.name {
                throw rule.problem(got: Problem.quoted(error.raw) + ", which " + error.reason.phrase)
            }
            throw error.problem
        }
        for item in items {
            switch item.name {
            case pageRule.name: try pageRule.setOnce(&page, item.value)
            case limitRule.name: try limitRule.setOnce(&limit, item.value)
            case afterRule.name: try afterRule.setOnce(&after, item.value)
            case beforeRule.name: try beforeRule.setOnce(&before, item.value)
            case "order": try Self.setOrderOnce(&order, item.value)
            default: continue  // Unknown parameters are ignored: clients add cache-busters.
            }
        }
        self.page = try page.map(pageRule.validate) ?? 1
        self.limit = try limit.map(limitRule.validate) ?? UInt64(max(paging.defaultLimit, 1))
        self.order = order.flatMap(ListOrder.init(rawValue:)) ?? .asc
        guard after != nil || before != nil || (order != nil && page == nil) else { return }
        cursor = try Self.cursor(
            page: page, after: after.map(afterRule.validate), before: before.map(beforeRule.validate))
    }

    /// The cursor of a request that gave `after` or `before`, or `order` without `page`.
    private static func cursor(page: String?, after: UInt64?, before: UInt64?) throws(Problem) -> ListCursor {
        if page != nil {
            throw Problem(
                .invalidParameter,
                detail: "query parameter \"page\" cannot be combined with \"\(after != nil ? "after" : "before")\": "
                    + "use page-number paging (page, limit, order) or cursor paging (after or before, order, limit)",
                parameter: "page")
        }
        if after != nil, before != nil {
            throw Problem(
                .invalidParameter, detail: "give query parameter \"after\" or \"before\", not both",
                parameter: "before")
        }
        return after.map { .after($0) } ?? before.map { .before($0) } ?? .start
    }

    /// Stores the `order` value after checking it is `asc` or `desc` and not repeated.
    private static func setOrderOnce(_ slot: inout String?, _ value: String) throws(Problem) {
        guard slot == nil else {
            throw Problem(
                .invalidParameter, detail: "query parameter \"order\" is given twice; give it once", parameter: "order")
        }
        guard ListOrder(rawValue: value) != nil else {
            throw Problem(
                .invalidParameter,
                detail: "query parameter \"order\" must be asc or desc, got \(Problem.quoted(value))",
                parameter: "order")
        }
        slot = value
    }
}

/// How one integer query parameter is checked, and the problem it reports (``PageQuery`` and `/items/changes`).
extension QueryStringError {
    /// The 400 for a query that does not decode: `invalid-request-target`, naming the parameter whose value failed
    /// (or the name itself), what was received and why.
    var problem: Problem {
        let what = name.map { "the value of query parameter \(Problem.quoted($0))" } ?? "the parameter name"
        return Problem(.invalidRequestTarget, detail: "\(what) \(Problem.quoted(raw)) \(reason.phrase)")
    }
}

struct QueryIntegerRule {
    let name: String
    let range: ClosedRange<UInt64>

    /// "query parameter "page" must be a decimal integer in 1...9007199254740992, got <what>".
    func problem(got what: String) -> Problem {
        Problem(
            .invalidParameter,
            detail: "query parameter \"\(name)\" must be a decimal integer in \(range.lowerBound)"
                + "...\(range.upperBound), got \(what)",
            parameter: name)
    }

    /// Stores `value` in `slot`, or throws when the parameter was already given.
    func setOnce(_ slot: inout String?, _ value: String) throws(Problem) {
        if let first = slot {
            throw problem(got: "it twice (\(Problem.quoted(first)) and \(Problem.quoted(value))); give it once")
        }
        slot = value
    }

    /// `text` as a number in ``range``, or throws.
    func validate(_ text: String) throws(Problem) -> UInt64 {
        guard let number = UInt64(plainDecimal: text), range.contains(number) else {
            throw problem(got: Problem.quoted(text))
        }
        return number
    }
}

extension UInt64 {
    /// Parses a plain decimal integer: one or more ASCII digits and nothing else; nil when `text` is anything else
    /// or does not fit 64 bits.
    ///
    /// Stricter than `UInt64(_:)`, which accepts a leading `+`.
    init?(plainDecimal text: some StringProtocol) {
        var value: UInt64 = 0
        var sawDigit = false
        for byte in text.utf8 {
            guard let next = value.appendingDecimalDigit(byte) else { return nil }
            value = next
            sawDigit = true
        }
        guard sawDigit else { return nil }
        self = value
    }

    /// `self * 10` plus the value of the ASCII digit `byte`; nil for any other byte, or past `UInt64.max`.
    @inline(__always)
    func appendingDecimalDigit(_ byte: UInt8) -> UInt64? {
        let digit = byte &- UInt8(ascii: "0")
        guard digit < 10 else { return nil }
        let (times10, overflow1) = multipliedReportingOverflow(by: 10)
        let (sum, overflow2) = times10.addingReportingOverflow(UInt64(digit))
        return overflow1 || overflow2 ? nil : sum
    }
}
