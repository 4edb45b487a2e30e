import ListDomain
import Testing

@Suite("FIFOQueue")
struct FIFOQueueTests {
    @Test func takesInArrivalOrderAndCounts() {
        var queue = FIFOQueue<Int>()
        #expect(queue.isEmpty && queue.take() == nil)
        for value in 0..<5 { queue.append(value) }
        #expect(queue.count == 5)
        #expect(queue.take() == 0)
        #expect(queue.take() == 1)
        queue.append(5)
        #expect(queue.count == 4)
        #expect((0..<4).compactMap { _ in queue.take() } == [2, 3, 4, 5])
        #expect(queue.isEmpty && queue.take() == nil)
    }

    /// A queue that never runs empty, across many compactions: nothing lost, nothing twice, order kept.
    @Test func aQueueThatNeverEmptiesKeepsItsOrder() {
        var queue = FIFOQueue<Int>()
        var next = 0
        var taken: [Int] = []
        for _ in 0..<10 { queue.append(next); next += 1 }
        for round in 0..<5_000 {
            queue.append(next); next += 1
            queue.append(next); next += 1
            if round % 7 == 0 { queue.append(next); next += 1 }  // the backlog grows now and then
            taken.append(queue.take()!)
            taken.append(queue.take()!)
            #expect(queue.count >= 10)
        }
        while let value = queue.take() { taken.append(value) }
        #expect(taken == Array(0..<next))
    }

    /// Each element is let go as it is taken, not when the queue next empties.
    @Test func aTakenElementIsReleased() {
        final class Tracked {}
        var queue = FIFOQueue<Tracked>()
        weak var first: Tracked?
        do {
            let element = Tracked()
            first = element
            queue.append(element)
        }
        queue.append(Tracked())
        _ = queue.take()
        #expect(first == nil)
        #expect(queue.count == 1)
    }
}
