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

    init() {
        var records = Batch()
        records.slots.reserveCapacity(Self.limit)
        var spare = Batch()
        spare.slots.reserveCapacity(Self.limit)
        buffers = Mutex((records, spare))
    }

    /// Appends a request; returns how many the buffer holds now.
    func append(_ slot: JournalSlot, dataset: String, extra: JournalSlot.Extra?) -> Int {
        buffers.withLock { buffers in
            if !dataset.isEmpty || extra != nil {
                buffers.records.tags.append(Tag(index: buffers.records.slots.count, dataset: dataset, extra: extra))
            }
            buffers.records.slots.append(slot)
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
