import ListDomain
import Testing

@testable import ListServer

/// A dataset that leaves memory (the memory budget) between a request's check and its read is read again, never
/// answered as if nobody had written to it.
@Suite("Router: a dataset that left memory as it was read")
struct RouterEvictedDatasetTests {
    @Test("the read finds its list out of memory, loads it, and answers from what was written")
    func readAgainAfterLoading() async throws {
        let store = MemoryListStore()
        // A budget nothing fits in: every dataset not just put in memory may leave at the next commit.
        let lists = ListRegistry(seed: 42, count: 10_000, now: WallTime(milliseconds: 1_000), memoryBudget: 1)
        let writes = WriteCoordinator(
            lists: lists, feed: ChangeFeed(store: store, lists: lists), store: store, idempotencyTTL: .seconds(60),
            wallClock: { WallTime(milliseconds: 1_000) })
        let catalog = Catalog(seed: 42, count: 10_000)
        let slowStore = SlowStore(catalog: catalog, latency: .uniform(min: .zero, max: .zero), clock: ImmediateClock())
        let router = Router(
            writes: writes, cache: DetailCache(store: slowStore, capacity: 100), images: RouterFixture.imageCache(),
            paging: RouterFixture.defaultPaging)
        let created = await router.write(.post, "/items", json: #"{"label":"kept"}"#, headers: ["X-Dataset": "a"])
        #expect(created.status == 201)
        // Two clock moves later, a write elsewhere takes "a" out of memory.
        lists.advanceClock(to: WallTime(milliseconds: 2_000))
        lists.advanceClock(to: WallTime(milliseconds: 3_000))
        #expect(await router.write(.post, "/items", json: #"{"label":"x"}"#, headers: ["X-Dataset": "b"]).status == 201)
        #expect(lists.needsLoading("a"))

        // The read itself says so (one look under the lock)...
        let request = HTTPRequest(method: .get, target: "/items/10000", headers: ["X-Dataset": "a"])
        #expect(throws: Problem.self) { try router.readableState(of: "a") }
        do {
            _ = try router.readableState(of: "a")
        } catch {
            #expect(error.datasetToLoad == "a")
            // ...and the router loads it and routes the request again: the item as written.
            let again = try #require(
                router.routeAgainAfterLoading(.failure(error), request, router.match(request), retried: false))
            let response = await router.awaitHeld { await again.awaitedResponse() }
            #expect(response.status == 200)
            #expect(response.jsonObject?["label"] as? String == "kept")
            // A second try that finds it out again is answered: 503 with Retry-After, not a loop.
            #expect(
                router.routeAgainAfterLoading(.failure(error), request, router.match(request), retried: true) == nil)
            #expect(error.response().status == 503 && error.headers["Retry-After"] == "1")
        }
        // A dataset nobody wrote to is no dataset to load: it reads as generated.
        #expect(try router.readableState(of: "never").header.nextID == 10_000)
    }
}
