/// The ids deleted from a list, for paging around them: rank and select in O(log n), insert in O(√n)-ish.
///
/// Pages count live items (page P holds live items `(P-1)·L ..< P·L`), so finding where a page starts means
/// finding the k-th id that is not deleted. With the deleted ids sorted, `d[i] - i` never decreases, and the k-th
/// live id is `k + j` for the number `j` of deleted ids with `d[i] - i <= k`: a binary search. Page 1,000,000 of a
/// 2^53-item list with 100,000 deletions therefore costs a few dozen comparisons more than page 1.
///
/// The ids sit in sorted chunks of at most ``chunkCapacity``, with the count before each chunk, so an insertion
/// moves at most one chunk's ids and updates the counts of the chunks after it, and a copy of the value (taken
/// by a reader while a writer inserts) shares every chunk it does not change.
public struct DeletedIDs: Sendable, Equatable {
    /// The most ids in one chunk; a full chunk splits in two.
    static let chunkCapacity = 512

    /// Sorted, non-empty, and every id of a chunk is below every id of the next.
    private var chunks: [[UInt64]] = []
    /// `before[c]`: how many ids the chunks before chunk `c` hold.
    private var before: [Int] = []
    /// How many ids are deleted.
    public private(set) var count = 0

    public init() {}

    /// Ids already sorted ascending and without repeats (as the store loads them): O(n).
    public init(sorted ids: [UInt64]) {
        var start = 0
        while start < ids.count {
            let end = min(start + Self.chunkCapacity / 2, ids.count)
            before.append(start)
            chunks.append(Array(ids[start..<end]))
            start = end
        }
        count = ids.count
    }

    public var isEmpty: Bool { count == 0 }

    /// Whether `id` is deleted.
    public func contains(_ id: UInt64) -> Bool {
        guard let c = chunkIndex(containing: id) else { return false }
        let chunk = chunks[c]
        let i = Self.lowerBound(of: id, in: chunk)
        return i < chunk.count && chunk[i] == id
    }

    /// How many deleted ids are below `id`.
    public func countBelow(_ id: UInt64) -> Int {
        // The first chunk whose last id is >= id holds the boundary.
        var low = 0
        var high = chunks.count
        while low < high {
            let mid = (low + high) / 2
            if chunks[mid][chunks[mid].count - 1] < id { low = mid + 1 } else { high = mid }
        }
        guard low < chunks.count else { return count }
        return before[low] + Self.lowerBound(of: id, in: chunks[low])
    }

    /// The id of the `rank`-th live item (from 0) among `0, 1, 2, …` with these ids taken out.
    ///
    /// The caller compares the result with the end of the list. Never traps: a rank so large that the id would
    /// pass `UInt64.max` gives `UInt64.max`.
    public func liveID(atRank rank: UInt64) -> UInt64 {
        // j = how many deleted ids d[i] satisfy d[i] - i <= rank (a prefix, since d[i] - i never decreases).
        var low = 0
        var high = chunks.count
        while low < high {
            let mid = (low + high) / 2
            let lastIndex = before[mid] + chunks[mid].count - 1
            if chunks[mid][chunks[mid].count - 1] - UInt64(lastIndex) <= rank { low = mid + 1 } else { high = mid }
        }
        var skipped = low < chunks.count ? before[low] : count
        if low < chunks.count {
            let chunk = chunks[low]
            var a = 0
            var b = chunk.count
            while a < b {
                let mid = (a + b) / 2
                if chunk[mid] - UInt64(before[low] + mid) <= rank { a = mid + 1 } else { b = mid }
            }
            skipped += a
        }
        let (id, overflow) = rank.addingReportingOverflow(UInt64(skipped))
        return overflow ? .max : id
    }

    /// Deletes `id`; false when it already was.
    @discardableResult
    public mutating func insert(_ id: UInt64) -> Bool {
        if chunks.isEmpty {
            chunks = [[id]]
            before = [0]
            count = 1
            return true
        }
        // The chunk to insert into: the first whose last id is >= id, else the last one.
        var low = 0
        var high = chunks.count
        while low < high {
            let mid = (low + high) / 2
            if chunks[mid][chunks[mid].count - 1] < id { low = mid + 1 } else { high = mid }
        }
        let c = min(low, chunks.count - 1)
        let i = Self.lowerBound(of: id, in: chunks[c])
        if i < chunks[c].count, chunks[c][i] == id { return false }
        chunks[c].insert(id, at: i)
        count += 1
        if chunks[c].count > Self.chunkCapacity {
            let upper = Array(chunks[c][(Self.chunkCapacity / 2)...])
            chunks[c].removeSubrange((Self.chunkCapacity / 2)...)
            chunks.insert(upper, at: c + 1)
            before.insert(0, at: c + 1)
        }
        for next in (c + 1)..<chunks.count {
            before[next] = before[next - 1] + chunks[next - 1].count
        }
        return true
    }

    /// The deleted ids in `range`, ascending, without allocating per id.
    public func ids(in range: Range<UInt64>) -> some Sequence<UInt64> {
        let start = countBelow(range.lowerBound)
        let end = countBelow(range.upperBound)
        return (start..<end).lazy.map { self.id(atIndex: $0) }
    }

    /// Every deleted id, ascending.
    public var all: [UInt64] { chunks.flatMap { $0 } }

    /// The `index`-th deleted id (from 0), `index < count`.
    func id(atIndex index: Int) -> UInt64 {
        var low = 0
        var high = chunks.count
        while low + 1 < high {
            let mid = (low + high) / 2
            if before[mid] <= index { low = mid } else { high = mid }
        }
        return chunks[low][index - before[low]]
    }

    /// The chunk whose id range could hold `id`, or nil when it is above the last id.
    private func chunkIndex(containing id: UInt64) -> Int? {
        var low = 0
        var high = chunks.count
        while low < high {
            let mid = (low + high) / 2
            if chunks[mid][chunks[mid].count - 1] < id { low = mid + 1 } else { high = mid }
        }
        return low < chunks.count ? low : nil
    }

    /// The first index in `chunk` whose id is >= `id`.
    private static func lowerBound(of id: UInt64, in chunk: [UInt64]) -> Int {
        var low = 0
        var high = chunk.count
        while low < high {
            let mid = (low + high) / 2
            if chunk[mid] < id { low = mid + 1 } else { high = mid }
        }
        return low
    }

    public static func == (lhs: DeletedIDs, rhs: DeletedIDs) -> Bool { lhs.all == rhs.all }
}
