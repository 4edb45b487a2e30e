import ListDomain
import Testing

/// The naive model of ``DeletedIDs``: a sorted array, searched by walking it.
private struct NaiveDeleted {
    var sorted: [UInt64] = []
    var set: Set<UInt64> = []

    mutating func insert(_ id: UInt64) -> Bool {
        guard set.insert(id).inserted else { return false }
        sorted.insert(id, at: sorted.partitioningIndex { $0 > id })
        return true
    }

    func countBelow(_ id: UInt64) -> Int { sorted.firstIndex { $0 >= id } ?? sorted.count }

    /// The `rank`-th id (from 0) not in the set, or `UInt64.max` when that would pass the end of `UInt64`.
    func liveID(atRank rank: UInt64) -> UInt64 {
        var id = rank
        for deleted in sorted {
            guard deleted <= id else { break }
            guard id < .max else { return .max }
            id += 1
        }
        return id
    }

    func ids(in range: Range<UInt64>) -> [UInt64] { sorted.filter { range.contains($0) } }
}

extension Array {
    /// The first index whose element satisfies `isAbove` (a predicate false then true along the array).
    fileprivate func partitioningIndex(where isAbove: (Element) -> Bool) -> Int {
        var low = 0
        var high = count
        while low < high {
            let mid = (low + high) / 2
            if isAbove(self[mid]) { high = mid } else { low = mid + 1 }
        }
        return low
    }
}

/// Draws ids the way deletions come: scattered, in clustered runs, near the top of `UInt64`, and repeated.
private struct IDSource {
    var generator: SplitMix64
    var drawn: [UInt64] = []

    mutating func next(into deleted: inout DeletedIDs, model: inout NaiveDeleted) {
        let kind = generator.next() % 10
        var ids: [UInt64] = []
        switch kind {
        case 0...3:  // scattered over a range small enough that neighbours meet
            ids = [generator.next() % 50_000]
        case 4, 5:  // a run of consecutive ids (deleting a stretch of the list)
            let start = generator.next() % 60_000
            ids = Array(start..<(start + 1 + generator.next() % 400))
        case 6:  // near the top of UInt64
            ids = [UInt64.max - generator.next() % 2_000]
        case 7:  // anywhere at all
            ids = [generator.next()]
        default:  // an id deleted before, again
            ids = drawn.isEmpty ? [0] : [drawn[Int(generator.next() % UInt64(drawn.count))]]
        }
        if generator.next() % 2 == 0 { ids.reverse() }
        for id in ids {
            let inserted = deleted.insert(id)
            #expect(inserted == model.insert(id), "insert(\(id))")
            drawn.append(id)
        }
    }
}

/// Query points that matter for `model`: around every stored id and at the ends of `UInt64`.
private func probes(_ model: NaiveDeleted, generator: inout SplitMix64, count: Int) -> [UInt64] {
    var probes: [UInt64] = [0, 1, .max, .max - 1]
    for _ in 0..<count {
        guard !model.sorted.isEmpty else { break }
        let near = model.sorted[Int(generator.next() % UInt64(model.sorted.count))]
        probes += [near, near &- 1, near &+ 1]
        probes.append(generator.next() % 70_000)
    }
    return probes
}

