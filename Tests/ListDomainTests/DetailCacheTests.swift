import ListDomain
import Testing

/// Builds a cache over a fresh test clock; `latency` is fixed so tests know how far to advance.
private func makeCache(
    capacity: Int = 100,
    latency: Duration = .seconds(1),
    count: UInt64 = 10_000
) -> (DetailCache, TestClock, Catalog) {
    let clock = TestClock()
    let catalog = Catalog(seed: 42, count: count)
    let store = SlowStore(catalog: catalog, latency: .uniform(min: latency, max: latency), clock: clock)
    return (DetailCache(store: store, capacity: capacity), clock, catalog)
}

@Suite("DetailCache")
struct DetailCacheTests {
    @Test func aMissIsReadyAfterTheLatencyAndThenCached() async throws {
        let (cache, clock, catalog) = makeCache()
        let expected = ItemDetail(id: 7, amount: catalog.amount(for: 7))
        let miss = DetailLookup(detail: expected, result: .miss(storeDuration: .seconds(1)))
        #expect(try cache.lookUp(7) == PendingLookup(lookup: miss, readyIn: .seconds(1)))
        #expect(cache.statistics.count == 0)
        clock.advance(by: .seconds(1))
        #expect(cache.statistics.count == 1)
        #expect(
            try cache.lookUp(7)
                == PendingLookup(lookup: DetailLookup(detail: expected, result: .hit), readyIn: .zero))
        #expect(
            cache.statistics
                == DetailCacheStatistics(hits: 1, misses: 1, storeFetches: 1, count: 1, capacity: 100))
    }

    @Test func missesInFlightJoinTheFetchForWhatIsLeftOfIt() async throws {
        let (cache, clock, catalog) = makeCache()
        let first = try cache.lookUp(3)
        clock.advance(by: .milliseconds(400))
        let joined = try cache.lookUp(3)
        #expect(joined.lookup == first.lookup)
        #expect(joined.readyIn == .milliseconds(600))
        clock.advance(by: .milliseconds(599))
        #expect(try cache.lookUp(3).readyIn == .milliseconds(1))
        clock.advance(by: .milliseconds(1))
        #expect(try cache.lookUp(3).lookup == DetailLookup(detail: first.lookup.detail, result: .hit))
        #expect(first.lookup.detail == ItemDetail(id: 3, amount: catalog.amount(for: 3)))
        let statistics = cache.statistics
        #expect(statistics.storeFetches == 1)
        #expect(statistics.coalescedWaits == 2)
        #expect(statistics.hits == 1)
    }

    @Test func concurrentWaitersShareOneFetch() async throws {
        let (cache, clock, catalog) = makeCache()
        let callers = 10
        let lookups = try await withThrowingTaskGroup(of: DetailLookup.self) { group in
            for _ in 0..<callers {
                group.addTask { try await cache.detail(for: 3) }
            }
            #expect(await clock.waitForSleepers(callers))
            clock.advance(by: .seconds(1))
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let expected = DetailLookup(
            detail: ItemDetail(id: 3, amount: catalog.amount(for: 3)), result: .miss(storeDuration: .seconds(1)))
        #expect(lookups == Array(repeating: expected, count: callers))
        let statistics = cache.statistics
        #expect(statistics.storeFetches == 1)
        #expect(statistics.coalescedWaits == UInt64(callers - 1))
        #expect(statistics.count == 1)
        #expect(try await cache.detail(for: 3).result == .hit)
    }

    @Test func differentIdsFetchSeparatelyAndLandInOrder() async throws {
        let (cache, clock, _) = makeCache(capacity: 1, latency: .seconds(1))
        _ = try cache.lookUp(1)
        clock.advance(by: .milliseconds(500))
        _ = try cache.lookUp(2)
        clock.advance(by: .seconds(2))
        // Both landed, 1 first: with room for one, 2 is what is left.
        #expect(try cache.lookUp(2).lookup.result == .hit)
        let statistics = cache.statistics
        #expect(statistics.storeFetches == 2)
        #expect(statistics.coalescedWaits == 0)
        #expect(statistics.evictions == 1)
    }

    @Test func aWaiterThatGivesUpChangesNothingForTheOthers() async throws {
        let (cache, clock, catalog) = makeCache()
        let waiters = (0..<3).map { _ in Task { try await cache.detail(for: 4) } }
        #expect(await clock.waitForSleepers(3))
        waiters[0].cancel()
        await #expect(throws: CancellationError.self) { try await waiters[0].value }
        clock.advance(by: .seconds(1))
        let expected = ItemDetail(id: 4, amount: catalog.amount(for: 4))
        #expect(try await waiters[1].value.detail == expected)
        #expect(try await waiters[2].value.detail == expected)
        #expect(cache.statistics.storeFetches == 1)
        #expect(try await cache.detail(for: 4).result == .hit)
    }

    @Test func theValueLandsInTheCacheEvenIfEveryWaiterGivesUp() async throws {
        let (cache, clock, _) = makeCache()
        let waiter = Task { try await cache.detail(for: 12) }
        #expect(await clock.waitForSleepers(1))
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        clock.advance(by: .seconds(1))
        #expect(cache.statistics.count == 1)
        #expect(try await cache.detail(for: 12).result == .hit)
        #expect(cache.statistics.storeFetches == 1)
    }

    @Test func missesJoinABypassFetchInFlight() async throws {
        let (cache, clock, _) = makeCache()
        #expect(try cache.lookUp(8, bypassCache: true).readyIn == .seconds(1))
        clock.advance(by: .milliseconds(300))
        #expect(try cache.lookUp(8).readyIn == .milliseconds(700))
        #expect(cache.statistics.coalescedWaits == 1)
        // A second bypass does not join: it always fetches afresh.
        #expect(try cache.lookUp(8, bypassCache: true).readyIn == .seconds(1))
        #expect(cache.statistics.storeFetches == 2)
        clock.advance(by: .milliseconds(700))
        #expect(try cache.lookUp(8).lookup.result == .hit)
    }

    @Test func aBypassWhileAnotherFetchIsInFlightStillLands() async throws {
        let (cache, clock, _) = makeCache(latency: .seconds(1))
        _ = try cache.lookUp(9)
        clock.advance(by: .milliseconds(500))
        _ = try cache.lookUp(9, bypassCache: true)  // ready at 1.5 s; lookups join the first until 1 s
        clock.advance(by: .milliseconds(500))
        #expect(try cache.lookUp(9).lookup.result == .hit)
        #expect(cache.invalidate(9))
        // The bypass fetch is still in flight: it lands at 1.5 s and caches the detail again.
        clock.advance(by: .milliseconds(500))
        #expect(try cache.lookUp(9).lookup.result == .hit)
        #expect(cache.statistics.storeFetches == 2)
    }

    @Test func evictsInLeastRecentlyUsedOrder() async throws {
        let (cache, _, _) = makeCache(capacity: 3, latency: .zero)
        for id in [1, 2, 3] as [UInt64] { _ = try await cache.detail(for: id) }
        #expect(try await cache.detail(for: 1).result == .hit)  // recency: 1, 3, 2
        _ = try await cache.detail(for: 4)  // evicts 2; recency: 4, 1, 3
        #expect(cache.statistics.evictions == 1)
        #expect(try await cache.detail(for: 1).result == .hit)
        #expect(try await cache.detail(for: 3).result == .hit)  // recency: 3, 1, 4
        #expect(try await cache.detail(for: 2).result != .hit)  // evicts 4
        #expect(try await cache.detail(for: 4).result != .hit)  // evicts 1
        #expect(try await cache.detail(for: 3).result == .hit)
        #expect(try await cache.detail(for: 1).result != .hit)
        let statistics = cache.statistics
        #expect(statistics.evictions == 4)
        #expect(statistics.count == 3)
    }

    @Test func countNeverExceedsCapacity() async throws {
        let capacity = 16
        let (cache, _, _) = makeCache(capacity: capacity, latency: .zero)
        for id in 0..<UInt64(10 * capacity) {
            _ = try await cache.detail(for: id)
            #expect(cache.statistics.count <= capacity)
        }
        let statistics = cache.statistics
        #expect(statistics.count == capacity)
        #expect(statistics.evictions == UInt64(9 * capacity))
        #expect(statistics.storeFetches == UInt64(10 * capacity))
        // Exactly the last `capacity` ids are still cached (checked newest first, so no lookup evicts another).
        for id in (UInt64(9 * capacity)..<UInt64(10 * capacity)).reversed() {
            #expect(try await cache.detail(for: id).result == .hit)
        }
        #expect(try await cache.detail(for: UInt64(9 * capacity - 1)).result != .hit)
    }

    @Test func bypassAlwaysFetchesAndStoresTheValue() async throws {
        let (cache, _, catalog) = makeCache(latency: .zero)
        _ = try await cache.detail(for: 5)
        let bypassed = try await cache.detail(for: 5, bypassCache: true)
        #expect(
            bypassed
                == DetailLookup(
                    detail: ItemDetail(id: 5, amount: catalog.amount(for: 5)), result: .miss(storeDuration: .zero)))
        // A bypass on an uncached id caches it as well.
        _ = try await cache.detail(for: 6, bypassCache: true)
        #expect(try await cache.detail(for: 6).result == .hit)
        #expect(try await cache.detail(for: 5).result == .hit)
        #expect(
            cache.statistics
                == DetailCacheStatistics(
                    hits: 2, misses: 3, storeFetches: 3, bypasses: 2, count: 2, capacity: 100))
    }

    @Test func unknownIdsAreNeverCached() async throws {
        let (cache, _, _) = makeCache(count: 10)
        await #expect(throws: StoreError.itemNotFound(10)) { try await cache.detail(for: 10) }
        await #expect(throws: StoreError.itemNotFound(10)) { try await cache.detail(for: 10) }
        let statistics = cache.statistics
        #expect(statistics.storeFetches == 2)
        #expect(statistics.storeFailures == 2)
        #expect(statistics.count == 0)
    }

    @Test func invalidateForgetsOneEntry() async throws {
        let (cache, _, _) = makeCache(latency: .zero)
        _ = try await cache.detail(for: 1)
        _ = try await cache.detail(for: 2)
        #expect(cache.invalidate(1))
        #expect(cache.invalidate(1) == false)
        #expect(try await cache.detail(for: 1).result != .hit)
        #expect(try await cache.detail(for: 2).result == .hit)
    }

    @Test func countersStayConsistentUnderConcurrentLoad() async throws {
        let (cache, _, _) = makeCache(capacity: 8, latency: .zero)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for request in 0..<400 as Range<UInt64> {
                group.addTask { _ = try await cache.detail(for: request % 24, bypassCache: request % 50 == 0) }
            }
            try await group.waitForAll()
        }
        let statistics = cache.statistics
        #expect(statistics.hits + statistics.misses == 400)
        #expect(statistics.storeFetches == statistics.misses - statistics.coalescedWaits)
        #expect(statistics.bypasses == 8)
        #expect(statistics.count <= 8)
    }
}
