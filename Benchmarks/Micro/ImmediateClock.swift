/// A clock whose `sleep` returns at once: a slow store on it has zero latency without touching a timer, so a
/// cache miss measures only the cache's own bookkeeping (task, in-flight map, LRU insert and eviction).
struct ImmediateClock: Clock {
    typealias Duration = Swift.Duration
    typealias Instant = ContinuousClock.Instant

    var now: Instant { ContinuousClock.now }
    var minimumResolution: Duration { .zero }

    /// Returns at once (after a cancellation check, as a real sleep would make).
    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try Task.checkCancellation()
    }
}
