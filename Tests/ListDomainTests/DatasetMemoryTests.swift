import Testing

@testable import ListDomain

/// The memory bounds of the lists: one list's writes (`data.max_dataset_bytes`) and all lists in memory together
/// (`data.max_memory_bytes`), where the datasets used least recently leave memory and are read again when used.
@Suite("Datasets: memory bounds")
struct DatasetMemoryTests {
    static let seed: UInt64 = 5
    static let baseCount: UInt64 = 100

    /// A store, a registry held to `memoryBudget`, and a coordinator refusing writes past `maxDatasetBytes`.
    struct Bounded {
        let memory = MemoryListStore()
        let lists: ListRegistry
        let coordinator: WriteCoordinator

        init(memoryBudget: Int = .max, maxDatasetBytes: Int = .max) {
            lists = ListRegistry(
                seed: DatasetMemoryTests.seed, count: DatasetMemoryTests.baseCount,
                now: WallTime(milliseconds: 1_000), memoryBudget: memoryBudget)
            coordinator = WriteCoordinator(
                lists: lists, feed: ChangeFeed(store: memory, lists: lists), store: memory,
                idempotencyTTL: .seconds(60), wallClock: { WallTime(milliseconds: 1_000) },
                maxDatasetBytes: maxDatasetBytes)
        }

        /// Creates an item labelled `label` in `list`.
        func create(_ list: String, _ label: String) async -> WriteOutcome {
            await coordinator.submit(WriteOperation(list: list, action: .create(ItemOverrides(label: label))))
        }
    }

    /// A label of `bytes` UTF-8 bytes.
    static func label(_ bytes: Int) -> String { String(repeating: "x", count: bytes) }

    @Test("a list's cost counts both copies of its items and their text, and goes down as they go")
    func cost() async {
        let fixture = Bounded()
        let empty = ListRegistry.cost(of: fixture.lists.state(of: "a"))
        for _ in 0..<10 { _ = await fixture.create("a", Self.label(1_000)) }
        let written = ListRegistry.cost(of: fixture.lists.state(of: "a"))
        #expect(written >= empty + 2 * 10 * (1_000 + WrittenItems.slotBytes))
        #expect(fixture.lists.memoryInUse == written, "only list a is in memory")
        _ = await fixture.coordinator.submit(WriteOperation(list: "a", action: .reset(seed: nil)))
        #expect(fixture.lists.memoryInUse == ListRegistry.cost(of: fixture.lists.state(of: "a")))
        #expect(fixture.lists.memoryInUse < written / 10)
    }

    @Test("past data.max_dataset_bytes a write that adds is refused with 507 and writes nothing; others go on")
    func datasetFull() async throws {
        let cap = 256 * 1024
        let fixture = Bounded(maxDatasetBytes: cap)
        var created = 0
        var refusal: WriteOutcome?
        while refusal == nil && created < 1_000 {
            let outcome = await fixture.create("a", Self.label(1_500))
            if case .done(.created) = outcome { created += 1 } else { refusal = outcome }
        }
        #expect(refusal == .rejected(.datasetFull(cap)))
        // Most of the cap is used (each item costs about 2 × 1,612 bytes), and never more than the cap.
        #expect(created >= 60)
        let full = fixture.lists.state(of: "a")
        #expect(ListRegistry.cost(of: full) <= cap)
        let stored = try #require(try await fixture.memory.loadList("a"))
        #expect(ListState(stored) == full, "the refused write stored nothing")

        // A patch is refused too, and so is a small label (the check is for room for the largest write).
        let id = Self.baseCount
        var shorter = ItemPatch()
        shorter.label = .set("y")
        let patch = await fixture.coordinator.submit(WriteOperation(list: "a", action: .update(id, shorter)))
        #expect(patch == .rejected(.datasetFull(cap)))
        #expect(await fixture.create("a", "y") == .rejected(.datasetFull(cap)))
        #expect(fixture.lists.state(of: "a") == full)

        // A delete still goes, and frees its item's text: enough of them make room for a create again.
        for deleted in id..<(id + 4) {
            #expect(await fixture.coordinator.submit(WriteOperation(list: "a", action: .delete(deleted))).isDeleted)
        }
        #expect(await fixture.create("a", "room again").isCreated)

        // Another dataset and the default list are not held back by a's fill; a reset empties a.
        #expect(await fixture.create("b", "fine").isCreated)
        #expect(await fixture.create(ListRegistry.defaultList, "fine").isCreated)
        _ = await fixture.coordinator.submit(WriteOperation(list: "a", action: .reset(seed: nil)))
        #expect(await fixture.create("a", "again").isCreated)
    }

