/// The window of a conversation's messages around one (`around=<id>`): what a chat app loads to jump to the message
/// a reply quotes, thousands of messages up, and page on from there either way.
///
/// The window holds `limit` messages (fewer when the conversation is shorter) with the target in the middle of them
/// in list order: `(limit - 1) / 2` before it, the rest after; near either end it slides to stay whole. Its cursors
/// continue it with the list's own rules: `before=<beforeCursor>` the messages before it, `after=<afterCursor>`
/// those after (``CursorPage``). All arithmetic is in `UInt64` and never traps.
public struct MessageWindow: Sendable, Equatable {
    /// The message the window is around (below `total`).
    public let around: UInt64
    public let order: ListOrder
    public let total: UInt64
    /// The ids in the window as a range, whatever the order; ``ids`` gives them in list order.
    public let idRange: Range<UInt64>

    /// The window of at most `limit` of `total` messages around message `around` (below `total`), in `order`.
    public init(around: UInt64, order: ListOrder, limit: UInt64, total: UInt64) {
        self.around = around
        self.order = order
        self.total = total
        let count = min(max(limit, 1), total)
        guard count > 0, around < total else {
            idRange = min(around, total)..<min(around, total)
            return
        }
        let before = (count - 1) / 2  // in list order
        let below = order == .asc ? before : count - 1 - before  // of smaller ids
        var lower = around >= below ? around - below : 0
        if lower > total - count { lower = total - count }
        idRange = lower..<lower + count
    }

    /// The ids in list order.
    public var ids: CursorPage.IDs { CursorPage.IDs(range: idRange, order: order) }

    /// Whether messages come before the window in list order (earlier for `asc`, later for `desc`).
    public var hasMoreBefore: Bool { order == .asc ? idRange.lowerBound > 0 : idRange.upperBound < total }
    /// Whether messages come after the window in list order.
    public var hasMoreAfter: Bool { order == .asc ? idRange.upperBound < total : idRange.lowerBound > 0 }

    /// The first id in list order: `before=` it continues towards the start of the list.
    public var beforeCursor: UInt64? {
        idRange.isEmpty ? nil : order == .asc ? idRange.lowerBound : idRange.upperBound - 1
    }
    /// The last id in list order: `after=` it continues towards the end.
    public var afterCursor: UInt64? {
        idRange.isEmpty ? nil : order == .asc ? idRange.upperBound - 1 : idRange.lowerBound
    }
}
