/// One list as the server holds it: its generated catalog, and the writes laid over it.
///
/// Ids `0..<nextID` have been handed out, by the generated catalog (`0..<baseCount`), by `POST /items` and by
/// growth, in one sequence. An id is live unless it is in ``deleted``; a live id's item is the generated one with
/// its ``written`` fields, if any, laid over it. Readers take a copy (cheap: the tables are copy-on-write, and a
/// writer's insertion copies one chunk of deletions) and answer from it, so every response is consistent with one
/// state.
public struct ListState: Sendable, Equatable {
    /// Seed, counts, version and last change.
    public var header: ListHeader
    /// Items with written fields, by id (never a deleted id).
    public var written: WrittenItems
    /// Deleted ids.
    public var deleted: DeletedIDs
    /// What clients wrote to the dataset's chat.
    public var chat: ChatWrites

    /// A list nobody wrote to: `count` generated items from `seed`, version 1.
    public init(seed: UInt64, count: UInt64) {
        header = ListHeader(seed: seed, baseCount: count, version: 1, nextID: count, lastSequence: 0)
        written = WrittenItems(denseFrom: count)
        deleted = DeletedIDs()
        chat = ChatWrites()
    }

    /// A list as the store loaded it.
    public init(_ stored: StoredList) {
        header = stored.header
        written = WrittenItems(stored.written, denseFrom: stored.header.baseCount)
        deleted = DeletedIDs(sorted: stored.deleted)
        chat = ChatWrites(messages: stored.messages, readMarkers: stored.readMarkers)
    }

    /// The generated catalog under the writes: every handed-out id, deleted or not.
    public var catalog: Catalog { Catalog(seed: header.seed, count: header.nextID) }

    /// Whether the list is exactly its generated catalog: no written fields and no deletions (growth aside).
    /// Pages of such a list take the generated fast path.
    public var isPristine: Bool { written.isEmpty && deleted.isEmpty }

    /// About how many bytes of memory one copy of the list holds: its written items and their text, its deleted ids,
    /// and the rest of the value. Kept as writes go (O(1)), for the memory bounds.
    public var approximateBytes: Int {
        192 + written.approximateBytes + deleted.count * 8 + (chat.isEmpty ? 0 : chat.approximateBytes)
    }

    /// The number of live items.
    public var liveCount: UInt64 { header.nextID - UInt64(deleted.count) }

    /// Whether `id` names a live item.
    public func isLive(_ id: UInt64) -> Bool {
        id < header.nextID && !deleted.contains(id)
    }

    /// The live item `id` as clients see it, or nil when it was never handed out or is deleted.
    public func item(_ id: UInt64) -> Item? {
        guard isLive(id), let generated = catalog.item(id) else { return nil }
        return written[id].map { $0.applied(to: generated) } ?? generated
    }

    /// The size and colour (0xRRGGBB) of live item `id` as clients see them, or nil when ``item(_:)`` is: the fields
    /// its image is drawn from, without making the item's text (its label, colour string and placeholder cost a
    /// cached image hit a few microseconds, `perf` under `Benchmarks/images`).
    public func imageFields(of id: UInt64) -> (width: Int, height: Int, color: UInt32)? {
        guard isLive(id), id < catalog.count else { return nil }
        let generated = ItemFields(seed: catalog.seed, id: id)
        let overrides = written[id]?.overrides
        return (
            overrides?.width ?? generated.width, overrides?.height ?? generated.height,
            overrides?.color ?? generated.color
        )
    }

    /// The revision of live item `id`: the sequence number of the change that last wrote it, 0 for one nobody
    /// wrote (part of its `ETag`).
    public func revision(of id: UInt64) -> UInt64 {
        written[id]?.revision ?? 0
    }

    /// Up to `limit` live ids going up from `first` (included), lowest first.
    ///
    /// O(limit + runs · log(deletions)): live ids are taken one by one, and a run of deleted ids, however long, is
    /// jumped with one search (``DeletedIDs/liveID(atRank:)``).
    public func liveIDs(upFrom first: UInt64, limit: Int) -> [UInt64] {
        var ids: [UInt64] = []
        guard limit > 0, first < header.nextID else { return ids }
        ids.reserveCapacity(min(limit, 1024))
        var index = deleted.countBelow(first)  // of the first deleted id >= `id`
        var rank = first - UInt64(index)  // live ids below `id`
        var id = first
        while ids.count < limit, id < header.nextID {
            if index < deleted.count, deleted.id(atIndex: index) == id {
                id = deleted.liveID(atRank: rank)
                index = deleted.countBelow(id)
                continue
            }
            ids.append(id)
            rank += 1
            id += 1
        }
        return ids
    }

    /// Up to `limit` live ids going down from just below `end`, highest first; the same cost as going up.
    public func liveIDs(downFrom end: UInt64, limit: Int) -> [UInt64] {
        var ids: [UInt64] = []
        var upper = min(end, header.nextID)  // the next candidate is `upper - 1`
        guard limit > 0 else { return ids }
        ids.reserveCapacity(min(limit, 1024))
        var index = deleted.countBelow(upper)  // deleted ids below `upper`
        while ids.count < limit, upper > 0 {
            let id = upper - 1
            if index > 0, deleted.id(atIndex: index - 1) == id {
                let liveBelow = upper - UInt64(index)
                guard liveBelow > 0 else { break }
                upper = deleted.liveID(atRank: liveBelow - 1) + 1
                index = deleted.countBelow(upper)
                continue
            }
            ids.append(id)
            upper = id
        }
        return ids
    }

    /// The number of live ids in `range` (clamped to the handed-out ids).
    public func liveCount(in range: Range<UInt64>) -> UInt64 {
        let upper = min(range.upperBound, header.nextID)
        guard range.lowerBound < upper else { return 0 }
        let dead = deleted.countBelow(upper) - deleted.countBelow(range.lowerBound)
        return upper - range.lowerBound - UInt64(dead)
    }
}
