import Synchronization

/// A clock whose sleeps end at once, moving its time to the deadline; ``advance(by:)`` moves it on too.
final class ImmediateClock: Clock, Sendable {
    /// A point on the test clock: the time slept since it was created.
    struct Instant: InstantProtocol {
        var offset: Duration
        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private let time = Mutex(Duration.zero)

    var now: Instant { Instant(offset: time.withLock { $0 }) }
    var minimumResolution: Duration { .nanoseconds(1) }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        time.withLock { $0 = max($0, deadline.offset) }
    }

    /// Moves the clock on by `duration`.
    func advance(by duration: Duration) {
        time.withLock { $0 += duration }
    }
}
