import ListDomain
import Testing

/// A cache over a store of `Catalog(seed: 42, count: 10_000)` whose fetches all take `latency` on a test clock.
private func makeCache(latency: Duration = .zero) -> (DetailCache, TestClock) {
    let clock = TestClock()
    let store = SlowStore(catalog: Catalog(seed: 42, count: 10_000), latency: .fixed(latency), clock: clock)
    return (DetailCache(store: store, capacity: 100), clock)
}

/// The detail of item `id` in a catalog with `seed`.
private func detail(_ id: UInt64, seed: UInt64) -> ItemDetail {
    ItemDetail(id: id, amount: Catalog(seed: seed, count: 1).amount(for: id))
}

@Suite("DetailCache: reset")
struct DetailCacheResetTests {
    @Test func afterAResetEveryLookupMisses() async throws {
        let (cache, _) = makeCache()
        _ = try await cache.detail(for: 1)
        _ = try await cache.detail(for: 2)
        #expect(try await cache.detail(for: 1).result == .hit)
        #expect(cache.reset(to: Catalog(seed: 42, count: 10_000)) == 2)
        #expect(cache.statistics.count == 0)
        #expect(try await cache.detail(for: 1).result == .miss(storeDuration: .zero))
        #expect(try await cache.detail(for: 1).result == .hit)
        // The counters kept counting across the reset.
        #expect(
            cache.statistics
                == DetailCacheStatistics(hits: 2, misses: 3, storeFetches: 3, count: 1, capacity: 100))
    }

    @Test func aFetchInFlightAcrossAResetAnswersButDoesNotPopulateTheCache() async throws {
        let (cache, clock) = makeCache(latency: .seconds(1))
        let before = Task { try await cache.detail(for: 7) }
        #expect(await clock.waitForSleepers(1))
        #expect(cache.reset(to: Catalog(seed: 42, count: 10_000)) == 0)
        clock.advance(by: .seconds(1))
        #expect(
            try await before.value
                == DetailLookup(detail: detail(7, seed: 42), result: .miss(storeDuration: .seconds(1))))
        #expect(cache.statistics.count == 0)
    }

    @Test func aLookupAfterAResetDoesNotJoinAFetchFromBeforeIt() async throws {
        let (cache, clock) = makeCache(latency: .seconds(1))
        let before = Task { try await cache.detail(for: 7) }
        #expect(await clock.waitForSleepers(1))
        cache.reset(to: Catalog(seed: 43, count: 10_000))
        let after = Task { try await cache.detail(for: 7) }
        #expect(await clock.waitForSleepers(2))
        clock.advance(by: .seconds(1))
        #expect(try await before.value.detail == detail(7, seed: 42))
        #expect(try await after.value.detail == detail(7, seed: 43))
        let statistics = cache.statistics
        #expect(statistics.storeFetches == 2 && statistics.coalescedWaits == 0)
        #expect(try await cache.detail(for: 7) == DetailLookup(detail: detail(7, seed: 43), result: .hit))
    }

    @Test func aNewSeedIsHonoured() async throws {
        let (cache, _) = makeCache()
        #expect(try await cache.detail(for: 5).detail == detail(5, seed: 42))
        cache.reset(to: Catalog(seed: 43, count: 10_000))
        #expect(try await cache.detail(for: 5).detail == detail(5, seed: 43))
        #expect(try await cache.detail(for: 5, in: Catalog(seed: 43, count: 10)).result == .hit)
    }

    @Test func aDetailIsNeverServedForAnotherSeed() async throws {
        let (cache, _) = makeCache()
        _ = try await cache.detail(for: 5)
        // A request validated against another catalog (just before a reset, say) goes to the store...
        let other = Catalog(seed: 99, count: 10_000)
        #expect(
            try await cache.detail(for: 5, in: other)
                == DetailLookup(detail: detail(5, seed: 99), result: .miss(storeDuration: .zero)))
        #expect(try await cache.detail(for: 5, in: other).result != .hit)
        // ...and leaves the cache as it was.
        #expect(try await cache.detail(for: 5) == DetailLookup(detail: detail(5, seed: 42), result: .hit))
        #expect(cache.statistics.count == 1)
    }

    @Test func itemsOfAGrownCatalogAreFetchedAndCached() async throws {
        let (cache, _) = makeCache()
        let grown = Catalog(seed: 42, count: 10_005)
        #expect(try await cache.detail(for: 10_002, in: grown).detail == detail(10_002, seed: 42))
        #expect(try await cache.detail(for: 10_002, in: grown).result == .hit)
        // An id past the end of the catalog the request names is not found, cached or not.
        await #expect(throws: StoreError.itemNotFound(10_002)) { try await cache.detail(for: 10_002) }
    }

    @Test func theStoreFetchesFromTheCatalogItIsGiven() async throws {
        let store = SlowStore(catalog: Catalog(seed: 1, count: 10), latency: .none, clock: TestClock())
        let fetched = try await store.timedFetch(20, in: Catalog(seed: 2, count: 30))
        #expect(fetched.detail == detail(20, seed: 2))
        await #expect(throws: StoreError.itemNotFound(30)) {
            try await store.timedFetch(30, in: Catalog(seed: 2, count: 30))
        }
    }
}
