/// A binary min-heap: O(log n) insertion and removal of the least element, O(1) access to it.
///
/// The detail cache keeps its store fetches in flight in one, earliest landing first. (swift-collections has a
/// `Heap`, but ListDomain has no dependencies, and this is all of what it needs.)
struct MinHeap<Element: Comparable> {
    private var elements: [Element] = []

    /// Whether the heap holds no element.
    var isEmpty: Bool { elements.isEmpty }

    /// The number of elements.
    var count: Int { elements.count }

    /// The least element, if any.
    var min: Element? { elements.first }

    /// Adds `element`.
    mutating func insert(_ element: Element) {
        elements.append(element)
        var child = elements.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard elements[child] < elements[parent] else { return }
            elements.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes and returns the least element, if any.
    @discardableResult
    mutating func removeMin() -> Element? {
        guard !elements.isEmpty else { return nil }
        elements.swapAt(0, elements.count - 1)
        let least = elements.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            guard left < elements.count else { break }
            let right = left + 1
            let smaller = right < elements.count && elements[right] < elements[left] ? right : left
            guard elements[smaller] < elements[parent] else { break }
            elements.swapAt(parent, smaller)
            parent = smaller
        }
        return least
    }

    /// Removes every element, keeping the storage.
    mutating func removeAll() {
        elements.removeAll(keepingCapacity: true)
    }
}
