import ListDomain
import Testing

@Suite("LatencyDistribution")
struct LatencyDistributionTests {
    @Test func fixedIsExactAndDrawsNothing() {
        var generator = SplitMix64(seed: 1)
        let fixed = LatencyDistribution.fixed(.milliseconds(250))
        for _ in 0..<10 {
            #expect(fixed.sample(using: &generator) == .milliseconds(250))
        }
        #expect(generator == SplitMix64(seed: 1))
        #expect(fixed.lowerBound == .milliseconds(250) && fixed.upperBound == .milliseconds(250))
    }

    @Test func noneIsAlwaysZero() {
        var generator = SplitMix64(seed: 1)
        for _ in 0..<10 {
            #expect(LatencyDistribution.none.sample(using: &generator) == .zero)
        }
        #expect(LatencyDistribution.none.lowerBound == .zero && LatencyDistribution.none.upperBound == .zero)
    }

    @Test func lognormalHasTheConfiguredMedianAndNeverExceedsItsMax() {
        let distribution = LatencyDistribution.lognormal(median: .milliseconds(100), spread: 0.5, max: .seconds(1))
        #expect(distribution.lowerBound == .zero && distribution.upperBound == .seconds(1))
        var generator = SplitMix64(seed: 2024)
        var samples = (0..<20_000).map { _ in distribution.sample(using: &generator) }
        samples.sort()
        let median = samples[samples.count / 2]
        #expect(median >= .milliseconds(95) && median <= .milliseconds(105))
        #expect(samples.first! >= .zero)
        #expect(samples.last! <= .seconds(1))
        // A long tail: some draws are far above the median, and some below half of it.
        #expect(samples[samples.count * 99 / 100] > .milliseconds(250))
        #expect(samples[samples.count / 100] < .milliseconds(50))
    }

    @Test func lognormalIsCappedAtItsMax() {
        let distribution = LatencyDistribution.lognormal(median: .milliseconds(100), spread: 2, max: .milliseconds(150))
        var generator = SplitMix64(seed: 5)
        let samples = (0..<5_000).map { _ in distribution.sample(using: &generator) }
        #expect(samples.allSatisfy { $0 >= .zero && $0 <= .milliseconds(150) })
        #expect(samples.contains(.milliseconds(150)))
    }

    @Test func lognormalWithoutSpreadIsExactlyTheMedian() {
        var generator = SplitMix64(seed: 9)
        let median = Duration(attoseconds: 123_456_789_123_456_789)
        let distribution = LatencyDistribution.lognormal(median: median, spread: 0, max: .seconds(1))
        for _ in 0..<10 {
            #expect(distribution.sample(using: &generator) == median)
        }
    }

    @Test func degenerateLognormalsStayWithinZeroAndMax() {
        var generator = SplitMix64(seed: 3)
        let cases: [LatencyDistribution] = [
            .lognormal(median: .milliseconds(-100), spread: 0.5, max: .seconds(1)),
            .lognormal(median: .milliseconds(100), spread: .infinity, max: .seconds(1)),
            .lognormal(median: .milliseconds(100), spread: .nan, max: .seconds(1)),
            .lognormal(median: .seconds(1_000_000_000), spread: 1_000, max: .seconds(2)),
            .lognormal(median: .milliseconds(100), spread: 0.5, max: .seconds(-1)),
        ]
        for distribution in cases {
            for _ in 0..<1_000 {
                let drawn = distribution.sample(using: &generator)
                #expect(drawn >= .zero && drawn <= distribution.upperBound)
            }
        }
    }

    @Test func theSameSeedGivesTheSameSequence() {
        let distribution = LatencyDistribution.lognormal(median: .milliseconds(80), spread: 0.7, max: .seconds(3))
        var first = SplitMix64(seed: 77)
        var second = SplitMix64(seed: 77)
        var other = SplitMix64(seed: 78)
        let a = (0..<100).map { _ in distribution.sample(using: &first) }
        let b = (0..<100).map { _ in distribution.sample(using: &second) }
        let c = (0..<100).map { _ in distribution.sample(using: &other) }
        #expect(a == b)
        #expect(a != c)
    }
}
