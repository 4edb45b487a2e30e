import ListDomain
import Testing

/// Applies `action` to `state` with fresh effects; returns what it did and the effects it noted.
private func apply(
    _ action: WriteOperation.Action, to state: inout ListState,
    condition: (@Sendable (ItemRevision) -> Bool)? = nil
) -> (result: Result<WriteResult, WriteRejection>, effects: ListEffects) {
    var effects = ListEffects()
    let result = state.apply(action, condition: condition, effects: &effects)
    return (result, effects)
}

/// A merge patch: each field kept unless given.
private func patch(
    label: ItemPatch.Change<String> = .keep, width: ItemPatch.Change<Int> = .keep,
    color: ItemPatch.Change<UInt32> = .keep, likes: ItemPatch.Change<Int> = .keep
) -> ItemPatch {
    var patch = ItemPatch()
    patch.label = label
    patch.width = width
    patch.color = color
    patch.likes = likes
    return patch
}

@Suite("ListState writes")
struct ListStateWritesTests {
    let seed: UInt64 = 21
    var catalog: Catalog { Catalog(seed: seed, count: Catalog.maximumCount) }

    @Test func createTakesTheNextIdsAtTheEnd() {
        var state = ListState(seed: seed, count: 10)
        let overrides = ItemOverrides(label: "first", likes: 3)
        let (result, effects) = apply(.create(overrides), to: &state)
        let generated = catalog.item(10)!
        let item = Item(
            id: 10, label: "first", author: generated.author, width: generated.width, height: generated.height,
            color: generated.color, blurHash: generated.blurHash, likes: 3)
        #expect(result == .success(.created(item, ItemRevision(version: 1, seed: seed, id: 10, revision: 1))))
        #expect(state.item(10) == item && state.isLive(10) && state.liveCount == 11)
        #expect(state.revision(of: 10) == 1)
        #expect(state.header == ListHeader(seed: seed, baseCount: 10, version: 1, nextID: 11, lastSequence: 1))
        #expect(!state.isPristine)

        var expected = ListEffects()
        expected.written = [10: WrittenItem(overrides: overrides, revision: 1)]
        expected.changes = [Change(sequence: 1, event: .created(item))]
        expected.header = state.header
        #expect(effects == expected)

        let (second, _) = apply(.create(ItemOverrides(label: "second")), to: &state)
        guard case .success(.created(let secondItem, let revision)) = second else {
            Issue.record("create failed: \(second)")
            return
        }
        #expect(secondItem.id == 11 && secondItem.label == "second" && revision.revision == 2)
        #expect(state.header.nextID == 12 && state.header.lastSequence == 2)
    }

    @Test func updateAppliesMergePatchesAndBumpsTheRevision() {
        var state = ListState(seed: seed, count: 10)
        let generated = catalog.item(3)!
        #expect(state.revision(of: 3) == 0)

        let (first, firstEffects) = apply(.update(3, patch(label: .set("x"), likes: .set(5))), to: &state)
        let afterFirst = Item(
            id: 3, label: "x", author: generated.author, width: generated.width, height: generated.height,
            color: generated.color, blurHash: generated.blurHash, likes: 5)
        #expect(first == .success(.updated(afterFirst, ItemRevision(version: 1, seed: seed, id: 3, revision: 1))))
        var expected = ListEffects()
        expected.written = [3: WrittenItem(overrides: ItemOverrides(label: "x", likes: 5), revision: 1)]
        expected.changes = [Change(sequence: 1, event: .updated(afterFirst))]
        expected.header = state.header
        #expect(firstEffects == expected)

        // null returns a field to its generated value; fields not in the patch keep theirs.
        let (second, _) = apply(
            .update(3, patch(label: .clear, width: .set(7), color: .set(0x00_0a_0b))), to: &state)
        let afterSecond = Item(
            id: 3, label: generated.label, author: generated.author, width: 7, height: generated.height,
            color: "#000a0b", blurHash: PhotoPlaceholders.shared.placeholder(id: 3, color: 0x00_0a_0b), likes: 5)
        #expect(afterSecond.blurHash != generated.blurHash, "a written colour makes another photo")
        #expect(second == .success(.updated(afterSecond, state.itemRevision(3))))
        #expect(state.item(3) == afterSecond && state.revision(of: 3) == 2)

        // Clearing every field gives the generated item back, but the revision still says it changed.
        let (third, thirdEffects) = apply(
            .update(3, patch(width: .clear, color: .clear, likes: .clear)), to: &state)
        #expect(third == .success(.updated(generated, ItemRevision(version: 1, seed: seed, id: 3, revision: 3))))
        #expect(state.item(3) == generated && state.revision(of: 3) == 3)
        #expect(thirdEffects.written == [3: WrittenItem(overrides: ItemOverrides(), revision: 3)])
        #expect(state.header.lastSequence == 3 && state.header.nextID == 10)
    }

