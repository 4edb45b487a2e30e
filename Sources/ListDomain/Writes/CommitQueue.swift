import Synchronization

/// The writes waiting for the ``WriteCoordinator``'s next group, and the state of the one task that commits them:
/// started by the first write, parked (not ended) when no write waits, woken by the next one, ended when the
/// coordinator goes (``close()``).
///
/// A task started for every burst of writes cost its creation and the task allocator's first slabs on every
/// group when writes come one at a time: about 7,000 instructions and three 1 kB allocations of a write's 198,000
/// (`Benchmarks/writes/instructions.sh`).
final class CommitQueue<Element: Sendable>: Sendable {
    /// What the caller of ``append(_:)`` must do, outside the lock.
    enum Wake {
        /// Nothing: the committer is taking groups, and will take this one.
        case none
        /// Start the committer: this is the first write.
        case start
        /// Resume the parked committer.
        case resume(UnsafeContinuation<Bool, Never>)
        /// Nothing was queued: the queue takes no more (``removeAll(refusingMore:)``).
        case refused
    }

    private struct State {
        var waiting: [Element] = []
        /// Whether the committer is running (started and not parked). Set to false only together with `parked`,
        /// under the lock, so that a write finds the committer either running or parked, never in between.
        var committing = false
        var started = false
        var parked: UnsafeContinuation<Bool, Never>?
        var closed = false
        /// Whether appends are refused (set by ``removeAll(refusingMore:)``).
        var refusing = false
    }

    private let state = Mutex(State())

    /// Queues `element` for the next group.
    func append(_ element: Element) -> Wake {
        state.withLock { state in
            guard !state.refusing else { return .refused }
            state.waiting.append(element)
            guard !state.committing, !state.closed else { return .none }
            state.committing = true
            if let parked = state.parked {
                state.parked = nil
                return .resume(parked)
            }
            state.started = true
            return .start
        }
    }

    /// Moves what waits into `group`, which must be empty (its buffer becomes the queue's, capacity and all: the
    /// two take turns, so that neither regrows from empty for every group).
    func take(into group: inout [Element]) {
        state.withLock { state in swap(&group, &state.waiting) }
    }

    /// Waits until something is queued (true), or the queue is closed (false). The committer's only wait.
    func park() async -> Bool {
        await withUnsafeContinuation { continuation in
            let now = state.withLock { state -> Bool? in
                if state.closed { return false }
                if !state.waiting.isEmpty { return true }
                state.committing = false
                state.parked = continuation
                return nil
            }
            if let now { continuation.resume(returning: now) }
        }
    }

    /// Ends the committer: parked, it returns; running, it ends when it next parks.
    func close() {
        let parked = state.withLock { state in
            state.closed = true
            defer { state.parked = nil }
            return state.parked
        }
        parked?.resume(returning: false)
    }

    /// Takes out everything queued; with `refusingMore`, every later ``append(_:)`` is refused, in the same
    /// critical section (so no element slips in between).
    func removeAll(refusingMore: Bool = false) -> [Element] {
        state.withLock { state in
            if refusingMore { state.refusing = true }
            defer { state.waiting.removeAll() }
            return state.waiting
        }
    }

    /// How many elements wait.
    var count: Int { state.withLock { $0.waiting.count } }
}
