import ListDomain

/// The common query of a page of messages read straight from its bytes: the fast twin of
/// ``ChatQuery/init(target:paging:list:)`` for `GET /conversations/<id>/messages`, as ``PageQuery/plain(_:paging:)``
/// is for `/items`.
///
/// The full reading decodes every pair into `String`s and keeps them in a dictionary (about 1 µs of a page of
/// messages, perf). A plain query (``PlainQuery``) with `limit`, `order`, and at most one of `after`, `before` and
/// `around`, each at most once and in range, means exactly what its bytes say; anything else returns nil and goes
/// through the full reading, which accepts it or names the problem, so the two cannot disagree about an error.
extension ChatQuery {
    /// `query` read as the full reading of a page of messages reads it, when it is plain and valid; nil otherwise.
    static func plainMessages(_ query: Substring?, paging: PagingSettings) -> ChatQuery? {
        var result = ChatQuery(limit: UInt64(max(paging.defaultLimit, 1)))
        guard let query else { return result }
        let maximumLimit = UInt64(max(paging.maxLimit, 1))
        let idRange = 0...ChatCatalog.maximumMessages
        let bytes = query.utf8.span
        var seen = Given()
        let read = PlainQuery.forEachPair(bytes) { name, value in
            guard let parameter = Self.parameter(bytes, name) else { return true }  // unknown: ignored
            guard !seen.contains(parameter) else { return false }
            seen.insert(parameter)
            switch parameter {
            case .limit:
                guard let limit = PlainQuery.decimal(bytes, value), (1...maximumLimit).contains(limit) else {
                    return false
                }
                result.limit = limit
            case .order:
                guard let order = PlainQuery.listOrder(bytes, value) else { return false }
                result.order = order
            default:
                guard let id = PlainQuery.decimal(bytes, value), idRange.contains(id) else { return false }
                switch parameter {
                case .after: result.cursor = .after(id)
                case .before: result.cursor = .before(id)
                default: result.around = id
                }
            }
            return true
        }
        // More than one of after, before and around is the full reading's error to name.
        guard read, seen.intersection([.after, .before, .around]).rawValue.nonzeroBitCount <= 1 else { return nil }
        return result
    }

    /// Which parameters a plain query has given.
    private struct Given: OptionSet {
        let rawValue: UInt8
        static let limit = Given(rawValue: 1)
        static let order = Given(rawValue: 2)
        static let after = Given(rawValue: 4)
        static let before = Given(rawValue: 8)
        static let around = Given(rawValue: 16)
    }

    /// The parameter named by `bytes[name]`, or nil for any other name.
    private static func parameter(_ bytes: Span<UInt8>, _ name: Range<Int>) -> Given? {
        if HTTPBytes.equals(bytes, name, "limit") { return .limit }
        if HTTPBytes.equals(bytes, name, "order") { return .order }
        if HTTPBytes.equals(bytes, name, "after") { return .after }
        if HTTPBytes.equals(bytes, name, "before") { return .before }
        if HTTPBytes.equals(bytes, name, "around") { return .around }
        return nil
    }
}
