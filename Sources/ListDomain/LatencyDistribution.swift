#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// How long the slow store takes to answer.
public enum LatencyDistribution: Sendable, Equatable {
    /// Every duration in `min...max` equally likely (to the attosecond). Bounds given in the wrong order are
    /// swapped rather than trapped on; configuration validates `min <= max` first.
    case uniform(min: Duration, max: Duration)

    /// Always exactly this duration.
    case fixed(Duration)

    /// A long-tailed latency, as real services have: `median · e^(spread · z)` for a standard normal `z`, that is
    /// `exp(N(ln median, spread²))`, capped at `max`.
    ///
    /// Half the draws are below `median`; `spread` 0 always gives exactly `median`, and about 0.5 gives a tail
    /// where one draw in twenty is above `2.3 · median`. Draws that are not finite or are negative (a negative
    /// `median`, say) are clamped into `0...max`; a negative `max` counts as zero.
    case lognormal(median: Duration, spread: Double, max: Duration)

    /// No latency at all: every draw is zero.
    case none

    /// The smallest latency the distribution can draw.
    public var lowerBound: Duration {
        switch self {
        case .uniform(let min, let max): Swift.min(min, max)
        case .fixed(let duration): duration
        case .lognormal, .none: .zero
        }
    }

    /// The largest latency the distribution can draw.
    public var upperBound: Duration {
        switch self {
        case .uniform(let min, let max): Swift.max(min, max)
        case .fixed(let duration): duration
        case .lognormal(_, _, let max): Swift.max(max, .zero)
        case .none: .zero
        }
    }

    /// Draws one latency using `generator`.
    ///
    /// Deterministic for a given generator state, so a seeded generator gives a reproducible sequence.
    /// `fixed` and `none` draw nothing from the generator; `lognormal` draws two numbers (unless its spread is 0).
    public func sample(using generator: inout some RandomNumberGenerator) -> Duration {
        switch self {
        case .uniform:
            let low = lowerBound.attoseconds
            let high = upperBound.attoseconds
            if low == high {
                return lowerBound
            }
            return Duration(attoseconds: Int128.random(in: low...high, using: &generator))
        case .fixed(let duration):
            return duration
        case .none:
            return .zero
        case .lognormal(let median, let spread, _):
            let cap = upperBound
            if spread == 0 {
                return Swift.min(Swift.max(median, .zero), cap)
            }
            let seconds = median.seconds * exp(spread * Self.standardNormal(using: &generator))
            guard !seconds.isNaN, seconds > 0 else { return .zero }
            guard seconds < cap.seconds else { return cap }
            return Swift.min(.seconds(seconds), cap)
        }
    }

    /// One standard normal draw by the Box–Muller transform, from two 53-bit uniforms of `generator`.
    private static func standardNormal(using generator: inout some RandomNumberGenerator) -> Double {
        // u1 in (0, 1], so its logarithm is finite; u2 in [0, 1).
        let u1 = Double((generator.next() >> 11) + 1) * 0x1p-53
        let u2 = Double(generator.next() >> 11) * 0x1p-53
        return (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
    }
}

extension Duration {
    /// The duration in seconds as a `Double` (nearest value; attosecond precision is lost beyond 2^53 of them).
    fileprivate var seconds: Double {
        let (whole, attoseconds) = components
        return Double(whole) + Double(attoseconds) * 1e-18
    }
}
