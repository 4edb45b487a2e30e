import ListDomain
import Testing

/// A list of `count` ids with `deleted` taken out, paged the naive way: the live ids materialised in an array.
private struct NaiveList {
    /// The live ids, ascending.
    let live: [UInt64]

    init(count: UInt64, deleted: Set<UInt64>) {
        live = (0..<count).filter { !deleted.contains($0) }
    }

    func inOrder(_ order: ListOrder) -> [UInt64] { order == .asc ? live : live.reversed() }

    /// Page `number` as ``Page`` numbers positions, over the live ids in list order.
    func page(_ number: UInt64, limit: UInt64, order: ListOrder) -> (page: Page, ids: [UInt64]) {
        let page = Page(number: number, limit: limit, total: UInt64(live.count))
        let list = inOrder(order)
        return (page, page.ids.map { list[Int($0)] })
    }

    /// The cursor rules of the README's table, over the live ids in list order.
    func cursorPage(_ cursor: ListCursor, order: ListOrder, limit: UInt64)
        -> (ids: [UInt64], hasMore: Bool, nextCursor: UInt64?)
    {
        let list = inOrder(order)
        let limit = Int(limit)
        // Whether `a` comes before `b` in list order.
        let precedes: (UInt64, UInt64) -> Bool = order == .asc ? { $0 < $1 } : { $0 > $1 }
        switch cursor {
        case .start:
            return (Array(list.prefix(limit)), list.count > limit, list.prefix(limit).last)
        case .after(let x):
            let candidates = list.filter { precedes(x, $0) }
            let ids = Array(candidates.prefix(limit))
            return (ids, candidates.count > limit, ids.last ?? x)
        case .before(let x):
            let candidates = list.filter { precedes($0, x) }
            let ids = Array(candidates.suffix(limit))
            return (ids, candidates.count > limit, ids.first)
        }
    }
}

/// Deletion patterns for a list of `count` ids.
private func deletionPatterns(count: UInt64, generator: inout SplitMix64) -> [Set<UInt64>] {
    guard count > 0 else { return [[]] }
    var patterns: [Set<UInt64>] = [[], Set(0..<count), [0], [count - 1]]
    for density in [5, 30, 50, 90, 99] as [UInt64] {
        patterns.append(Set((0..<count).filter { _ in generator.next() % 100 < density }))
    }
    // Runs: a stretch at the start, one at the end, one in the middle, and every other id.
    patterns.append(Set(0..<(count / 3)))
    patterns.append(Set((count - count / 3)..<count))
    patterns.append(Set((count / 4)..<(count / 4 + count / 2)))
    patterns.append(Set(stride(from: 0, to: count, by: 2)))
    return patterns
}

private func state(count: UInt64, deleted: Set<UInt64>, seed: UInt64 = 3) -> ListState {
    var state = ListState(seed: seed, count: count)
    state.deleted = DeletedIDs(sorted: deleted.sorted())
    return state
}

private let limits: [UInt64] = [1, 2, 3, 7, 20]
private let orders: [ListOrder] = [.asc, .desc]

/// The cursors worth asking of a list of `count` ids: every id, just beyond both ends, and the extremes.
private func cursors(count: UInt64) -> [ListCursor] {
    var xs = Array(0...(count + 2))
    xs += [count + 50, Catalog.maximumCount, .max - 1, .max]
    return [.start] + xs.map(ListCursor.after) + xs.map(ListCursor.before)
}

@Suite("ListState pages")
struct ListStatePagingTests {
    static let sizes: [UInt64] = [0, 1, 2, 3, 7, 20, 21, 40, 64, 99, 100, 127, 128, 255, 256, 300]

