import ListDomain
import Testing

/// The ids of `page` in list order.
private func ids(_ page: CursorPage) -> [UInt64] { Array(page.ids) }

/// Walks a list of `total` items from the start with `after` cursors; returns every id seen, in order.
private func walkForwards(order: ListOrder, limit: UInt64, total: UInt64) -> [UInt64] {
    var seen: [UInt64] = []
    var page = CursorPage(cursor: .start, order: order, limit: limit, total: total)
    seen += ids(page)
    while page.hasMore, let next = page.nextCursor {
        page = CursorPage(cursor: .after(next), order: order, limit: limit, total: total)
        seen += ids(page)
    }
    return seen
}

@Suite("CursorPage")
struct CursorPageTests {
    @Test(arguments: [ListOrder.asc, .desc])
    func walkingForwardsVisitsEveryIdOnce(order: ListOrder) {
        for total in [0, 1, 2, 19, 20, 21, 100, 101] as [UInt64] {
            for limit in [1, 3, 20, 200] as [UInt64] {
                let all = Array(0..<total)
                let expected = order == .asc ? all : all.reversed()
                #expect(walkForwards(order: order, limit: limit, total: total) == expected)
            }
        }
    }

    @Test(arguments: [ListOrder.asc, .desc])
    func walkingBackwardsVisitsEveryEarlierIdOnce(order: ListOrder) {
        let total: UInt64 = 53
        let list: [UInt64] = order == .asc ? Array(0..<total) : Array((0..<total).reversed())
        for position in [0, 1, 25, 52] {
            for limit in [1, 4, 10, 100] as [UInt64] {
                var pages: [[UInt64]] = []
                var page = CursorPage(cursor: .before(list[position]), order: order, limit: limit, total: total)
                pages.append(ids(page))
                while page.hasMore, let next = page.nextCursor {
                    page = CursorPage(cursor: .before(next), order: order, limit: limit, total: total)
                    pages.append(ids(page))
                }
                #expect(Array(pages.reversed().joined()) == Array(list[..<position]))
                #expect(pages.allSatisfy { $0.count <= Int(limit) })
            }
        }
    }

    @Test func ascendingWalkWhileTheListGrowsNeverRepeatsOrSkips() {
        var generator = SplitMix64(seed: 11)
        var total: UInt64 = 5
        var seen: [UInt64] = []
        var page = CursorPage(cursor: .start, order: .asc, limit: 7, total: total)
        seen += ids(page)
        for _ in 0..<200 {
            total += generator.next() % 10  // new items arrive at the end between requests
            let next = page.nextCursor.map(ListCursor.after) ?? .start
            page = CursorPage(cursor: next, order: .asc, limit: 7, total: total)
            seen += ids(page)
        }
        // Polling on catches up with whatever arrived, then keeps answering nothing.
        while let next = page.nextCursor {
            page = CursorPage(cursor: .after(next), order: .asc, limit: 7, total: total)
            if page.idRange.isEmpty { break }
            seen += ids(page)
        }
        #expect(page.nextCursor == total - 1)
        #expect(seen == Array(0..<total))
    }

    @Test func descendingWalkWhileTheListGrowsNeverRepeatsOrSkips() throws {
        var generator = SplitMix64(seed: 12)
        var total: UInt64 = 300
        let first = CursorPage(cursor: .start, order: .desc, limit: 10, total: total)
        var older = ids(first)
        var newer: [UInt64] = []
        var top = try #require(older.first)
        var bottom = try #require(first.nextCursor)
        // Alternate: scroll down to older items, and poll for newer ones above the top.
        for _ in 0..<60 {
            total += generator.next() % 8
            let down = CursorPage(cursor: .after(bottom), order: .desc, limit: 10, total: total)
            older += ids(down)
            bottom = down.nextCursor ?? bottom
            let up = CursorPage(cursor: .before(top), order: .desc, limit: 10, total: total)
            newer = ids(up) + newer
            top = up.nextCursor ?? top
        }
        #expect(newer + older == Array((0..<total).reversed()))
    }

