/// The paging parameters of a `/items` request-target as the report card reads them: which page or cursor it asked
/// for, and the rest of its shape (path, limit, order) that tells one list being paged from another.
struct PageQueryShape: Sendable, Equatable {
    var page: UInt64?
    var after: UInt64?
    var before: UInt64?
    var order = "asc"
    /// The path (with any `/d/<name>` base), the limit and the order: requests with the same key page the same way.
    var key: String

    /// The shape of `target`; nil for one that does not parse.
    init?(_ target: String) {
        guard let parsed = try? RequestTarget(target), let items = try? parsed.queryItems() else { return nil }
        var limit = ""
        for item in items {
            switch item.name {
            case "page": page = UInt64(item.value)
            case "after": after = UInt64(item.value)
            case "before": before = UInt64(item.value)
            case "order": order = item.value
            case "limit": limit = item.value
            default: continue
            }
        }
        key = String(parsed.base) + String(parsed.path) + "|" + limit + "|" + order
    }
}
