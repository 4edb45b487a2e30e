import Synchronization

/// One client's rate-limit state, shared by every loop: the generic cell rate algorithm (GCRA, ITU-T I.371), a token
/// bucket kept as one number, the time at which the bucket would be full again (its "theoretical arrival time").
///
/// One atomic compare-and-swap a request, with no lock: the loops' shards (``ProfileShard``) each hold a reference
/// and count a request on it directly, so the limit is exact across loops while a request to a rate-limited
/// dataset takes no lock that the other loop takes too (the shared lock was most of what a profile cost two loops,
/// `Benchmarks/profiles/cost.sh`). Equivalent to a bucket of `capacity` refilled at `rate`: with `interval` =
/// 1/rate, the bucket's level at `now` is `capacity − (full − now) / interval`, and a request is let through when
/// the level is at least 1, which takes `interval` off (moves `full` on by `interval`).
final class RateLimitCell: Sendable {
    /// When the bucket is full again, in nanoseconds of the registry's clock; long past when new.
    let full = Atomic<Int64>(.min)

    /// Counts one request at `now` (nanoseconds) against `limit`: the client's standing afterwards, and when
    /// refused, how long until it may ask again (nanoseconds).
    func take(_ limit: DatasetProfile.RateLimit, now: Int64) -> (ProfileRegistry.RateLimitStatus, retryAfter: Int64?) {
        // Both at most ~31 years, so that no sum below overflows (a valid profile may ask for a burst of a million
        // at one request a day: 2.7 million years, more nanoseconds than an Int64 holds).
        let interval = Int64(min(Self.longest, max(1, (1e9 / limit.refillPerSecond).rounded())))
        // How far `full` may be ahead of now and still let one through.
        let tolerance = Int64(min(Self.longest, Double(limit.capacity - 1) * Double(interval)))
        var current = full.load(ordering: .relaxed)
        while true {
            let start = max(current, now)
            if start - now > tolerance {
                return (
                    Self.status(limit, ahead: start - now, interval: interval, tolerance: tolerance),
                    start - now - tolerance
                )
            }
            let next = start + interval
            let (exchanged, seen) = full.compareExchange(
                expected: current, desired: next, successOrdering: .relaxed, failureOrdering: .relaxed)
            if exchanged {
                return (Self.status(limit, ahead: next - now, interval: interval, tolerance: tolerance), nil)
            }
            current = seen
        }
    }

    /// The longest interval or tolerance counted, in nanoseconds: 10^18, about 31 years.
    static let longest = 1e18

    /// Whether the bucket is full at `now`: a full bucket is the same as none, so it may be dropped.
    func isFull(at now: Int64) -> Bool { full.load(ordering: .relaxed) <= now }

    /// The standing when the bucket is full again `ahead` nanoseconds from now: its level counted from the burst
    /// it lets through, `tolerance / interval + 1` (the profile's burst unless ``longest`` cut it).
    private static func status(_ limit: DatasetProfile.RateLimit, ahead: Int64, interval: Int64, tolerance: Int64)
        -> ProfileRegistry.RateLimitStatus
    {
        let capacity = min(Double(limit.capacity), (Double(tolerance) / Double(interval)).rounded(.down) + 1)
        let level = capacity - Double(ahead) / Double(interval)
        return ProfileRegistry.RateLimitStatus(
            quota: limit.requests, windowSeconds: limit.perSeconds, remaining: max(0, Int(level.rounded(.down))),
            resetSeconds: Int((Double(ahead) / 1e9).rounded(.up)))
    }
}

extension Duration {
    /// The duration in whole nanoseconds (rounded down), as the rate-limit cells count.
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds &* 1_000_000_000 &+ attoseconds / 1_000_000_000
    }
}