    @Test func startAndAfterInBothOrders() {
        let asc = CursorPage(cursor: .start, order: .asc, limit: 3, total: 10)
        #expect(ids(asc) == [0, 1, 2] && asc.hasMore && asc.nextCursor == 2)
        let desc = CursorPage(cursor: .start, order: .desc, limit: 3, total: 10)
        #expect(ids(desc) == [9, 8, 7] && desc.hasMore && desc.nextCursor == 7)
        let ascAfter = CursorPage(cursor: .after(7), order: .asc, limit: 3, total: 10)
        #expect(ids(ascAfter) == [8, 9] && !ascAfter.hasMore && ascAfter.nextCursor == 9)
        let descAfter = CursorPage(cursor: .after(2), order: .desc, limit: 3, total: 10)
        #expect(ids(descAfter) == [1, 0] && !descAfter.hasMore && descAfter.nextCursor == 0)
        let ascBefore = CursorPage(cursor: .before(5), order: .asc, limit: 3, total: 10)
        #expect(ids(ascBefore) == [2, 3, 4] && ascBefore.hasMore && ascBefore.nextCursor == 2)
        let descBefore = CursorPage(cursor: .before(5), order: .desc, limit: 3, total: 10)
        #expect(ids(descBefore) == [8, 7, 6] && descBefore.hasMore && descBefore.nextCursor == 8)
    }

    @Test func anEmptyAfterPageKeepsTheCursorForPolling() {
        let end = CursorPage(cursor: .after(9), order: .asc, limit: 20, total: 10)
        #expect(ids(end).isEmpty && !end.hasMore && end.nextCursor == 9)
        let beyond = CursorPage(cursor: .after(500), order: .asc, limit: 20, total: 10)
        #expect(ids(beyond).isEmpty && !beyond.hasMore && beyond.nextCursor == 500)
        let bottom = CursorPage(cursor: .after(0), order: .desc, limit: 20, total: 10)
        #expect(ids(bottom).isEmpty && !bottom.hasMore && bottom.nextCursor == 0)
        let top = CursorPage(cursor: .before(0), order: .asc, limit: 20, total: 10)
        #expect(ids(top).isEmpty && !top.hasMore && top.nextCursor == nil)
        let newest = CursorPage(cursor: .before(9), order: .desc, limit: 20, total: 10)
        #expect(ids(newest).isEmpty && !newest.hasMore && newest.nextCursor == nil)
        let nothing = CursorPage(cursor: .start, order: .desc, limit: 20, total: 0)
        #expect(ids(nothing).isEmpty && !nothing.hasMore && nothing.nextCursor == nil)
    }

    @Test func cursorsBeyondTheEndAreClamped() {
        // asc before X >= total: the last items; desc after X >= total: the newest items.
        #expect(ids(CursorPage(cursor: .before(.max), order: .asc, limit: 3, total: 10)) == [7, 8, 9])
        #expect(ids(CursorPage(cursor: .after(.max), order: .desc, limit: 3, total: 10)) == [9, 8, 7])
        #expect(ids(CursorPage(cursor: .after(.max), order: .asc, limit: 3, total: 10)).isEmpty)
        #expect(ids(CursorPage(cursor: .before(.max), order: .desc, limit: 3, total: 10)).isEmpty)
    }

    @Test func neverTrapsOnExtremeInputs() {
        let cursors: [ListCursor] = [.start, .after(0), .after(.max), .after(.max - 1), .before(0), .before(.max)]
        for cursor in cursors {
            for order in [ListOrder.asc, .desc] {
                for limit in [0, 1, .max] as [UInt64] {
                    for total in [0, 1, Catalog.maximumCount] as [UInt64] {
                        let page = CursorPage(cursor: cursor, order: order, limit: limit, total: total)
                        #expect(page.idRange.upperBound <= total)
                        #expect(UInt64(page.idRange.count) <= limit)
                        if limit == 0 { #expect(page.idRange.isEmpty) }
                    }
                }
            }
        }
        let deepest = CursorPage(cursor: .start, order: .desc, limit: 2, total: Catalog.maximumCount)
        #expect(ids(deepest) == [Catalog.maximumCount - 1, Catalog.maximumCount - 2])
        let zero = CursorPage(cursor: .start, order: .asc, limit: 0, total: 10)
        #expect(zero.hasMore && zero.nextCursor == nil)
    }
}