/// Checks every query of `deleted` against `model`.
private func check(
    _ deleted: DeletedIDs, against model: NaiveDeleted, generator: inout SplitMix64, probeCount: Int = 60,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(deleted.count == model.sorted.count, sourceLocation: sourceLocation)
    #expect(deleted.isEmpty == model.sorted.isEmpty, sourceLocation: sourceLocation)
    #expect(deleted.all == model.sorted, sourceLocation: sourceLocation)
    for id in probes(model, generator: &generator, count: probeCount) {
        #expect(deleted.contains(id) == model.set.contains(id), "contains(\(id))", sourceLocation: sourceLocation)
        #expect(deleted.countBelow(id) == model.countBelow(id), "countBelow(\(id))", sourceLocation: sourceLocation)
    }
    // Ranks: small ones, ones landing in and after every run, and ones whose id would pass UInt64.max.
    var ranks: [UInt64] = [0, 1, 2, .max, .max - 1, .max - UInt64(model.sorted.count)]
    for _ in 0..<probeCount {
        ranks.append(generator.next() % 70_000)
        ranks.append(.max - generator.next() % 3_000)
    }
    for rank in ranks {
        #expect(
            deleted.liveID(atRank: rank) == model.liveID(atRank: rank), "liveID(atRank: \(rank))",
            sourceLocation: sourceLocation)
    }
    for _ in 0..<probeCount / 4 {
        let bounds = [generator.next() % 70_000, generator.next() % 70_000].sorted()
        let range = bounds[0]..<bounds[1]
        #expect(
            Array(deleted.ids(in: range)) == model.ids(in: range), "ids(in: \(range))", sourceLocation: sourceLocation)
    }
    let top = (UInt64.max - 2_500)..<UInt64.max
    #expect(Array(deleted.ids(in: top)) == model.ids(in: top), sourceLocation: sourceLocation)
    #expect(Array(deleted.ids(in: 0..<UInt64.max)) == model.ids(in: 0..<UInt64.max), sourceLocation: sourceLocation)
    #expect(Array(deleted.ids(in: 5..<5)).isEmpty, sourceLocation: sourceLocation)
}

@Suite("DeletedIDs")
struct DeletedIDsTests {
    @Test func emptyDeletesNothing() {
        let deleted = DeletedIDs()
        #expect(deleted.isEmpty && deleted.count == 0 && deleted.all.isEmpty)
        #expect(!deleted.contains(0) && !deleted.contains(.max))
        #expect(deleted.countBelow(0) == 0 && deleted.countBelow(.max) == 0)
        #expect(deleted.liveID(atRank: 0) == 0)
        #expect(deleted.liveID(atRank: 12_345) == 12_345)
        #expect(deleted.liveID(atRank: .max) == .max)
        #expect(Array(deleted.ids(in: 0..<UInt64.max)).isEmpty)
        #expect(deleted == DeletedIDs(sorted: []))
    }

    @Test func smallExample() {
        var deleted = DeletedIDs()
        let inserted = [5, 2, 3, 9, 3].map { deleted.insert($0) }
        #expect(inserted == [true, true, true, true, false])
        #expect(deleted.all == [2, 3, 5, 9])
        // Live: 0 1 4 6 7 8 10 11 …
        #expect((0..<8).map { deleted.liveID(atRank: $0) } == [0, 1, 4, 6, 7, 8, 10, 11])
        #expect(deleted.countBelow(4) == 2 && deleted.countBelow(5) == 2 && deleted.countBelow(6) == 3)
        #expect(Array(deleted.ids(in: 3..<9)) == [3, 5])
    }

    @Test func idsAtTheTopOfUInt64() {
        var deleted = DeletedIDs()
        deleted.insert(.max)
        deleted.insert(.max - 2)
        #expect(deleted.liveID(atRank: .max - 3) == UInt64.max - 3)
        #expect(deleted.liveID(atRank: .max - 2) == UInt64.max - 1)
        // Live ids end at .max - 1: a larger rank has no id, and is answered with .max rather than a trap.
        #expect(deleted.liveID(atRank: .max - 1) == UInt64.max)
        #expect(deleted.liveID(atRank: .max) == UInt64.max)
        #expect(deleted.countBelow(.max) == 1)
        #expect(deleted.contains(.max) && !deleted.contains(.max - 1))
        #expect(Array(deleted.ids(in: (.max - 5)..<UInt64.max)) == [UInt64.max - 2])
    }