    @Test func deletedItemsAreGoneForGood() {
        var state = ListState(seed: seed, count: 10)
        _ = apply(.update(4, patch(label: .set("doomed"))), to: &state)
        let (result, effects) = apply(.delete(4), to: &state)
        #expect(result == .success(.deleted(4)))
        #expect(!state.isLive(4) && state.item(4) == nil && state.liveCount == 9)
        #expect(state.written[4] == nil && state.deleted.all == [4])
        var expected = ListEffects()
        expected.deleted = [4]
        expected.changes = [Change(sequence: 2, event: .deleted(4))]
        expected.header = state.header
        #expect(effects == expected)

        let before = state
        for action in [WriteOperation.Action.update(4, patch(likes: .set(1))), .delete(4)] {
            let (again, againEffects) = apply(action, to: &state)
            #expect(again == .failure(.notFound(4)))
            #expect(againEffects == ListEffects())
            #expect(state == before)
        }
        // Ids never handed out are not found either.
        for id in [10, 11, Catalog.maximumCount, .max] as [UInt64] {
            #expect(apply(.update(id, ItemPatch()), to: &state).result == .failure(.notFound(id)))
            #expect(apply(.delete(id), to: &state).result == .failure(.notFound(id)))
        }
        #expect(state == before)
    }

    /// In one group the coordinator notes every write into the same effects: a patch then a delete of one id
    /// leaves only the deletion.
    @Test func effectsOfAPatchThenADeleteInOneGroup() {
        var state = ListState(seed: seed, count: 10)
        var effects = ListEffects()
        _ = state.apply(.update(2, patch(label: .set("a"))), condition: nil, effects: &effects)
        _ = state.apply(.delete(2), condition: nil, effects: &effects)
        #expect(effects.written.isEmpty && effects.deleted == [2])
        #expect(effects.changes.map(\.sequence) == [1, 2] && effects.header == state.header)
    }

