import ListDomain
import Synchronization
import Testing

/// A clock that counts how often its time is read, and otherwise is a ``TestClock``.
private final class CountingClock: Clock, Sendable {
    let base = TestClock()
    let reads = Atomic<Int>(0)

    var now: TestClock.Instant {
        reads.add(1, ordering: .relaxed)
        return base.now
    }
    var minimumResolution: Duration { .zero }

    func sleep(until deadline: TestClock.Instant, tolerance: Duration?) async throws {
        try await base.sleep(until: deadline, tolerance: tolerance)
    }
}

@Suite("LiveCatalog")
struct LiveCatalogTests {
    @Test func startsAtVersionOneWithTheBaseCount() {
        let live = LiveCatalog(seed: 7, count: 100)
        #expect(live.snapshot() == CatalogSnapshot(catalog: Catalog(seed: 7, count: 100), version: 1))
    }

    @Test func withoutGrowthNothingChangesOverTime() {
        let clock = TestClock()
        let live = LiveCatalog(seed: 7, count: 100, clock: clock)
        clock.advance(by: .seconds(3_600))
        #expect(live.snapshot() == CatalogSnapshot(catalog: Catalog(seed: 7, count: 100), version: 1))
    }

    @Test func withoutGrowthTheClockIsNeverRead() {
        let clock = CountingClock()
        let live = LiveCatalog(seed: 7, count: 100, clock: clock)
        for _ in 0..<10 { _ = live.snapshot() }
        live.reset()
        #expect(clock.reads.load(ordering: .relaxed) == 0)
    }

    @Test func growsOneItemPerInterval() {
        let clock = TestClock()
        let live = LiveCatalog(seed: 7, count: 100, growEvery: .seconds(2), clock: clock)
        #expect(live.snapshot().catalog.count == 100)
        clock.advance(by: .seconds(2) - .nanoseconds(1))
        #expect(live.snapshot().catalog.count == 100)
        clock.advance(by: .nanoseconds(1))
        #expect(live.snapshot().catalog.count == 101)
        clock.advance(by: .seconds(7))
        #expect(live.snapshot() == CatalogSnapshot(catalog: Catalog(seed: 7, count: 104), version: 1))
    }

    @Test func growthStopsAtTheMaximumCount() {
        let clock = TestClock()
        let live = LiveCatalog(
            seed: 1, count: Catalog.maximumCount - 3, growEvery: .nanoseconds(1), clock: clock)
        clock.advance(by: .nanoseconds(2))
        #expect(live.snapshot().catalog.count == Catalog.maximumCount - 1)
        clock.advance(by: .seconds(1_000_000_000))
        #expect(live.snapshot().catalog.count == Catalog.maximumCount)
        let full = LiveCatalog(seed: 1, count: Catalog.maximumCount, growEvery: .nanoseconds(1), clock: clock)
        clock.advance(by: .seconds(1))
        #expect(full.snapshot().catalog.count == Catalog.maximumCount)
    }

    @Test func resetBumpsTheVersionAndRestartsGrowth() {
        let clock = TestClock()
        let live = LiveCatalog(seed: 7, count: 10, growEvery: .seconds(1), clock: clock)
        clock.advance(by: .seconds(5))
        #expect(live.snapshot().catalog.count == 15)
        let reset = live.reset()
        #expect(reset == CatalogSnapshot(catalog: Catalog(seed: 7, count: 10), version: 2))
        #expect(live.snapshot() == reset)
        clock.advance(by: .milliseconds(1_500))
        #expect(live.snapshot().catalog.count == 11)
        clock.advance(by: .milliseconds(500))
        #expect(live.snapshot().catalog.count == 12)
    }

    @Test func resetReplacesTheSeedWhenGiven() {
        let live = LiveCatalog(seed: 7, count: 10)
        #expect(live.reset(seed: 8) == CatalogSnapshot(catalog: Catalog(seed: 8, count: 10), version: 2))
        #expect(live.reset() == CatalogSnapshot(catalog: Catalog(seed: 8, count: 10), version: 3))
        #expect(live.snapshot().version == 3)
    }
}
