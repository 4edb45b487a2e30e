/// How long the slow store takes to answer.
public enum LatencyDistribution: Sendable, Equatable {
    /// Every duration in `min...max` equally likely (to the attosecond). Bounds given in the wrong order are
    /// swapped rather than trapped on; configuration validates `min <= max` first.
    case uniform(min: Duration, max: Duration)

    /// The smallest latency the distribution can draw.
    public var lowerBound: Duration {
        switch self {
        case .uniform(let min, let max): Swift.min(min, max)
        }
    }

    /// The largest latency the distribution can draw.
    public var upperBound: Duration {
        switch self {
        case .uniform(let min, let max): Swift.max(min, max)
        }
    }

    /// Draws one latency using `generator`.
    ///
    /// Deterministic for a given generator state, so a seeded generator gives a reproducible sequence.
    public func sample(using generator: inout some RandomNumberGenerator) -> Duration {
        switch self {
        case .uniform:
            let low = lowerBound.attoseconds
            let high = upperBound.attoseconds
            if low == high {
                return lowerBound
            }
            return Duration(attoseconds: Int128.random(in: low...high, using: &generator))
        }
    }
}
