import ListDomain
import Testing

/// The checks of a dataset's life beyond its writes: read by name on first use, last uses, idle lists, summaries,
/// and removal with every row.
extension ListStoreConformance {
    /// The names come back without the rows; one list's rows by its name, exactly those; an unknown name is nil.
    func listsByName() async throws {
        let store = try await open()
        var batch = Self.batch("a", Self.effects(header: Self.header(lastSequence: 2), written: [1: Self.everyField]))
        batch.lists["b"] = Self.effects(header: Self.header(nextID: 120, lastSequence: 1), deleted: [3, 7])
        batch.lists[""] = Self.effects(header: Self.header(lastSequence: 1), written: [5: Self.labelOnly])
        try await store.commit(batch)
        #expect(Set(try await store.listNames()) == ["a", "b", ""])
        #expect(
            try await store.loadList("a")
                == StoredList(header: Self.header(lastSequence: 2), written: [1: Self.everyField]))
        #expect(
            try await store.loadList("b")
                == StoredList(header: Self.header(nextID: 120, lastSequence: 1), deleted: [3, 7]))
        #expect(try await store.loadList("")?.written == [5: Self.labelOnly])
        #expect(try await store.loadList("c") == nil)
        #expect(try await store.loadList("a ") == nil)  // names compare exactly
        await store.close()
    }

    /// Last uses: a later one replaces an earlier one, never the other way; unrecorded ones are stamped with the
    /// time of the record; idle lists are the datasets at or before the cutoff, least recently used first, never
    /// the default list; a use of a list without rows makes none; summaries count what each holds.
    func usesAndIdleLists() async throws {
        let store = try await open()
        var batch = CommitBatch(now: Self.now)
        for name in ["", "old", "older", "fresh"] {
            batch.lists[name] = Self.effects(
                header: Self.header(nextID: 103, lastSequence: 2), written: [100: Self.everyField],
                deleted: [101],
                changes: [
                    Change(sequence: 1, event: .created(Self.item(100))), Change(sequence: 2, event: .deleted(101)),
                ])
        }
        try await store.commit(batch)
        func at(_ seconds: Int64) -> WallTime { WallTime(milliseconds: Self.now.milliseconds + seconds * 1000) }
        // Nothing is recorded yet: nothing is idle, whatever the cutoff.
        #expect(try await store.idleLists(before: at(1_000_000), limit: 10).isEmpty)
        try await store.recordUse(["older": at(10), "old": at(20), "nobody": at(30)], now: at(100))
        try await store.recordUse(["old": at(5)], now: at(200))  // earlier than recorded: ignored
        #expect(try await store.idleLists(before: at(9), limit: 10).isEmpty)
        #expect(try await store.idleLists(before: at(20), limit: 10) == ["older", "old"])
        #expect(try await store.idleLists(before: at(20), limit: 1) == ["older"])
        // "fresh" (and the default list, never idle) were stamped with the first record's time.
        #expect(try await store.idleLists(before: at(100), limit: 10) == ["older", "old", "fresh"])
        #expect(try await store.listNames().contains("nobody") == false)

        let summaries = try await store.datasetSummaries(after: nil, limit: 10)
        #expect(summaries.map(\.name) == ["fresh", "old", "older"])
        let old = try #require(summaries.first { $0.name == "old" })
        #expect(old.liveCount == 102 && old.writtenCount == 1 && old.lastUsed == at(20))
        let text =
            (Self.everyField.overrides.label?.utf8.count ?? 0) + (Self.everyField.overrides.author?.utf8.count ?? 0)
        #expect(old.bytes >= UInt64(text) && old.bytes < UInt64(text + 1_000), "\(old.bytes)")
        #expect(try await store.datasetSummaries(after: "fresh", limit: 1).map(\.name) == ["old"])
        #expect(try await store.datasetSummaries(after: "older", limit: 10).isEmpty)
        await store.close()
    }

    /// A drop with no header after it removes the list from every table, its header and last use too: it is as if
    /// never written (another list stays).
    func removal() async throws {
        let store = try await open()
        var batch = CommitBatch(
            idempotency: [
                IdempotencyKey(list: "gone", key: "k"): IdempotencyRecord(
                    fingerprint: [1], answer: [2], createdAt: Self.now)
            ],
            now: Self.now)
        for name in ["gone", "kept"] {
            batch.lists[name] = Self.effects(
                header: Self.header(lastSequence: 1), written: [1: Self.labelOnly],
                changes: [Change(sequence: 1, event: .created(Self.item(1)))])
        }
        try await store.commit(batch)
        try await store.recordUse(["gone": Self.now, "kept": Self.now], now: Self.now)
        try await store.commit(Self.batch("gone", Self.effects(header: nil, drop: true)))
        #expect(try await store.listNames().sorted() == ["kept"])
        #expect(try await store.loadList("gone") == nil)
        #expect(try await store.changes(of: "gone", after: 0, limit: 10) == ChangeWindow(changes: [], oldestKept: nil))
        let key = IdempotencyKey(list: "gone", key: "k")
        #expect(try await store.idempotencyRecords([key], now: Self.now, maxAge: .seconds(60)).isEmpty)
        #expect(try await store.idleLists(before: Self.now, limit: 10) == ["kept"])
        #expect(try await store.datasetSummaries(after: nil, limit: 10).map(\.name) == ["kept"])
        #expect(try await store.datasetsHoldingWrites() == 1)
        // A drop that keeps a header (a reset change after it) holds no writes; the default list never counts.
        let reset = Change(sequence: 2, event: .reset(ListReset(version: 2, seed: 42, count: 100)))
        var tombstone = Self.batch(
            "kept", Self.effects(header: Self.header(version: 2, lastSequence: 2), changes: [reset], drop: true))
        tombstone.lists[""] = Self.effects(header: Self.header(nextID: 101, lastSequence: 1))
        try await store.commit(tombstone)
        #expect(try await store.listNames().sorted() == ["", "kept"])
        #expect(try await store.datasetsHoldingWrites() == 0)
        await store.close()
    }
}