    @Test(arguments: sizes)
    func numberedPagesMatchTheNaiveList(count: UInt64) {
        var generator = SplitMix64(seed: count)
        for deleted in deletionPatterns(count: count, generator: &generator) {
            let state = state(count: count, deleted: deleted)
            let naive = NaiveList(count: count, deleted: deleted)
            #expect(state.liveCount == UInt64(naive.live.count))
            for limit in limits {
                let totalPages = Page(number: 1, limit: limit, total: state.liveCount).totalPages
                for order in orders {
                    for number in Array(1...(totalPages + 2)) + [UInt64.max / limit, .max] {
                        let (page, ids) = state.page(number, limit: limit, order: order)
                        let expected = naive.page(number, limit: limit, order: order)
                        #expect(page == expected.page, "page \(number) limit \(limit) \(order) of \(count)")
                        #expect(ids == expected.ids, "page \(number) limit \(limit) \(order) of \(count)")
                    }
                }
            }
        }
    }

    @Test(arguments: sizes)
    func cursorPagesMatchTheNaiveList(count: UInt64) {
        var generator = SplitMix64(seed: count &+ 77)
        for deleted in deletionPatterns(count: count, generator: &generator) {
            let state = state(count: count, deleted: deleted)
            let naive = NaiveList(count: count, deleted: deleted)
            for limit in limits {
                for order in orders {
                    for cursor in cursors(count: count) {
                        let page = state.cursorPage(cursor, order: order, limit: limit)
                        let expected = naive.cursorPage(cursor, order: order, limit: limit)
                        let label = "\(cursor) \(order) limit \(limit) of \(count), \(deleted.count) deleted"
                        #expect(page.ids == expected.ids, "\(label)")
                        #expect(page.hasMore == expected.hasMore, "\(label)")
                        #expect(page.nextCursor == expected.nextCursor, "\(label)")
                        #expect(page.total == state.liveCount)
                        #expect(page.cursor == cursor && page.order == order && page.limit == limit)
                    }
                }
            }
        }
    }

    /// Walking with cursors from the start visits every live id once, in list order.
    @Test(arguments: orders)
    func walkingWithCursorsVisitsEveryLiveIdOnce(order: ListOrder) {
        var generator = SplitMix64(seed: 5)
        for deleted in deletionPatterns(count: 157, generator: &generator) {
            let state = state(count: 157, deleted: deleted)
            let naive = NaiveList(count: 157, deleted: deleted)
            for limit in limits {
                var page = state.cursorPage(.start, order: order, limit: limit)
                var seen = page.ids
                while page.hasMore, let next = page.nextCursor {
                    page = state.cursorPage(.after(next), order: order, limit: limit)
                    seen += page.ids
                }
                #expect(seen == naive.inOrder(order))
            }
        }
    }

    /// Without deletions (and with growth past the base count) the pages are exactly the generated catalog's.
    @Test(arguments: [0, 1, 19, 20, 21, 137] as [UInt64])
    func withoutDeletionsPagesAreTheCatalogsOwn(count: UInt64) {
        for grown in [0, 3] as [UInt64] {
            var state = ListState(seed: 8, count: count)
            var effects = ListEffects()
            _ = state.apply(.grow(grown), condition: nil, effects: &effects)
            let total = count + grown
            #expect(state.isPristine)
            #expect(state.catalog == Catalog(seed: 8, count: total))
            for limit in limits {
                for order in orders {
                    let totalPages = state.catalog.page(1, limit: limit).totalPages
                    for number in Array(1...(totalPages + 2)) + [.max] {
                        let (page, ids) = state.page(number, limit: limit, order: order)
                        let expected = state.catalog.page(number, limit: limit)
                        #expect(page == expected)
                        // Descending, positions count from the end (as the JSON writer turns them into ids).
                        let range = expected.ids
                        let expectedIDs: [UInt64] =
                            order == .asc
                            ? Array(range) : Array(((total - range.upperBound)..<(total - range.lowerBound)).reversed())
                        #expect(ids == expectedIDs, "page \(number) limit \(limit) \(order) of \(total)")
                    }
                    for cursor in cursors(count: total) {
                        let page = state.cursorPage(cursor, order: order, limit: limit)
                        let expected = CursorPage(cursor: cursor, order: order, limit: limit, total: total)
                        #expect(page.ids == Array(expected.ids), "\(cursor) \(order) limit \(limit) of \(total)")
                        #expect(page.hasMore == expected.hasMore, "\(cursor) \(order) limit \(limit) of \(total)")
                        #expect(page.nextCursor == expected.nextCursor, "\(cursor) \(order) limit \(limit)")
                        #expect(page.total == expected.total)
                    }
                }
            }
        }
    }

