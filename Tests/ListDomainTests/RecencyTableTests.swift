import Testing

@testable import ListDomain

@Suite("RecencyTable")
struct RecencyTableTests {
    @Test("past twice its capacity it keeps the entries set or changed last, and forgets the rest")
    func keepsTheRecent() {
        var table = RecencyTable<Int>(capacity: 3)
        for index in 0..<6 { table.set(index, for: "list-\(index)") }
        #expect(table.count == 6)
        // Changing an old entry makes it recent: it survives the next trim.
        table.modify("list-0", default: 0) { $0 += 100 }
        table.set(6, for: "list-6")  // the seventh entry: trims to three
        #expect(table.count == 3)
        #expect(table["list-0"] == 100 && table["list-5"] == 5 && table["list-6"] == 6)
        #expect(table["list-1"] == nil && table["list-4"] == nil)
    }

    @Test("modify makes an entry from its default, in place; removing and setting nil forget it")
    func modifyAndRemove() {
        var table = RecencyTable<[Int]>(capacity: 4)
        table.modify("a", default: []) { $0.append(1) }
        table.modify("a", default: [99]) { $0.append(2) }
        #expect(table["a"] == [1, 2])
        #expect(table.removeValue(forKey: "a") == [1, 2])
        #expect(table["a"] == nil && table.count == 0)
        table.set([3], for: "b")
        table.set(nil, for: "b")
        #expect(table.count == 0)
        table.set([4], for: "c")
        table.set([5], for: "d")
        table.removeAll { name, _ in name == "c" }
        #expect(table["c"] == nil && table["d"] == [5])
    }

    @Test("past its weight it forgets the least recent entries, the newest too if it alone weighs more")
    func shedsWeight() {
        var table = RecencyTable<[Int]>(capacity: 100, maxWeight: 9, weigh: \.count)
        table.set([1, 2, 3], for: "a")
        table.set([1, 2, 3], for: "b")
        table.modify("c", default: []) { $0 += [1, 2, 3] }
        #expect(table.weight == 9 && table.count == 3)
        table.modify("a", default: []) { $0.append(4) }  // a is the newest now: b goes, the least recent
        #expect(table.weight == 7 && table["b"] == nil && table["a"] == [1, 2, 3, 4] && table["c"] == [1, 2, 3])
        table.set([1, 2, 3, 4, 5, 6, 7], for: "d")  // 14: c, then a go
        #expect(table.weight == 7 && table.count == 1 && table["d"]?.count == 7)
        table.set([5], for: "d")  // a replaced entry no longer weighs what it did
        #expect(table.weight == 1)
        _ = table.removeValue(forKey: "d")
        #expect(table.weight == 0)
        table.set(Array(repeating: 0, count: 11), for: "e")
        #expect(table.count == 0 && table.weight == 0, "alone over the weight, it is not kept")
        table.set([1], for: "f")
        table.set([1, 2], for: "g")
        table.removeAll { name, _ in name == "f" }
        #expect(table.weight == 2)
    }
}
