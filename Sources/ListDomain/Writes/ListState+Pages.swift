/// Pages of a list with writes: the same pages as ``Page`` and ``CursorPage`` describe, over live ids only.
///
/// A list nobody wrote to (``ListState/isPristine``) is paged by the generated catalog's own ranges; these are for
/// the others, and cost O(limit + log(deletions)) at any depth (see ``DeletedIDs``).
extension ListState {
    /// Page `number` (from 1), `limit` live items at a time: the page's numbers (counting live items) and its ids in
    /// list order. In descending order positions count from the end, as for ``Catalog/page(_:limit:)``.
    public func page(_ number: UInt64, limit: UInt64, order: ListOrder) -> (page: Page, ids: [UInt64]) {
        let page = Page(number: number, limit: limit, total: liveCount)
        let positions = page.ids
        guard !positions.isEmpty else { return (page, []) }
        let count = Int(positions.count)
        switch order {
        case .asc:
            return (page, liveIDs(upFrom: deleted.liveID(atRank: positions.lowerBound), limit: count))
        case .desc:
            // Position p from the end is live rank total - 1 - p.
            let highest = deleted.liveID(atRank: page.total - 1 - positions.lowerBound)
            return (page, liveIDs(downFrom: highest + 1, limit: count))
        }
    }

    /// The cursor page at `cursor`, with the same rules as ``CursorPage`` over live ids.
    public func cursorPage(_ cursor: ListCursor, order: ListOrder, limit: UInt64) -> ListCursorPage {
        let count = Int(min(limit, 1 << 20))
        let ids: [UInt64]
        let forward: Bool  // whether the page walks towards larger ids
        switch (cursor, order) {
        case (.start, .asc):
            (ids, forward) = (liveIDs(upFrom: 0, limit: count), true)
        case (.start, .desc):
            (ids, forward) = (liveIDs(downFrom: header.nextID, limit: count), false)
        case (.after(let id), .asc), (.before(let id), .desc):
            (ids, forward) = (id == .max ? [] : liveIDs(upFrom: id + 1, limit: count), true)
        case (.after(let id), .desc), (.before(let id), .asc):
            (ids, forward) = (liveIDs(downFrom: id, limit: count), false)
        }
        let hasMore: Bool
        let nextCursor: UInt64?
        if let last = ids.last {
            hasMore = forward ? liveCount(in: (last + 1)..<header.nextID) > 0 : liveCount(in: 0..<last) > 0
            // The id to continue from: the last one walked (for `before`, the one nearest the list's start).
            nextCursor = last
        } else {
            hasMore = false
            if case .after(let id) = cursor { nextCursor = id } else { nextCursor = nil }
        }
        // `before` in ascending order walked down; the page is still in list order.
        let inListOrder = (order == .asc && !forward) || (order == .desc && forward) ? Array(ids.reversed()) : ids
        return ListCursorPage(
            cursor: cursor, order: order, limit: limit, total: liveCount, ids: inListOrder, hasMore: hasMore,
            nextCursor: nextCursor)
    }
}

/// A cursor page of a list with writes: like ``CursorPage``, with the ids listed (they need not be contiguous).
public struct ListCursorPage: Sendable, Equatable {
    public let cursor: ListCursor
    public let order: ListOrder
    public let limit: UInt64
    /// Live items in the whole list.
    public let total: UInt64
    /// The ids on the page, in list order.
    public let ids: [UInt64]
    /// Whether live items go on past this page in the direction walked.
    public let hasMore: Bool
    /// The id to send back with the same kind of cursor to continue; as ``CursorPage/nextCursor``.
    public let nextCursor: UInt64?
}
