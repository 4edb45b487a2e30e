/// A first-in, first-out queue over an array: appends at the end, takes from a moving head, and lets go of each
/// element as it is taken (a job holds what it works on: an uploaded file, an image's pixels).
///
/// The array is compacted when it empties, and also when the taken slots at its front are at least half of it
/// (and 64 or more), so a queue that never runs empty stays as long as its backlog, not as long as its history.
/// The job queue of the server's `WorkerPool` (the SQLite thread, the PostgreSQL pool, the image workers), under the
/// pool's lock.
///
/// Inlinable, so that a user in another module gets it specialized for its element: unspecialized, each `take()`
/// looked up the element type's metadata at run time, about 2,900 instructions a write on the SQLite thread once that
/// thread's jobs went through this queue (`Benchmarks/writes/instructions.sh`, Benchmarks/HISTORY.md, "Issue 31").
public struct FIFOQueue<Element> {
    @usableFromInline var slots: [Element?] = []
    @usableFromInline var head = 0

    @inlinable public init() {}

    /// The number of elements waiting.
    @inlinable public var count: Int { slots.count - head }

    @inlinable public var isEmpty: Bool { head == slots.count }

    @inlinable public mutating func append(_ element: Element) { slots.append(element) }

    /// The oldest element, removed; nil when the queue is empty.
    @inlinable public mutating func take() -> Element? {
        guard head < slots.count else { return nil }
        let element = slots[head]
        slots[head] = nil
        head += 1
        if head == slots.count {
            slots.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 64 && head * 2 >= slots.count {
            slots.removeFirst(head)
            head = 0
        }
        return element
    }
}
