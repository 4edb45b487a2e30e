import Foundation
import Testing

/// A manual clock for tests: time stands still until ``advance(by:)``, so latency tests run instantly.
///
/// Sleepers are resumed when the clock reaches their deadline (in deadline order), and thrown a
/// `CancellationError` the moment their task is cancelled. ``fail(with:)`` makes every current sleeper throw,
/// to simulate a failing store.
final class TestClock: Clock, Sendable {
    /// A point in the clock's time: the offset from its creation.
    struct Instant: InstantProtocol {
        var offset: Duration

        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct Sleeper {
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleepers: [UInt64: Sleeper] = [:]
        /// Sleepers whose task was cancelled before they registered.
        var cancelledEarly: Set<UInt64> = []
        var nextID: UInt64 = 0
    }

    private let state = PThreadLocked(State())

    var now: Instant { state.withLock { $0.now } }
    var minimumResolution: Duration { .zero }

    /// The number of tasks sleeping on the clock.
    var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// The sleepers' deadlines, earliest first.
    var deadlines: [Instant] { state.withLock { $0.sleepers.values.map(\.deadline).sorted() } }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let immediate: Result<Void, any Error>? = state.withLock { state in
                    if state.cancelledEarly.remove(id) != nil { return .failure(CancellationError()) }
                    if deadline <= state.now { return .success(()) }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return nil
                }
                if let immediate { continuation.resume(with: immediate) }
            }
        } onCancel: {
            let sleeper = state.withLock { state in
                guard let sleeper = state.sleepers.removeValue(forKey: id) else {
                    state.cancelledEarly.insert(id)
                    return Sleeper?.none
                }
                return sleeper
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward and wakes every sleeper whose deadline has come, earliest first.
    func advance(by duration: Duration) {
        let due = state.withLock { state in
            state.now = state.now.advanced(by: duration)
            let now = state.now
            let due = state.sleepers.filter { $0.value.deadline <= now }.sorted {
                $0.value.deadline < $1.value.deadline
            }
            for (id, _) in due { state.sleepers[id] = nil }
            return due.map(\.value)
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Makes every current sleeper throw `error`.
    func fail(with error: any Error) {
        let failed = state.withLock { state in
            defer { state.sleepers.removeAll() }
            return Array(state.sleepers.values)
        }
        for sleeper in failed { sleeper.continuation.resume(throwing: error) }
    }

    /// Waits (by yielding, never sleeping) until `count` tasks sleep on the clock.
    ///
    /// - Returns: Whether they do. When they do not, an issue saying how many sleep instead is also recorded at
    ///   the caller, so the caller's expectation is not the only trace of what went wrong.
    func waitForSleepers(_ count: Int, sourceLocation: SourceLocation = #_sourceLocation) async -> Bool {
        if await eventually({ self.sleeperCount == count }) {
            return true
        }
        Issue.record(
            "gave up waiting for \(count) tasks to sleep on the test clock: \(sleeperCount) sleep",
            sourceLocation: sourceLocation)
        return false
    }
}

/// Yields until `condition` holds, for at most `timeout` of real time; returns whether it held.
///
/// Used to let other tasks reach a known state (a sleeper registered, a waiter joined); nothing under test is timed by
/// it (the clocks under test are manual). The bound is time rather than a number of yields, and generous, because
/// how long another task needs to get a thread depends on how busy the (shared) machine is (60 s by default: in a full parallel run on two cores the CPU-bound suites can hold both pool threads for
/// several seconds, and a condition that comes true only late is not a failure; one that never does still is.)
func eventually(timeout: Duration = .seconds(60), _ condition: () async -> Bool) async -> Bool {
    let clock = ContinuousClock()
    let start = clock.now
    while start.duration(to: clock.now) < timeout {
        if await condition() { return true }
        // Yielding alone keeps a pool thread spinning; past the first moment, step aside for a millisecond, so
        // that under a full parallel test run the task being waited for gets a thread (a long-poll test once
        // waited out its 20 s this way).
        if start.duration(to: clock.now) < .milliseconds(100) {
            await Task.yield()
        } else {
            try? await Task.sleep(for: .milliseconds(1))
        }
    }
    return await condition()
}
