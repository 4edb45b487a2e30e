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
}
