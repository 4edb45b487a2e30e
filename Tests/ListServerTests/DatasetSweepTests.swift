import ListDomain
import Testing

@testable import ListServer

/// The sweep that expires idle datasets (``DatasetLifecycle``), without its task: passes at chosen times.
@Suite("Datasets: the sweep")
struct DatasetSweepTests {
    @Test("a use noted while the clock lagged counts as of the sweep: a clock held up never expires a dataset in use")
    func laggingClock() async throws {
        let store = MemoryListStore()
        var batch = CommitBatch(now: WallTime(milliseconds: 1_000))
        for name in ["busy", "old"] {
            var effects = ListEffects()
            effects.header = ListHeader(seed: 5, baseCount: 100, version: 1, nextID: 101, lastSequence: 1)
            effects.written = [100: WrittenItem(overrides: ItemOverrides(label: name), revision: 1)]
            batch.lists[name] = effects
        }
        try await store.commit(batch)
        let lists = ListRegistry(
            seed: 5, count: 100, unloaded: try await store.listNames(), now: WallTime(milliseconds: 1_000))
        let writes = WriteCoordinator(
            lists: lists, feed: ChangeFeed(store: store, lists: lists), store: store, idempotencyTTL: .seconds(60),
            wallClock: { WallTime(milliseconds: 1_000) })
        await writes.load("busy")
        await writes.load("old")
        func sweep(at milliseconds: Int64) async -> [String] {
            await DatasetLifecycle.sweep(
                writes: writes, ttl: .seconds(2), interval: .seconds(1), now: WallTime(milliseconds: milliseconds))
        }
        #expect(await sweep(at: 1_000).isEmpty)
        lists.advanceClock(to: WallTime(milliseconds: 2_000))
        _ = lists.state(of: "old")  // read at 2 s, then no more; the clock moves on at 3 s
        lists.advanceClock(to: WallTime(milliseconds: 3_000))
        // Read at 3 s and on until 10 s, while the clock's task was held up: every use noted at 3 s.
        _ = lists.state(of: "busy")
        // At 10 s, idle means unused since 7 s: old was, busy was not (its use counts as of the pass).
        #expect(await sweep(at: 10_000) == ["old"])
        #expect(lists.exists("busy") && !lists.exists("old"))
    }
}
