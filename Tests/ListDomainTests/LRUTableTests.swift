import Testing

@testable import ListDomain

@Suite("LRUTable")
struct LRUTableTests {
    @Test func evictsTheLeastRecentlyUsed() {
        var table = LRUTable<Int, String>(capacity: 3)
        #expect(table.setValue("a", forKey: 1) == nil)
        #expect(table.setValue("b", forKey: 2) == nil)
        #expect(table.setValue("c", forKey: 3) == nil)
        #expect(table.keysByRecency == [3, 2, 1])
        #expect(table.value(forKey: 1) == "a")
        #expect(table.keysByRecency == [1, 3, 2])
        #expect(table.setValue("d", forKey: 4) == 2)
        #expect(table.keysByRecency == [4, 1, 3])
        #expect(table.value(forKey: 2) == nil)
        #expect(table.count == 3)
    }

    @Test func updatingAKeyRefreshesItWithoutEvicting() {
        var table = LRUTable<Int, String>(capacity: 2)
        table.setValue("a", forKey: 1)
        table.setValue("b", forKey: 2)
        #expect(table.setValue("A", forKey: 1) == nil)
        #expect(table.keysByRecency == [1, 2])
        #expect(table.peekValue(forKey: 1) == "A")
        #expect(table.setValue("c", forKey: 3) == 2)
    }

    @Test func peekDoesNotTouchTheOrder() {
        var table = LRUTable<Int, Int>(capacity: 2)
        table.setValue(10, forKey: 1)
        table.setValue(20, forKey: 2)
        #expect(table.peekValue(forKey: 1) == 10)
        #expect(table.keysByRecency == [2, 1])
    }

    @Test func removedSlotsAreReusedFromTheFreeList() {
        var table = LRUTable<Int, Int>(capacity: 3)
        for key in 1...3 { table.setValue(key * 10, forKey: key) }
        #expect(table.removeValue(forKey: 2) == 20)
        #expect(table.removeValue(forKey: 2) == nil)
        #expect(table.keysByRecency == [3, 1])
        #expect(table.count == 2)
        // A freed slot is reused: no eviction while there is room.
        #expect(table.setValue(40, forKey: 4) == nil)
        #expect(table.keysByRecency == [4, 3, 1])
        #expect(table.setValue(50, forKey: 5) == 1)
        // Removing the head and the tail keeps the list consistent.
        table.removeValue(forKey: 5)
        table.removeValue(forKey: 3)
        #expect(table.keysByRecency == [4])
        table.removeValue(forKey: 4)
        #expect(table.keysByRecency.isEmpty)
        #expect(table.count == 0)
        for key in 6...9 { table.setValue(key, forKey: key) }
        #expect(table.keysByRecency == [9, 8, 7])
    }

    @Test func capacityOne() {
        var table = LRUTable<Int, Int>(capacity: 1)
        #expect(table.setValue(1, forKey: 1) == nil)
        #expect(table.setValue(2, forKey: 2) == 1)
        #expect(table.value(forKey: 2) == 2)
        #expect(table.keysByRecency == [2])
    }

    @Test func matchesAReferenceModelUnderRandomOperations() {
        var table = LRUTable<UInt64, UInt64>(capacity: 8)
        var model: [UInt64] = []  // most recent first
        var values: [UInt64: UInt64] = [:]
        var generator = SplitMix64(seed: 11)
        for step in 0..<20_000 as Range<UInt64> {
            let key = generator.next() % 20
            switch generator.next() % 4 {
            case 0, 1:
                let evicted = table.setValue(step, forKey: key)
                var expectedEviction: UInt64?
                if let position = model.firstIndex(of: key) {
                    model.remove(at: position)
                } else if model.count == 8 {
                    expectedEviction = model.removeLast()
                    values[expectedEviction!] = nil
                }
                model.insert(key, at: 0)
                values[key] = step
                #expect(evicted == expectedEviction)
            case 2:
                let value = table.value(forKey: key)
                #expect(value == values[key])
                if let position = model.firstIndex(of: key) {
                    model.remove(at: position)
                    model.insert(key, at: 0)
                }
            default:
                #expect(table.removeValue(forKey: key) == values.removeValue(forKey: key))
                model.removeAll { $0 == key }
            }
            #expect(table.keysByRecency == model)
        }
    }
}
