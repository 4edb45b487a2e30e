/// A set of ids kept as sorted, disjoint, non-adjacent ranges: the ids of the pages a client loaded.
struct IDRanges: Sendable {
    private(set) var ranges: [ClosedRange<UInt64>] = []

    /// Adds `range`, merging it with the ranges it overlaps or touches.
    mutating func insert(_ range: ClosedRange<UInt64>) {
        var lower = range.lowerBound
        var upper = range.upperBound
        // The first range that ends at or after `lower - 1` (the first that could merge).
        let start = firstIndex { $0.upperBound >= (lower == 0 ? 0 : lower - 1) }
        var end = start
        while end < ranges.count, ranges[end].lowerBound <= (upper == .max ? upper : upper + 1) {
            lower = min(lower, ranges[end].lowerBound)
            upper = max(upper, ranges[end].upperBound)
            end += 1
        }
        ranges.replaceSubrange(start..<end, with: [lower...upper])
    }

    /// Whether `id` is in one of the ranges.
    func contains(_ id: UInt64) -> Bool {
        let index = firstIndex { $0.upperBound >= id }
        return index < ranges.count && ranges[index].lowerBound <= id
    }

    /// The first index whose range satisfies `isAtOrAfter` (a predicate false then true along the ranges), by
    /// binary search; `ranges.count` for none.
    private func firstIndex(where isAtOrAfter: (ClosedRange<UInt64>) -> Bool) -> Int {
        var low = 0
        var high = ranges.count
        while low < high {
            let middle = (low + high) / 2
            if isAtOrAfter(ranges[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
