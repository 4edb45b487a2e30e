import ListDomain

/// The validated query of `GET /conversations` (`limit`, `after=<cursor>`) and of
/// `GET /conversations/<id>/messages` (`limit`, `order`, and one of `after`, `before` or `around`, message ids).
///
/// The rules are `/items`'s (``PageQuery``): each parameter at most once, integers plain decimal, `limit` in
/// `1...paging.max_limit`, `order` `asc` (the default, oldest first) or `desc`; unknown parameters are ignored.
/// A conversation cursor is the `next_cursor` a page gave (``ConversationCursor``).
struct ChatQuery: Sendable, Equatable {
    var limit: UInt64
    var order: ListOrder = .asc
    /// Where a page of messages starts (``CursorPage``); `.start` when neither `after` nor `before` is given.
    var cursor: ListCursor = .start
    /// The message a window is centred on (``MessageWindow``).
    var around: UInt64?
    /// Where a page of conversations continues.
    var conversationCursor: ConversationCursor?

    /// Which of the two lists the query is of.
    enum List {
        case conversations
        case messages
    }

    /// A query with `limit` and every other parameter at its default.
    init(limit: UInt64) {
        self.limit = limit
    }

    init(target: RequestTarget, paging: PagingSettings, list: List) throws(Problem) {
        if list == .messages, let plain = Self.plainMessages(target.query, paging: paging) {
            self = plain
        } else {
            try self.init(decoding: target, paging: paging, list: list)
        }
    }

    /// The full reading of ``init(target:paging:list:)``: every pair decoded, then the rules applied. The common
    /// plain query of a page of messages takes ``plainMessages(_:paging:)`` instead, which must agree with this
    /// wherever it answers.
    init(decoding target: RequestTarget, paging: PagingSettings, list: List) throws(Problem) {
        let limitRule = QueryIntegerRule(name: "limit", range: 1...UInt64(max(paging.maxLimit, 1)))
        let idRange = 0...ChatCatalog.maximumMessages
        let afterRule = QueryIntegerRule(name: "after", range: idRange)
        let beforeRule = QueryIntegerRule(name: "before", range: idRange)
        let aroundRule = QueryIntegerRule(name: "around", range: idRange)
        var values: [String: String] = [:]
        let items: [QueryItem]
        let names: Set<String> =
            list == .messages ? ["limit", "order", "after", "before", "around"] : ["limit", "after"]
        do {
            items = try target.queryItems()
        } catch {
            guard let name = error.name, names.contains(name) else { throw error.problem }
            throw Problem(
                .invalidParameter,
                detail: "the value of query parameter \(Problem.quoted(name)) \(Problem.quoted(error.raw)) "
                    + error.reason.phrase,
                parameter: name)
        }
        for item in items where names.contains(item.name) {
            if let first = values[item.name] {
                throw Problem(
                    .invalidParameter,
                    detail: "query parameter \(Problem.quoted(item.name)) is given twice (\(Problem.quoted(first)) "
                        + "and \(Problem.quoted(item.value))); give it once",
                    parameter: item.name)
            }
            values[item.name] = item.value
        }
        limit = try values["limit"].map(limitRule.validate) ?? UInt64(max(paging.defaultLimit, 1))
        switch list {
        case .conversations:
            guard let after = values["after"] else { return }
            guard let cursor = ConversationCursor(text: after) else {
                throw Problem(
                    .invalidParameter,
                    detail: "query parameter \"after\" must be a next_cursor of /conversations "
                        + "(<updated_at milliseconds>_<id>), got \(Problem.quoted(after))",
                    parameter: "after")
            }
            conversationCursor = cursor
        case .messages:
            if let order = values["order"] {
                guard let parsed = ListOrder(rawValue: order) else {
                    throw Problem(
                        .invalidParameter,
                        detail: "query parameter \"order\" must be asc or desc, got \(Problem.quoted(order))",
                        parameter: "order")
                }
                self.order = parsed
            }
            let given = ["after", "before", "around"].filter { values[$0] != nil }
            guard given.count <= 1 else {
                throw Problem(
                    .invalidParameter,
                    detail: "give one of query parameters \"after\", \"before\" and \"around\", not "
                        + given.map { "\"\($0)\"" }.joined(separator: " and "),
                    parameter: given[1])
            }
            if let after = values["after"] { cursor = .after(try afterRule.validate(after)) }
            if let before = values["before"] { cursor = .before(try beforeRule.validate(before)) }
            around = try values["around"].map(aroundRule.validate)
        }
    }
}
