/// One page of a list: which ids it holds and where it sits among all pages.
///
/// All arithmetic is in `UInt64` and never traps, whatever the inputs: a page number so large that
/// `(number - 1) * limit` overflows is simply past the end. Pages are numbered from 1.
public struct Page: Sendable, Equatable {
    /// The page number, as requested (1 is the first page).
    public let number: UInt64
    /// The most items a page holds.
    public let limit: UInt64
    /// The number of items in the whole list.
    public let total: UInt64
    /// `ceil(total / limit)`: 0 for an empty list (and, degenerately, for a limit of 0).
    public let totalPages: UInt64
    /// The ids on this page: `(number - 1) * limit ..< min(number * limit, total)`.
    ///
    /// Empty (`total ..< total`) past the end, including when `(number - 1) * limit` does not fit in 64 bits,
    /// and for the degenerate inputs `number == 0` or `limit == 0` (callers validate those; this type only
    /// promises not to trap).
    public let ids: Range<UInt64>

    /// Computes page `number` of a list of `total` items shown `limit` at a time.
    public init(number: UInt64, limit: UInt64, total: UInt64) {
        self.number = number
        self.limit = limit
        self.total = total
        totalPages = Self.pageCount(total: total, limit: limit)
        ids = Self.idRange(number: number, limit: limit, total: total)
    }

    /// The next page's number, or `nil` on the last page and past the end.
    public var nextPage: UInt64? {
        number < totalPages ? number + 1 : nil
    }

    /// The previous page's number, or `nil` on the first page.
    ///
    /// Past the end this is simply `number - 1`, which may itself be past the end: clients walk forwards.
    public var previousPage: UInt64? {
        number > 1 ? number - 1 : nil
    }

    /// `ceil(total / limit)` without the `total + limit - 1` overflow; 0 when `limit` is 0.
    static func pageCount(total: UInt64, limit: UInt64) -> UInt64 {
        guard limit > 0 else { return 0 }
        let (quotient, remainder) = total.quotientAndRemainder(dividingBy: limit)
        return remainder == 0 ? quotient : quotient + 1
    }

    /// The ids of page `number`, clamped to `0 ..< total`, without overflow.
    static func idRange(number: UInt64, limit: UInt64, total: UInt64) -> Range<UInt64> {
        let pastTheEnd = total..<total
        guard number >= 1, limit >= 1 else { return pastTheEnd }
        let (first, overflow) = (number - 1).multipliedReportingOverflow(by: limit)
        guard !overflow, first < total else { return pastTheEnd }
        // first < total, so total - first cannot underflow and first + min(limit, total - first) <= total.
        return first..<(first + min(limit, total - first))
    }
}
