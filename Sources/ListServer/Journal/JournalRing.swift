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
    /// When the earliest request of the first collection since the journal began (or was emptied) arrived: `t_ms`
    /// counts from it. Fixed then, so the `t_ms` of an entry already sent never changes; a request that started
    /// before it and was answered after that collection (rare: an app's first request is its first page) gets 0.
    private(set) var origin: Int64?
    /// When an entry was last added or the journal emptied (microseconds, as the entries' times): idle journals go.
    private(set) var lastActivity: Int64 = .min
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

    /// Adds a collection's entries of this dataset, numbered, writing over the oldest when full; returns them as
    /// numbered if `returning` (for the journal's streams), else nothing.
    mutating func append(contentsOf entries: [JournalEntry], returning: Bool = true) -> [JournalEntry] {
        if origin == nil { origin = entries.lazy.map(\.start).min() }
        lastActivity = max(lastActivity, entries.lazy.map(\.end).max() ?? .min)
        let first = nextSeq
        for entry in entries { append(entry) }
        guard returning else { return [] }
        return (first..<nextSeq).suffix(storage.count).map { storage[index(of: $0)] }
    }

    /// Adds `entry`, numbered, writing over the oldest when full.
    private mutating func append(_ entry: JournalEntry) {
        bytes += entry.footprint
        if storage.count < capacity {
            storage.append(entry)
            storage[storage.count - 1].seq = nextSeq
        } else {
            bytes -= storage[head].footprint
            storage[head] = entry
            storage[head].seq = nextSeq
            head = (head + 1) % capacity
        }
        nextSeq += 1
    }

    /// Where the kept entry numbered `seq` is in ``storage``.
    private func index(of seq: UInt64) -> Int {
        let offset = Int(seq - firstSeq)
        return storage.count < capacity ? offset : (head + offset) % capacity
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

    /// Empties the ring at `now` (microseconds); numbering goes on, and `t_ms` starts again at the next request.
    mutating func removeAll(at now: Int64) {
        storage = []
        head = 0
        bytes = 0
        origin = nil
        lastActivity = now
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

    /// Every entry, oldest first.
    var all: [JournalEntry] {
        storage.count < capacity || head == 0 ? storage : Array(storage[head...] + storage[..<head])
    }
}
