import ListDomain
import Testing

/// The coordinator keeps two copies of every list it writes and brings the older one level with the registry by
/// replaying the last commit's effects (see ``WriteCoordinator``). A replay that missed anything would show only
/// after the second group on a list, and only in what readers see, so these tests run many random groups and
/// compare, after each, what the registry serves with what the store holds (whose own code applies the effects).
@Suite("WriteCoordinator: its two copies of a list")
struct WriteCoordinatorCopiesTests {
    let lists = ["", "a"]

    @Test(arguments: [UInt64(1), 2, 3])
    func theRegistryHoldsWhatTheStoreHoldsAfterEveryGroup(seed: UInt64) async throws {
        let fixture = WriteFixture(holding: true)
        var random = SplitMix64(seed: seed)
        var failedGroups = 0
        for round in 0..<60 {
            let blocker = Task { await fixture.submit(createOperation("blocker \(round)", list: lists[round % 2])) }
            #expect(await eventually { fixture.store.heldCount == 1 }, "the commit never reached the gate")
            var queued: [Task<WriteOutcome, Never>] = []
            for _ in 0..<Int.random(in: 1...10, using: &random) {
                queued.append(await fixture.submitQueued(randomOperation(&random)))
            }
            // Now and then the blocker's commit or the group's fails: the next group must start from the
            // registry's state, not from a copy that holds the failed writes.
            let failures = Int.random(in: 0..<8, using: &random) == 0 ? Int.random(in: 1...2, using: &random) : 0
            if failures > 0 { fixture.memory.failNextCommits(failures, with: StoreFailure(.full, "test")) }
            failedGroups += failures
            fixture.store.open()
            _ = await blocker.value
            for task in queued { _ = await task.value }
            fixture.store.hold()

            let stored = try await fixture.memory.load()
            for name in lists {
                let served = fixture.lists.state(of: name)
                let expected = stored[name].map(ListState.init) ?? fixture.fresh
                #expect(served.header == expected.header, "list \"\(name)\", round \(round)")
                #expect(served.written.all == expected.written.all, "list \"\(name)\", round \(round)")
                #expect(served.deleted.all == expected.deleted.all, "list \"\(name)\", round \(round)")
            }
        }
        #expect(failedGroups > 0, "no group failed: the seed tests less than it should")
        #expect(fixture.coordinator.commitStatistics.commits > 60)
    }

    /// A write to either list: mostly creates, updates and deletes of ids around the generated end (so many are
    /// live and some refused), now and then a reset or a drop.
    private func randomOperation(_ random: inout SplitMix64) -> WriteOperation {
        let list = lists[Int.random(in: 0..<lists.count, using: &random)]
        let id = UInt64.random(in: (WriteFixture.baseCount - 20)..<(WriteFixture.baseCount + 40), using: &random)
        let action: WriteOperation.Action
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<40:
            let label = Bool.random(using: &random) ? "label \(random.next() % 1000)" : nil
            action = .create(ItemOverrides(label: label, likes: Int.random(in: 0...9, using: &random)))
        case 40..<70:
            var patch = ItemPatch()
            patch.label = Bool.random(using: &random) ? .set("patched \(random.next() % 1000)") : .clear
            if Bool.random(using: &random) { patch.likes = .set(7) }
            action = .update(id, patch)
        case 70..<94:
            action = .delete(id)
        case 94..<96:
            action = .grow(3)
        case 96..<98:
            action = .reset(seed: Bool.random(using: &random) ? nil : random.next() % 100)
        default:
            action = .drop
        }
        return WriteOperation(list: list, action: action)
    }
}
