import ListDomain
import Synchronization

/// One loop's buffer of requests on their way to the journal: the loop appends, and whoever collects (the loop
/// itself every ``Journal/collectAfter`` or when the buffer is full, a reader of the journal at any time) takes them
/// all at once.
///
/// A lock that only its own loop takes on the request path (a reader takes it a few times a second at most), so
/// recording a request costs an uncontended lock and an append of plain bytes to storage kept between collections:
/// the slots go in one array; what some requests have besides (a dataset other than the default list, an
/// ``JournalSlot/Extra``) in another, by slot.
final class JournalShard: Sendable {
    /// The records a loop holds before it collects them itself.
    static let limit = 1024

    /// What a loop hands over: its slots, in the order of their answers, and the tags of those that have one.
    struct Batch: Sendable {
        var slots: [JournalSlot] = []
        var tags: [Tag] = []

        mutating func removeAll() {
            slots.removeAll(keepingCapacity: true)
            tags.removeAll(keepingCapacity: true)
        }
    }

    /// The dataset and the extra of the slot at `index`, for a slot of a dataset other than the default list or with
    /// an extra.
    struct Tag: Sendable {
        let index: Int
        let dataset: String
        let extra: JournalSlot.Extra?
    }

    /// What the loop appends to, and the storage the last collection gave back, swapped in at the next one: no
    /// buffer is allocated in the steady state (a fresh one per collection, 200 KiB, cost page faults each time).
    private let buffers: Mutex<(records: Batch, spare: Batch)>

    /// Where the next request's slot and tag go, and the headers of the arrays they go in (their counts, read to
    /// append): addresses, for ``prefetchNext()``, set by whoever changes the buffer, read by its loop alone. Atomic
    /// only so that a collection's changes are no data race: an address gone stale costs a wasted fetch.
    private let nextSlot = Atomic<UInt>(0)
    private let slotsHeader = Atomic<UInt>(0)
    private let nextTag = Atomic<UInt>(0)
    private let tagsHeader = Atomic<UInt>(0)

    /// Where ``prefetchNext()`` expects the next slot and tag (0: no tag yet), for tests.
    var nextAddresses: (slot: UInt, tag: UInt) { (nextSlot.load(ordering: .relaxed), nextTag.load(ordering: .relaxed)) }

    init() {
        // Room for a full buffer's slots and tags (a request to a dataset other than the default list has a tag):
        // neither array grows until the buffer is fuller than a collection takes (one under way elsewhere), so the
        // addresses ``prefetchNext()`` reads stay true (each append notes them again, after any growth).
        var records = Batch()
        records.slots.reserveCapacity(Self.limit)
        records.tags.reserveCapacity(Self.limit)
        var spare = Batch()
        spare.slots.reserveCapacity(Self.limit)
        spare.tags.reserveCapacity(Self.limit)
        buffers = Mutex((records, spare))
        buffers.withLock { noteEmpty($0.records) }
    }

    /// Asks the CPU for the memory the loop's next ``append(_:dataset:extra:)`` writes (the shard's lock and the
    /// ends of its arrays), when a request arrives: by its answer the lines are in the cache. Without it the slot's
    /// stores missed the cache, and the lock's release waited for them (Memory/Prefetch.swift).
    func prefetchNext() {
        Prefetch.forWriting(Prefetch.address(of: self), bytes: Self.objectBytes)
        Prefetch.forWriting(slotsHeader.load(ordering: .relaxed), bytes: Prefetch.arrayHeaderBytes)
        Prefetch.forWriting(nextSlot.load(ordering: .relaxed), as: JournalSlot.self)
        let tag = nextTag.load(ordering: .relaxed)
        guard tag != 0 else { return }
        Prefetch.forWriting(tagsHeader.load(ordering: .relaxed), bytes: Prefetch.arrayHeaderBytes)
        Prefetch.forWriting(tag, as: Tag.self)
    }

    /// Notes where `records`' next slot goes and, when `tagged` (a tag was just appended), its next tag: the ends of
    /// their arrays, for ``prefetchNext()``. The tags' array is read only then: a loop that records only the default
    /// list's requests never touches it, and reading its count at every request missed the cache (perf).
    private func noteNext(_ records: borrowing Batch, tagged: Bool) {
        if let (header, next) = Prefetch.ends(of: records.slots) {
            slotsHeader.store(header, ordering: .relaxed)
            nextSlot.store(next, ordering: .relaxed)
        }
        guard tagged, let (header, next) = Prefetch.ends(of: records.tags) else { return }
        tagsHeader.store(header, ordering: .relaxed)
        nextTag.store(next, ordering: .relaxed)
    }

    /// Notes that `records` is a buffer with nothing in it yet (and no tag to fetch for).
    private func noteEmpty(_ records: borrowing Batch) {
        noteNext(records, tagged: false)
        nextTag.store(0, ordering: .relaxed)
    }

    /// What the shard's own fields take.
    private static let objectBytes = 64

    /// Records the request opened as `slot` and `tag` (``Journal/open(_:route:slot:tag:)``), answered with `response`
    /// at slot times `times` (`abandonedAt`: the body bytes the client got before it left); returns how many requests
    /// the buffer holds then.
    ///
    /// The slot is closed in a copy and copied into the buffer (plain bytes, one `memcpy` each). Made in place by a
    /// closure called under the lock, it saved a copy, but the closure was handed copies of the exchange and the
    /// answer whenever the optimizer did not inline it (callgrind: 1,000 instructions a page). Here, not in the
    /// ``Journal``: the loop's call then holds no reference to the journal (two retains and releases a page).
    func record(
        _ slot: borrowing JournalSlot, tag: Journal.SlotTag?, _ response: borrowing HTTPResponse,
        times: (start: Int64, end: Int64), abandonedAt: Int?
    ) -> Int {
        var closed = copy slot
        var extra = tag?.extra
        closed.close(response, times: times, abandonedAt: abandonedAt, extra: &extra)
        return append(closed, dataset: tag?.dataset ?? ListRegistry.defaultList, extra: extra)
    }

    /// Appends a request; returns how many the buffer holds now.
    func append(_ slot: JournalSlot, dataset: String, extra: JournalSlot.Extra?) -> Int {
        buffers.withLock { buffers in
            let tagged = !dataset.isEmpty || extra != nil
            if tagged {
                buffers.records.tags.append(Tag(index: buffers.records.slots.count, dataset: dataset, extra: extra))
            }
            buffers.records.slots.append(slot)
            noteNext(buffers.records, tagged: tagged)
            return buffers.records.slots.count
        }
    }

    /// Takes every request, leaving the buffer empty with the spare storage; give it back with ``recycle(_:)``.
    func take() -> Batch {
        buffers.withLock { buffers in
            guard !buffers.records.slots.isEmpty else { return Batch() }
            var taken = Batch()
            swap(&taken, &buffers.spare)
            swap(&taken, &buffers.records)
            noteEmpty(buffers.records)
            return taken
        }
    }

    /// Keeps `batch`'s storage (emptied, and no longer referenced elsewhere) for the next ``take()``.
    func recycle(_ batch: Batch) {
        buffers.withLock { buffers in
            if buffers.spare.slots.capacity < batch.slots.capacity { buffers.spare = batch }
        }
    }
}
