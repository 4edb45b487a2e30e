import Glibc

/// A moment on the clock `ContinuousClock` reads on Linux (`CLOCK_BOOTTIME`), in nanoseconds: when a request
/// arrived and when its answer went, read by the loops for the metrics, the access log and the journal.
///
/// Why not `ContinuousClock.now`: its instant's layout is the standard library's to change, so every copy of an
/// optional one went through value witnesses, and every read converted the clock's seconds and nanoseconds to 128-bit
/// attoseconds. With the journal on, a page reads the clock three times and the journal copies and converts two of
/// them: some 400 instructions so, 150 this way (callgrind). This is one vDSO call and a multiply.
struct RequestInstant: Sendable {
    let nanoseconds: Int64

    /// Now.
    static var now: RequestInstant {
        var time = timespec()
        clock_gettime(CLOCK_BOOTTIME, &time)
        return RequestInstant(nanoseconds: Int64(time.tv_sec) &* 1_000_000_000 &+ Int64(time.tv_nsec))
    }

    /// The time from this instant to `other`.
    func duration(to other: RequestInstant) -> Duration { .nanoseconds(other.nanoseconds &- nanoseconds) }

    /// A continuous-clock instant and this clock's reading at (nearly) the same moment, read once: what converts
    /// between the two.
    static let anchor = Anchor()

    /// The reading of ``anchor``, on its own: ``Anchor`` holds an instant of the standard library's, whose layout is
    /// looked up at run time, and reading the reading through it (first kept as a tuple) copied the pair through the
    /// runtime's generic witnesses (perf: a third of a percent of a page's CPU).
    static let anchorNanoseconds = anchor.request.nanoseconds

    struct Anchor: Sendable {
        let instant = ContinuousClock.now
        let request = RequestInstant.now
    }
}
