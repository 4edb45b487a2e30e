import Testing

@testable import ListDomain

@Suite("MinHeap")
struct MinHeapTests {
    @Test func removesInAscendingOrder() {
        var generator = SplitMix64(seed: 11)
        let values = (0..<500).map { _ in Int.random(in: -1_000...1_000, using: &generator) }
        var heap = MinHeap<Int>()
        for value in values {
            heap.insert(value)
        }
        #expect(heap.count == values.count)
        var removed: [Int] = []
        while let least = heap.removeMin() {
            removed.append(least)
        }
        #expect(removed == values.sorted())
        #expect(heap.isEmpty)
    }

    @Test func minIsTheLeastWhileInsertionsAndRemovalsInterleave() {
        var heap = MinHeap<Int>()
        #expect(heap.min == nil)
        #expect(heap.removeMin() == nil)
        for value in [5, 3, 8, 1] {
            heap.insert(value)
        }
        #expect(heap.removeMin() == 1)
        heap.insert(2)
        #expect(heap.min == 2)
        #expect(heap.removeMin() == 2)
        #expect(heap.removeMin() == 3)
        heap.removeAll()
        #expect(heap.isEmpty && heap.min == nil)
    }
}