    /// 2^53 items with 100,000 deletions: pages at both ends are right, computed without touching every id.
    @Test func hugeListWithManyDeletions() {
        let count = Catalog.maximumCount
        var generator = SplitMix64(seed: 53)
        var deleted: Set<UInt64> = []
        // Runs at both ends (so the first and last pages must jump them), and the rest scattered.
        deleted.formUnion([0, 1, 2, 5])
        deleted.formUnion((count - 1_000)..<count)
        deleted.formUnion([count - 1_003, count - 1_005])
        while deleted.count < 100_000 { deleted.insert(generator.next() % count) }
        let sorted = deleted.sorted()
        var state = ListState(seed: 1, count: count)
        state.deleted = DeletedIDs(sorted: sorted)
        let live = count - 100_000
        #expect(state.liveCount == live)

        /// Up to `limit` live ids going up from `id`, found by walking (deletions are sparse away from the ends).
        func liveUp(from id: UInt64, limit: Int) -> [UInt64] {
            var ids: [UInt64] = []
            var id = id
            while ids.count < limit, id < count {
                if !deleted.contains(id) { ids.append(id) }
                id += 1
            }
            return ids
        }
        func liveDown(below id: UInt64, limit: Int) -> [UInt64] {
            var ids: [UInt64] = []
            var id = id
            while ids.count < limit, id > 0 {
                id -= 1
                if !deleted.contains(id) { ids.append(id) }
            }
            return ids
        }

        let first = state.page(1, limit: 20, order: .asc)
        #expect(first.ids == liveUp(from: 0, limit: 20))
        #expect(first.ids.first == 3)
        #expect(first.page.total == live && first.page.nextPage == 2)

        // The last page holds what is left over, the highest live ids, below the deleted run at the end.
        let lastNumber = first.page.totalPages
        let lastCount = Int(live - (lastNumber - 1) * 20)
        #expect(lastNumber == (live + 19) / 20 && lastCount == 12)
        let last = state.page(lastNumber, limit: 20, order: .asc)
        #expect(last.page.nextPage == nil)
        #expect(last.ids == liveDown(below: count, limit: lastCount).reversed())
        #expect(last.ids.last == count - 1_001)
        #expect(state.page(lastNumber + 1, limit: 20, order: .asc).ids.isEmpty)
        #expect(
            state.page(lastNumber - 1, limit: 20, order: .asc).ids
                == liveDown(below: last.ids[0], limit: 20).reversed())
        #expect(state.page(1, limit: 20, order: .desc).ids == liveDown(below: count, limit: 20))
        #expect(state.page(lastNumber, limit: 20, order: .desc).ids == liveUp(from: 0, limit: lastCount).reversed())

        // A page in the middle: its first id is the live id at its position, by counting deletions below it.
        let number: UInt64 = 1 << 40
        let position = (number - 1) * 7
        var firstID = position
        for id in sorted {
            guard id <= firstID else { break }
            firstID += 1
        }
        #expect(state.page(number, limit: 7, order: .asc).ids == liveUp(from: firstID, limit: 7))

        // Cursors at the ends.
        let newest = state.cursorPage(.start, order: .desc, limit: 20)
        #expect(newest.ids == liveDown(below: count, limit: 20) && newest.hasMore)
        let older = state.cursorPage(.after(newest.nextCursor!), order: .desc, limit: 20)
        #expect(older.ids == liveDown(below: newest.ids.last!, limit: 20))
        let none = state.cursorPage(.after(count - 1_001), order: .asc, limit: 20)
        #expect(none.ids.isEmpty && !none.hasMore && none.nextCursor == count - 1_001)
        let before = state.cursorPage(.before(10), order: .asc, limit: 20)
        #expect(before.ids == liveUp(from: 0, limit: 20).filter { $0 < 10 } && !before.hasMore)
    }
}
