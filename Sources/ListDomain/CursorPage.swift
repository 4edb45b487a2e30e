/// The order a list is walked in.
public enum ListOrder: String, Sendable {
    /// Oldest first: ids 0, 1, …, total - 1.
    case asc
    /// Newest first: ids total - 1, …, 0.
    case desc
}

/// Where a cursor page starts, relative to the list in its order.
public enum ListCursor: Sendable, Equatable {
    /// The beginning of the list.
    case start
    /// Right after this id in list order (the id need not exist).
    case after(UInt64)
    /// Right before this id in list order (the id need not exist).
    case before(UInt64)
}

/// One page of a list addressed by cursor rather than by page number, so items added meanwhile are neither
/// repeated nor skipped.
///
/// The list is `0, 1, …, total - 1` in ``ListOrder/asc`` order and the reverse in ``ListOrder/desc``. All
/// arithmetic is in `UInt64` and never traps, for any inputs.
public struct CursorPage: Sendable, Equatable {
    /// The cursor the page was asked for.
    public let cursor: ListCursor
    /// The order of the list.
    public let order: ListOrder
    /// The most items a page holds.
    public let limit: UInt64
    /// The number of items in the whole list.
    public let total: UInt64
    /// The ids on the page as a range, whatever the order; ``ids`` gives them in list order.
    public let idRange: Range<UInt64>
    /// Whether the list goes on past this page in the direction walked: after the last item returned (for
    /// `start` and `after`) or before the first (for `before`).
    public let hasMore: Bool
    /// The id to send back with the same kind of cursor to continue in the same direction: the last id returned
    /// for `start` and `after`, the first for `before`. When nothing was returned: `X` for `after(X)` (poll it
    /// again for new items), `nil` otherwise.
    public let nextCursor: UInt64?

    /// Computes the page at `cursor` of a list of `total` items in `order`, at most `limit` of them.
    ///
    /// - `start`: the first `limit` items in list order.
    /// - `after(X)`: the `limit` items right after `X` in list order (`asc`: ids above `X`; `desc`: ids below).
    /// - `before(X)`: the `limit` items right before `X` in list order (`asc`: the largest ids below `X`;
    ///   `desc`: the smallest ids above `X`), still returned in list order.
    public init(cursor: ListCursor, order: ListOrder, limit: UInt64, total: UInt64) {
        self.cursor = cursor
        self.order = order
        self.limit = limit
        self.total = total
        // Every case is a window going up from an id or down to one; `forward` is whether the page's walking
        // direction is towards larger ids.
        let forward: Bool
        switch (cursor, order) {
        case (.start, .asc):
            idRange = Self.upwards(from: 0, limit: limit, total: total)
            forward = true
        case (.start, .desc):
            idRange = Self.downwards(below: total, limit: limit, total: total)
            forward = false
        case (.after(let id), .asc), (.before(let id), .desc):
            idRange = id == .max ? total..<total : Self.upwards(from: id + 1, limit: limit, total: total)
            forward = true
        case (.after(let id), .desc), (.before(let id), .asc):
            idRange = Self.downwards(below: id, limit: limit, total: total)
            forward = false
        }
        hasMore = forward ? idRange.upperBound < total : idRange.lowerBound > 0
        if idRange.isEmpty {
            if case .after(let id) = cursor { nextCursor = id } else { nextCursor = nil }
        } else {
            nextCursor = forward ? idRange.upperBound - 1 : idRange.lowerBound
        }
    }

    /// The ids on the page in list order, without allocating.
    public var ids: IDs { IDs(range: idRange, order: order) }

    /// The ids on the page in list order: ascending for ``ListOrder/asc``, descending for ``ListOrder/desc``.
    public struct IDs: Sequence, Sendable {
        let range: Range<UInt64>
        let order: ListOrder

        /// The ids of `range` in `order`.
        public init(range: Range<UInt64>, order: ListOrder) {
            self.range = range
            self.order = order
        }

        /// Walks the range from one end.
        public struct Iterator: IteratorProtocol {
            var remaining: Range<UInt64>
            let order: ListOrder

            public mutating func next() -> UInt64? {
                guard !remaining.isEmpty else { return nil }
                switch order {
                case .asc:
                    defer { remaining = remaining.lowerBound + 1..<remaining.upperBound }
                    return remaining.lowerBound
                case .desc:
                    remaining = remaining.lowerBound..<remaining.upperBound - 1
                    return remaining.upperBound
                }
            }
        }

        public func makeIterator() -> Iterator { Iterator(remaining: range, order: order) }
        public var underestimatedCount: Int { range.count }
    }

    /// At most `limit` ids from `first` up, clamped to `0..<total`.
    private static func upwards(from first: UInt64, limit: UInt64, total: UInt64) -> Range<UInt64> {
        guard first < total else { return total..<total }
        return first..<(first + min(limit, total - first))
    }

    /// At most `limit` ids right below `end`, clamped to `0..<total`.
    private static func downwards(below end: UInt64, limit: UInt64, total: UInt64) -> Range<UInt64> {
        let upper = min(end, total)
        return (upper - min(limit, upper))..<upper
    }
}