    /// Thousands of insertions of every kind, checked against the naive model as they go and at the end.
    @Test(arguments: [1, 2, 3] as [UInt64])
    func randomInsertionsMatchTheNaiveModel(seed: UInt64) {
        var source = IDSource(generator: SplitMix64(seed: seed))
        var probeGenerator = SplitMix64(seed: seed &+ 1_000)
        var deleted = DeletedIDs()
        var model = NaiveDeleted()
        var snapshots: [(DeletedIDs, NaiveDeleted)] = []
        for step in 1...1_500 {
            source.next(into: &deleted, model: &model)
            if step % 150 == 0 {
                check(deleted, against: model, generator: &probeGenerator, probeCount: 20)
                snapshots.append((deleted, model))
            }
        }
        // Enough to have split many chunks of 512.
        #expect(deleted.count > 40 * 512)
        check(deleted, against: model, generator: &probeGenerator, probeCount: 400)
        // Copies taken along the way were not changed by the insertions after them (copy-on-write).
        for (snapshot, snapshotModel) in snapshots {
            check(snapshot, against: snapshotModel, generator: &probeGenerator, probeCount: 10)
        }
    }

    /// Every rank in a dense stretch, compared one by one: the k-th live id is the k-th id not deleted.
    @Test func everyRankInADenseStretch() {
        var generator = SplitMix64(seed: 9)
        var deleted = DeletedIDs()
        var model = NaiveDeleted()
        for _ in 0..<6_000 {
            let id = generator.next() % 9_000
            #expect(deleted.insert(id) == model.insert(id))
        }
        let live = (0..<12_000).filter { !model.set.contains($0) } as [UInt64]
        for (rank, id) in live.enumerated() {
            #expect(deleted.liveID(atRank: UInt64(rank)) == id)
        }
        var below = 0
        for id in 0..<(12_000 as UInt64) {
            #expect(deleted.countBelow(id) == below)
            #expect(deleted.contains(id) == model.set.contains(id))
            if model.set.contains(id) { below += 1 }
        }
    }

    @Test(arguments: [0, 1, 255, 256, 257, 511, 512, 513, 5_000, 20_000])
    func initFromSortedEqualsInsertingOneByOne(count: Int) {
        var generator = SplitMix64(seed: UInt64(count))
        var set: Set<UInt64> = []
        while set.count < count {
            set.insert(
                generator.next() % 2 == 0 ? generator.next() % UInt64(4 * count + 1) : .max - generator.next() % 1_000)
        }
        let sorted = set.sorted()
        var oneByOne = DeletedIDs()
        var model = NaiveDeleted()
        for id in set.shuffled(using: &generator) {
            oneByOne.insert(id)
            _ = model.insert(id)
        }
        var loaded = DeletedIDs(sorted: sorted)
        #expect(loaded == oneByOne)
        #expect(loaded.all == sorted)
        check(loaded, against: model, generator: &generator)
        check(oneByOne, against: model, generator: &generator)
        // A loaded value keeps working as more ids are deleted (its chunks start half full).
        for _ in 0..<3_000 {
            let id = generator.next() % UInt64(8 * count + 10)
            #expect(loaded.insert(id) == model.insert(id))
            oneByOne.insert(id)
        }
        #expect(loaded == oneByOne)
        check(loaded, against: model, generator: &generator)
    }

    @Test func equalityIsBySetOfIdsNotByLayout() {
        var generator = SplitMix64(seed: 4)
        let ids = (0..<3_000).map { _ in generator.next() % 100_000 }
        var forwards = DeletedIDs()
        var backwards = DeletedIDs()
        for id in ids { forwards.insert(id) }
        for id in ids.reversed() { backwards.insert(id) }
        #expect(forwards == backwards)
        #expect(forwards == DeletedIDs(sorted: Set(ids).sorted()))
        var more = forwards
        more.insert(100_001)
        #expect(more != forwards)
        var other = backwards
        other.insert(100_002)
        #expect(more != other)
        #expect(DeletedIDs() != forwards)
    }
}
