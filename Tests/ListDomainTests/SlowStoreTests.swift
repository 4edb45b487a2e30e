import ListDomain
import Testing

@Suite("SlowStore")
struct SlowStoreTests {
    let catalog = Catalog(seed: 42, count: 1_000)
    let latency = LatencyDistribution.uniform(min: .milliseconds(500), max: .milliseconds(2_000))

    @Test func drawnLatenciesStayWithinBoundsAndSpreadOverThem() {
        var generator = SplitMix64(seed: 1)
        var samples: [Duration] = []
        for _ in 0..<10_000 {
            samples.append(latency.sample(using: &generator))
        }
        #expect(samples.allSatisfy { $0 >= .milliseconds(500) && $0 <= .milliseconds(2_000) })
        let smallest = samples.min()!
        let largest = samples.max()!
        #expect(smallest < .milliseconds(510))
        #expect(largest > .milliseconds(1_990))
        let mean = samples.reduce(Duration.zero, +) / samples.count
        #expect(mean > .milliseconds(1_200) && mean < .milliseconds(1_300))
    }

    @Test func degenerateDistributions() {
        var generator = SplitMix64(seed: 1)
        #expect(
            LatencyDistribution.uniform(min: .seconds(1), max: .seconds(1)).sample(using: &generator) == .seconds(1))
        #expect(LatencyDistribution.uniform(min: .zero, max: .zero).sample(using: &generator) == .zero)
        let swapped = LatencyDistribution.uniform(min: .seconds(2), max: .seconds(1))
        #expect(swapped.lowerBound == .seconds(1) && swapped.upperBound == .seconds(2))
        for _ in 0..<100 {
            let drawn = swapped.sample(using: &generator)
            #expect(drawn >= .seconds(1) && drawn <= .seconds(2))
        }
    }

    @Test func fetchCompletesExactlyWhenTheDrawnLatencyHasPassed() async throws {
        let clock = TestClock()
        let store = SlowStore(catalog: catalog, latency: latency, clock: clock, random: SplitMix64(seed: 7))
        // The same seed predicts the latencies the store will draw.
        var predictor = SplitMix64(seed: 7)
        for id in [0, 1, 999] as [UInt64] {
            let expected = latency.sample(using: &predictor)
            #expect(expected >= .milliseconds(500) && expected <= .milliseconds(2_000))
            let start = clock.now
            let fetch = Task { try await store.timedFetch(id) }
            #expect(await clock.waitForSleepers(1))
            #expect(clock.deadlines == [start.advanced(by: expected)])

            clock.advance(by: expected - .nanoseconds(1))
            #expect(clock.sleeperCount == 1, "woke up before its latency had passed")

            clock.advance(by: .nanoseconds(1))
            let result = try await fetch.value
            #expect(result.detail == ItemDetail(id: id, amount: catalog.amount(for: id)))
            #expect(result.duration == expected)
        }
    }

    @Test func plainFetchReturnsTheDetail() async throws {
        let clock = TestClock()
        let store = SlowStore(catalog: catalog, latency: .uniform(min: .zero, max: .zero), clock: clock)
        #expect(try await store.fetch(5) == ItemDetail(id: 5, amount: catalog.amount(for: 5)))
    }

    @Test func unknownIdsFailAtOnce() async {
        let clock = TestClock()
        let store = SlowStore(catalog: catalog, latency: latency, clock: clock)
        await #expect(throws: StoreError.itemNotFound(1_000)) { try await store.fetch(1_000) }
        await #expect(throws: StoreError.itemNotFound(.max)) { try await store.fetch(.max) }
        #expect(clock.sleeperCount == 0)
    }

    @Test func cancellationWhileWaitingThrowsCancellationError() async {
        let clock = TestClock()
        let store = SlowStore(catalog: catalog, latency: latency, clock: clock)
        let fetch = Task { try await store.fetch(3) }
        #expect(await clock.waitForSleepers(1))
        fetch.cancel()
        await #expect(throws: CancellationError.self) { try await fetch.value }
        #expect(clock.sleeperCount == 0)
    }

    @Test func cancellationBeforeWaitingThrowsToo() async {
        let clock = TestClock()
        let store = SlowStore(catalog: catalog, latency: latency, clock: clock)
        let fetch = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await store.fetch(3)
        }
        await #expect(throws: CancellationError.self) { try await fetch.value }
        #expect(clock.sleeperCount == 0)
    }

    @Test func concurrentFetchesShareTheGeneratorSafely() async throws {
        let clock = TestClock()
        let store = SlowStore(catalog: catalog, latency: latency, clock: clock, random: SplitMix64(seed: 3))
        var predictor = SplitMix64(seed: 3)
        let expected = (0..<50).map { _ in latency.sample(using: &predictor) }
        let durations = try await withThrowingTaskGroup(of: Duration.self) { group in
            for id in 0..<50 as Range<UInt64> {
                group.addTask { try await store.timedFetch(id).duration }
            }
            #expect(await clock.waitForSleepers(50))
            // Each fetch drew its own value from the one shared stream, in whatever order the tasks ran.
            #expect(clock.deadlines.map(\.offset) == expected.sorted())
            clock.advance(by: .milliseconds(2_000))
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(durations == Array(repeating: .milliseconds(2_000), count: 50))
    }
}
