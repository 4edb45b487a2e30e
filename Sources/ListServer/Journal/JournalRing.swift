/// One dataset's journal: its latest entries, oldest first, at most a capacity of them.
///
/// A ring over an array that grows to the capacity and is then written over in place, so a full journal
/// allocates nothing more per entry.
struct JournalRing: Sendable {
    private(set) var storage: [JournalEntry] = []
    /// Where the oldest entry is, once the storage is full.
    private var head = 0
    let capacity: Int
    /// The number the next entry gets.
    private(set) var nextSeq: UInt64 = 1
    /// When the earliest request taken in since the journal began (or was emptied) arrived: `t_ms` counts from it.
    private(set) var origin: Int64?
    /// What the entries take (``JournalEntry/footprint``).
    private(set) var bytes = 0
    /// When an entry was last added, in the journal's own count of collections: the ring added to longest ago
    /// loses entries first when every journal together takes too much.
    var lastAdded: UInt64 = 0

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    var count: Int { storage.count }
    var isEmpty: Bool { storage.isEmpty }

    /// The number of the oldest entry kept (``nextSeq`` when there is none).
    var firstSeq: UInt64 { nextSeq - UInt64(storage.count) }

    /// Adds `entry`, numbered, writing over the oldest when full; returns it as numbered.
    mutating func append(_ entry: JournalEntry) -> JournalEntry {
        var entry = entry
        entry.seq = nextSeq
        nextSeq += 1
        origin = min(origin ?? entry.start, entry.start)  // answers come in out of order: the earliest start
        bytes += entry.footprint
        if storage.count < capacity {
            storage.append(entry)
        } else {
            bytes -= storage[head].footprint
            storage[head] = entry
            head = (head + 1) % capacity
        }
        return entry
    }

    /// Removes the oldest entries until they took `wanted` bytes or the ring is empty; returns the bytes freed.
    mutating func removeOldest(freeing wanted: Int) -> Int {
        storage = all  // unwrapped once, so the array shrinks from the front
        head = 0
        var freed = 0
        var removed = 0
        while removed < storage.count, freed < wanted {
            freed += storage[removed].footprint
            removed += 1
        }
        storage.removeFirst(removed)
        bytes -= freed
        return freed
    }

    /// Empties the ring; numbering goes on, and `t_ms` starts again at the next request.
    mutating func removeAll() {
        storage = []
        head = 0
        bytes = 0
        origin = nil
    }

    /// The entries numbered after `since`, oldest first, at most `limit` of them, that `include` keeps.
    func entries(after since: UInt64, limit: Int, where include: (JournalEntry) -> Bool) -> [JournalEntry] {
        var found: [JournalEntry] = []
        let count = storage.count
        guard count > 0 else { return found }
        let skip = since >= firstSeq ? Int(min(since - firstSeq + 1, UInt64(count))) : 0
        var offset = skip
        while offset < count, found.count < limit {
            let entry = storage[(head + offset) % count]
            if include(entry) { found.append(entry) }
            offset += 1
        }
        return found
    }

    /// When the newest entry's answer was done (`Int64.min` for an empty ring).
    var newestEnd: Int64 {
        guard !storage.isEmpty else { return .min }
        return storage[storage.count < capacity ? storage.count - 1 : (head + capacity - 1) % capacity].end
    }

    /// Every entry, oldest first.
    var all: [JournalEntry] {
        storage.count < capacity || head == 0 ? storage : Array(storage[head...] + storage[..<head])
    }
}
