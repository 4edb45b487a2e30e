import ListDomain
import Testing

/// Datasets with a life: stored lists read on first use, a cap on how many there are, and expiry of idle ones.
@Suite("Datasets: first use, the cap, expiry")
struct DatasetLifecycleTests {
    static let seed: UInt64 = 5
    static let baseCount: UInt64 = 100

    /// A store holding `stored` (committed as a restarted server finds them), a registry that knows their names
    /// only, and a coordinator over both with `maxDatasets`.
    struct Restarted {
        let memory = MemoryListStore()
        let lists: ListRegistry
        let feed: ChangeFeed
        let coordinator: WriteCoordinator
        let published = PThreadLocked<[(String, Int, Bool)]>([])

        init(stored names: [String], maxDatasets: Int = .max, now: WallTime = WallTime(milliseconds: 1_000))
            async throws
        {
            var batch = CommitBatch(now: now)
            for name in names {
                var effects = ListEffects()
                effects.header = ListHeader(
                    seed: DatasetLifecycleTests.seed, baseCount: DatasetLifecycleTests.baseCount, version: 1,
                    nextID: DatasetLifecycleTests.baseCount + 1, lastSequence: 1)
                effects.written = [
                    DatasetLifecycleTests.baseCount: WrittenItem(
                        overrides: ItemOverrides(label: "stored \(name)"), revision: 1)
                ]
                batch.lists[name] = effects
            }
            try await memory.commit(batch)
            lists = ListRegistry(
                seed: DatasetLifecycleTests.seed, count: DatasetLifecycleTests.baseCount,
                unloaded: try await memory.listNames(), now: now)
            feed = ChangeFeed(store: memory, lists: lists)
            coordinator = WriteCoordinator(
                lists: lists, feed: feed, store: memory, idempotencyTTL: .seconds(60), wallClock: { now },
                maxDatasets: maxDatasets)
            let published = published
            feed.addListener { list, changes, dropped in
                published.withLock { $0.append((list, changes.count, dropped)) }
            }
        }
    }

    @Test("a stored dataset is read on first use, once, and a write goes on from it")
    func firstUse() async throws {
        let fixture = try await Restarted(stored: ["a", "b"])
        #expect(fixture.memory.loadedLists.isEmpty, "nothing is read at start")
        #expect(fixture.lists.needsLoading("a") && fixture.lists.needsLoading("b") && !fixture.lists.needsLoading("c"))
        #expect(fixture.lists.datasetCount == 2)

        await fixture.coordinator.load("a")
        #expect(fixture.memory.loadedLists == ["a"])
        #expect(!fixture.lists.needsLoading("a"))
        #expect(fixture.lists.state(of: "a").item(Self.baseCount)?.label == "stored a")
        await fixture.coordinator.load("a")  // in memory now: no second read
        #expect(fixture.memory.loadedLists == ["a"])

        // A write to "b" reads it first, in its own group, and its new item comes after the stored one.
        let outcome = await fixture.coordinator.submit(
            WriteOperation(list: "b", action: .create(ItemOverrides(label: "new"))))
        guard case .done(.created(let item, _)) = outcome else {
            Issue.record("expected a created item, got \(outcome)")
            return
        }
        #expect(item.id == Self.baseCount + 1)
        #expect(fixture.memory.loadedLists == ["a", "b"])
        #expect(fixture.lists.state(of: "b").item(Self.baseCount)?.label == "stored b")
        #expect(!fixture.lists.hasUnloaded)
    }

    @Test("past data.max_datasets a write to a new dataset is refused; existing ones and the default list go on")
    func cap() async throws {
        let fixture = try await Restarted(stored: ["a", "b"], maxDatasets: 3)
        func create(_ list: String) async -> WriteOutcome {
            await fixture.coordinator.submit(WriteOperation(list: list, action: .create(ItemOverrides(label: "x"))))
        }
        #expect(createdID(await create("c")) != nil)  // the third
        #expect(await create("d") == .rejected(.tooManyDatasets(3)))
        #expect(createdID(await create("a")) != nil, "a stored one, not yet in memory, is no new dataset")
        #expect(createdID(await create("")) != nil, "the default list is no dataset")
        #expect(!fixture.lists.exists("d") && fixture.lists.datasetCount == 3)
        // A drop of one that never had state writes nothing; of one that has, frees a place.
        let commits = fixture.memory.commitCount
        #expect(await fixture.coordinator.submit(WriteOperation(list: "never", action: .drop)) == .done(.dropped))
        #expect(fixture.memory.commitCount == commits && !fixture.lists.exists("never"))
        #expect(await fixture.coordinator.expire("c", idleBefore: WallTime(milliseconds: .max)))
        #expect(createdID(await create("d")) != nil)
        // A dropped dataset keeps its header row (its tags and feed positions stay unique) but holds nothing, so it
        // frees its place too.
        #expect(await create("e") == .rejected(.tooManyDatasets(3)))
        #expect(await fixture.coordinator.submit(WriteOperation(list: "d", action: .drop)) == .done(.dropped))
        #expect(fixture.lists.exists("d"))
        #expect(createdID(await create("e")) != nil)
    }

    @Test("an idle dataset expires with every row, unless it was used since it was found idle; its streams are told")
    func expiry() async throws {
        let fixture = try await Restarted(stored: ["idle", "busy"], now: WallTime(milliseconds: 1_000))
        await fixture.coordinator.load("busy")
        fixture.lists.advanceClock(to: WallTime(milliseconds: 50_000))
        _ = fixture.lists.state(of: "busy")  // a read at 50 s
        let cutoff = WallTime(milliseconds: 10_000)
        #expect(await fixture.coordinator.expire("busy", idleBefore: cutoff) == false)
        #expect(await fixture.coordinator.expire("idle", idleBefore: cutoff))  // never loaded: its store use counts
        #expect(!fixture.lists.exists("idle") && fixture.lists.exists("busy"))
        #expect(try await fixture.memory.listNames().sorted() == ["busy"])
        #expect(fixture.published.withLock { $0.last! } == ("idle", 0, true))
        // Named again, it is a list nobody wrote to.
        #expect(fixture.lists.state(of: "idle") == ListState(seed: Self.seed, count: Self.baseCount))
        #expect(await fixture.coordinator.expire("gone-already", idleBefore: cutoff) == false)
    }

    @Test("uses are noted to the coarse clock, once per tick, for the store to keep")
    func uses() async throws {
        let fixture = try await Restarted(stored: ["a"], now: WallTime(milliseconds: 1_000))
        await fixture.coordinator.load("a")
        _ = fixture.lists.takeUses()
        _ = fixture.lists.state(of: "a")
        #expect(fixture.lists.takeUses().isEmpty, "no tick since the load")
        fixture.lists.advanceClock(to: WallTime(milliseconds: 61_000))
        fixture.lists.advanceClock(to: WallTime(milliseconds: 30_000))  // never back
        _ = fixture.lists.state(of: "a")
        _ = fixture.lists.state(of: "never-written")
        #expect(fixture.lists.takeUses() == ["a": WallTime(milliseconds: 61_000)])
        #expect(fixture.lists.lastUse(of: "a") == WallTime(milliseconds: 61_000))
    }

    func createdID(_ outcome: WriteOutcome) -> UInt64? {
        if case .done(.created(let item, _)) = outcome { item.id } else { nil }
    }
}