    @Test func conditionsThatRefuseChangeNothing() {
        var state = ListState(seed: seed, count: 10)
        _ = apply(.update(6, patch(label: .set("v1"))), to: &state)
        let current = state.itemRevision(6)
        #expect(current == ItemRevision(version: 1, seed: seed, id: 6, revision: 1))
        let before = state

        // A stale If-Match (the revision before the update) is refused with the current revision.
        let stale: @Sendable (ItemRevision) -> Bool = { $0.revision == 0 }
        for action in [WriteOperation.Action.update(6, patch(label: .set("v2"))), .delete(6)] {
            let (result, effects) = apply(action, to: &state, condition: stale)
            #expect(result == .failure(.preconditionFailed(current)))
            #expect(effects == ListEffects())
            #expect(state == before)
        }
        // The condition sees the item's current revision, and a matching one lets the write through.
        let matching: @Sendable (ItemRevision) -> Bool = { $0 == current }
        #expect(
            apply(.update(6, patch(label: .set("v2"))), to: &state, condition: matching).result
                == .success(.updated(state.item(6)!, state.itemRevision(6))))
        #expect(state.revision(of: 6) == 2)
        #expect(
            apply(.delete(6), to: &state, condition: matching).result
                == .failure(.preconditionFailed(state.itemRevision(6))))
        #expect(apply(.delete(6), to: &state, condition: { $0.revision == 2 }).result == .success(.deleted(6)))
        // A missing item is 404 before any condition is asked.
        #expect(apply(.delete(6), to: &state, condition: { _ in false }).result == .failure(.notFound(6)))
    }

    @Test func growAddsGeneratedItems() {
        var state = ListState(seed: seed, count: 10)
        let (result, effects) = apply(.grow(3), to: &state)
        #expect(result == .success(.grew(3)))
        #expect(state.header.nextID == 13 && state.liveCount == 13 && state.isPristine)
        #expect((10..<13).allSatisfy { state.item($0) == catalog.item($0) })
        var expected = ListEffects()
        expected.changes = (10..<13).map { Change(sequence: $0 - 9, event: .created(catalog.item($0)!)) }
        expected.header = state.header
        #expect(effects == expected)
        #expect(apply(.grow(0), to: &state).result == .success(.grew(0)))
        #expect(state.header.lastSequence == 3)
    }

    @Test func theListStopsAtTheMaximumCount() {
        var state = ListState(seed: seed, count: Catalog.maximumCount - 2)
        let (grew, effects) = apply(.grow(5), to: &state)
        #expect(grew == .success(.grew(2)))
        #expect(
            effects.changes.map(\.event) == [
                .created(catalog.item(Catalog.maximumCount - 2)!), .created(catalog.item(Catalog.maximumCount - 1)!),
            ])
        #expect(state.header.nextID == Catalog.maximumCount)
        let before = state
        let (full, fullEffects) = apply(.create(ItemOverrides(label: "one too many")), to: &state)
        #expect(full == .failure(.listFull))
        #expect(fullEffects == ListEffects() && state == before)
        let (none, noneEffects) = apply(.grow(1), to: &state)
        #expect(none == .success(.grew(0)) && noneEffects.changes.isEmpty && state == before)
        // The last id can still be written and deleted.
        #expect(
            apply(.delete(Catalog.maximumCount - 1), to: &state).result == .success(.deleted(Catalog.maximumCount - 1)))
        #expect(apply(.create(ItemOverrides(label: "x")), to: &state).result == .failure(.listFull))
    }

    @Test func resetWipesTheWritesAndKeepsTheSequenceGoing() {
        var state = ListState(seed: seed, count: 10)
        _ = apply(.create(ItemOverrides(label: "new")), to: &state)
        _ = apply(.update(1, patch(label: .set("changed"))), to: &state)
        _ = apply(.delete(2), to: &state)
        _ = apply(.grow(2), to: &state)
        #expect(state.header.lastSequence == 5 && state.header.nextID == 13)

        let (result, effects) = apply(.reset(seed: nil), to: &state)
        let reset = ListReset(version: 2, seed: seed, count: 10)
        #expect(result == .success(.reset(reset)))
        #expect(state.header == ListHeader(seed: seed, baseCount: 10, version: 2, nextID: 10, lastSequence: 6))
        #expect(state.isPristine && state.liveCount == 10)
        #expect(state.item(1) == catalog.item(1) && state.isLive(2) && !state.isLive(10))
        var expected = ListEffects()
        expected.wipe = true
        expected.changes = [Change(sequence: 6, event: .reset(reset))]
        expected.header = state.header
        #expect(effects == expected)

        // Ids are handed out again from the base count; sequence numbers are not.
        let (created, _) = apply(.create(ItemOverrides(label: "again")), to: &state)
        #expect(
            created == .success(.created(state.item(10)!, ItemRevision(version: 2, seed: seed, id: 10, revision: 7))))

        // A reset with a new seed regenerates every field nobody wrote.
        let (reseeded, _) = apply(.reset(seed: 99), to: &state)
        #expect(reseeded == .success(.reset(ListReset(version: 3, seed: 99, count: 10))))
        #expect(state.item(4) == Catalog(seed: 99, count: 10).item(4))
        #expect(state.header.lastSequence == 8)
    }

    /// Writes noted in one effects value then a reset: the reset wipes the rows but keeps their changes.
    @Test func resetInTheMiddleOfAGroup() {
        var state = ListState(seed: seed, count: 10)
        var effects = ListEffects()
        _ = state.apply(.update(1, patch(label: .set("a"))), condition: nil, effects: &effects)
        _ = state.apply(.delete(2), condition: nil, effects: &effects)
        _ = state.apply(.reset(seed: nil), condition: nil, effects: &effects)
        _ = state.apply(.update(3, patch(label: .set("b"))), condition: nil, effects: &effects)
        #expect(effects.wipe)
        #expect(effects.written == [3: WrittenItem(overrides: ItemOverrides(label: "b"), revision: 4)])
        #expect(effects.deleted.isEmpty)
        #expect(effects.changes.map(\.event.kind) == ["updated", "deleted", "reset", "updated"])
        #expect(effects.header == state.header)
    }

    @Test func sequenceNumbersCountEachListsChangesOnly() {
        var a = ListState(seed: seed, count: 5)
        var b = ListState(seed: seed, count: 5)
        var sequences: [UInt64] = []
        for step in 0..<6 {
            let (result, effects) = apply(
                step % 2 == 0 ? .create(ItemOverrides(label: "a\(step)")) : .delete(UInt64(step)), to: &a)
            #expect(throws: Never.self) { try result.get() }
            sequences += effects.changes.map(\.sequence)
            // A refused write takes no number.
            #expect(apply(.delete(100), to: &a).result == .failure(.notFound(100)))
        }
        #expect(sequences == [1, 2, 3, 4, 5, 6])
        #expect(apply(.delete(0), to: &b).effects.changes.map(\.sequence) == [1])
    }

    /// The effects of random groups of writes, committed to the memory store and loaded back, give the state the
    /// writes left: the effects miss nothing and add nothing.
    @Test(arguments: [1, 2, 3] as [UInt64])
    func effectsReplayedByTheStoreRebuildTheState(seed: UInt64) async throws {
        var generator = SplitMix64(seed: seed)
        let store = MemoryListStore()
        var state = ListState(seed: seed, count: 40)
        var changes: [Change] = []
        for _ in 0..<60 {
            var effects = ListEffects()
            for _ in 0..<(1 + generator.next() % 6) {
                let id = generator.next() % (state.header.nextID + 2)
                let action: WriteOperation.Action =
                    switch generator.next() % 20 {
                    case 0..<5: .create(ItemOverrides(label: "c\(generator.next() % 100)"))
                    case 5..<11:
                        .update(id, patch(label: .clear, likes: .set(Int(generator.next() % 1_000))))
                    case 11..<17: .delete(id)
                    case 17, 18: .grow(generator.next() % 3)
                    default: .reset(seed: generator.next() % 2 == 0 ? nil : generator.next())
                    }
                _ = state.apply(action, condition: nil, effects: &effects)
            }
            changes += effects.changes
            try await store.commit(CommitBatch(lists: ["l": effects], now: WallTime(milliseconds: 0)))
            let loaded = try await store.load()
            // (Until a group changes something, the list has no rows.)
            #expect((loaded["l"].map(ListState.init) ?? ListState(seed: seed, count: 40)) == state)
        }
        #expect(changes.map(\.sequence) == Array(1...state.header.lastSequence))
        let window = try await store.changes(of: "l", after: 0, limit: .max)
        #expect(window.changes == changes && window.oldestKept == 1)
    }

    @Test("effects are empty only when no field says anything (the coordinator skips lists whose effects are)")
    func effectsAreEmptyOnlyWithoutAnyField() {
        #expect(ListEffects().isEmpty)
        let header = ListHeader(seed: 1, baseCount: 2, version: 1, nextID: 2, lastSequence: 0)
        let item = WrittenItem(overrides: ItemOverrides(label: "x"), revision: 1)
        let changes: [(inout ListEffects) -> Void] = [
            { $0.drop = true }, { $0.wipe = true }, { $0.written[5] = item }, { $0.deleted = [5] },
            { $0.changes = [Change(sequence: 1, event: .deleted(5))] }, { $0.header = header },
        ]
        for (index, change) in changes.enumerated() {
            var effects = ListEffects()
            change(&effects)
            #expect(!effects.isEmpty, "field \(index)")
            #expect(effects != ListEffects(), "field \(index)")
        }
    }
}