    @Test("over data.max_memory_bytes the least recently used datasets leave memory and are read again on use")
    func eviction() async throws {
        // 40 items of 1,000-byte labels: about 90 KB counted a dataset; three fit in 340 KB, four do not, and
        // taking one out leaves them under 90% of it.
        let fixture = Bounded(memoryBudget: 340_000)
        let lists = fixture.lists
        func fill(_ name: String) async {
            for index in 0..<40 { _ = await fixture.create(name, "\(name) \(index) " + Self.label(1_000)) }
        }
        await fill("a")
        lists.advanceClock(to: WallTime(milliseconds: 2_000))
        await fill("b")
        await fill("c")
        #expect(lists.memoryInUse > 3 * 80_000 && lists.memoryInUse <= 340_000)
        // The clock moves twice more; then b is read. Every dataset put in memory before the clock's last move but
        // one may leave; a (used at 1 s) is the least recently used, then c (2 s), then b (read at 4 s).
        lists.advanceClock(to: WallTime(milliseconds: 3_000))
        lists.advanceClock(to: WallTime(milliseconds: 4_000))
        _ = lists.state(of: "b")
        await fill("d")

        #expect(lists.memoryInUse <= 340_000 - 34_000)
        #expect(lists.needsLoading("a") && !lists.isLoaded("a"))
        #expect(lists.isLoaded("b") && lists.isLoaded("c") && lists.isLoaded("d"))
        #expect(lists.datasetCount == 4, "a dataset out of memory still exists")
        #expect(lists.lastUse(of: "a") == WallTime(milliseconds: 1_000), "its last use is kept for expiry")
        #expect(lists.takeUses()["a"] == WallTime(milliseconds: 1_000))

        // Read again on first use, as stored; a write goes on from there.
        await fixture.coordinator.load("a")
        #expect(lists.isLoaded("a"))
        #expect(lists.state(of: "a").item(Self.baseCount + 39)?.label == "a 39 " + Self.label(1_000))
        guard case .done(.created(let item, _)) = await fixture.create("a", "a next") else {
            Issue.record("the write to a failed")
            return
        }
        #expect(item.id == Self.baseCount + 40, "a's ids go on from its stored ones")
        #expect(lists.state(of: "a").item(Self.baseCount)?.label == "a 0 " + Self.label(1_000))
    }

    @Test("datasets just put in memory stay even over the budget; the default list never leaves")
    func nothingInUseLeaves() async {
        let fixture = Bounded(memoryBudget: 50_000)
        for name in [ListRegistry.defaultList, "a", "b"] {
            for _ in 0..<30 { _ = await fixture.create(name, Self.label(1_000)) }
        }
        // Everything was put in memory since the clock's last move but one: all stay, over the budget.
        #expect(fixture.lists.memoryInUse > 50_000)
        #expect(fixture.lists.isLoaded("a") && fixture.lists.isLoaded("b"))
        fixture.lists.advanceClock(to: WallTime(milliseconds: 2_000))
        fixture.lists.advanceClock(to: WallTime(milliseconds: 3_000))
        _ = await fixture.create("b", "one more")
        #expect(!fixture.lists.isLoaded("a") && fixture.lists.isLoaded("b"))
        #expect(fixture.lists.isLoaded(ListRegistry.defaultList))
    }
}

extension DatasetMemoryTests {
    @Test("a read finds its list in memory, learns it is out (stored, not in memory), or reads a list never written")
    func readsInOneLook() async {
        let fixture = Bounded(memoryBudget: 1)  // nothing fits: a dataset may leave at the next commit
        _ = await fixture.create("a", "kept")
        #expect(fixture.lists.stateInMemory(of: "a")?.item(Self.baseCount)?.label == "kept")
        fixture.lists.advanceClock(to: WallTime(milliseconds: 2_000))
        fixture.lists.advanceClock(to: WallTime(milliseconds: 3_000))
        _ = await fixture.create("b", "elsewhere")
        #expect(fixture.lists.stateInMemory(of: "a") == nil, "out of memory: the caller loads it")
        #expect(fixture.lists.stateInMemory(of: "never") == ListState(seed: Self.seed, count: Self.baseCount))
        await fixture.coordinator.load("a")
        #expect(fixture.lists.stateInMemory(of: "a")?.item(Self.baseCount)?.label == "kept")
    }
}

extension WriteOutcome {
    /// Whether this is a created item.
    fileprivate var isCreated: Bool {
        if case .done(.created) = self { return true }
        return false
    }

    /// Whether this is a deleted item.
    fileprivate var isDeleted: Bool {
        if case .done(.deleted) = self { return true }
        return false
    }
}
