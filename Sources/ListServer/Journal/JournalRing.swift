/// One dataset's journal: its latest requests (``JournalSlot``s), oldest first, at most a capacity of them.
///
/// A ring over an array that grows to the capacity and is then written over in place, so a full journal
/// allocates nothing more per entry.
struct JournalRing: Sendable {
    private(set) var storage: [JournalSlot] = []
    /// Where the oldest entry is, once the storage is full.
    private var head = 0
    let capacity: Int
    /// The number the next entry gets.
    private(set) var nextSeq: UInt64 = 1
    /// When the earliest request of the first collection since the journal began (or was emptied) arrived: `t_ms`
    /// counts from it. Fixed then, so the `t_ms` of an entry already sent never changes; a request that started
    /// before it and was answered after that collection (rare: an app's first request is its first page) gets 0.
    var origin: ContinuousClock.Instant? { hasOrigin ? JournalSlot.instant(originTime) : nil }
    /// When an entry was last added or the journal emptied: idle journals go.
    var lastActivity: ContinuousClock.Instant? { hasActivity ? JournalSlot.instant(lastActivityTime) : nil }
    // Kept as slot times with flags (``JournalSlot/start``): compared with each slot's as it is added.
    private var originTime: Int64 = 0
    private var hasOrigin = false
    private var lastActivityTime: Int64 = 0
    private var hasActivity = false
    /// The extras of the slots that have one, by `seq`.
    private(set) var extras: [UInt64: JournalSlot.Extra] = [:]
    /// The collection that set ``origin``.
    private var originCollection: UInt64 = 0
    /// What the slots and their extras take (``JournalSlot/footprint(extra:)``).
    private(set) var bytes = 0
    /// When an entry was last added, in the journal's own count of collections: the ring added to longest ago
    /// loses entries first when every journal together takes too much.
    var lastAdded: UInt64 = 0

    /// What a journal takes beyond its slots (its table entry, its arrays' headers), counted in ``bytes``.
    static let overhead = 512

    /// A journal numbering from `firstSeq`.
    init(capacity: Int, firstSeq: UInt64 = 1) {
        self.capacity = max(1, capacity)
        nextSeq = firstSeq
        bytes = Self.overhead
    }

    var count: Int { storage.count }
    var isEmpty: Bool { storage.isEmpty }

    /// The number of the oldest entry kept (``nextSeq`` when there is none).
    var firstSeq: UInt64 { nextSeq - UInt64(storage.count) }

    /// Adds one request of collection number `collection` (and its extra), numbered, writing over the oldest when
    /// full. The origin is the earliest start of the first collection that added any.
    ///
    /// The slot is copied once, as bytes, from where the collection holds it to where it goes, and numbered there.
    mutating func add(_ slot: UnsafePointer<JournalSlot>, extra: JournalSlot.Extra?, collection: UInt64) {
        let (start, end) = (slot.pointer(to: \.start)!.pointee, slot.pointer(to: \.end)!.pointee)
        if !hasOrigin || originCollection == collection {
            if !hasOrigin || start < originTime { originTime = start }
            hasOrigin = true
            originCollection = collection
        }
        if !hasActivity || lastActivityTime < end {
            lastActivityTime = end
            hasActivity = true
        }
        if let extra { extras[nextSeq] = extra }
        let seq = nextSeq
        if storage.count < capacity {
            bytes += JournalSlot.footprint(extra: extra)
            storage.append(slot.pointee)  // until the ring is full
            storage.withUnsafeMutableBufferPointer { $0[$0.count - 1].seq = seq }
        } else {
            // The slot written over is the oldest, numbered `firstSeq`: its extra is found by that number, without
            // reading the slot from cold memory (perf: the read missed the cache at every slot of a collection).
            // A slot takes the place of one of the same size: only extras change what the ring takes.
            if let extra { bytes += extra.footprint }
            if !extras.isEmpty, let gone = extras.removeValue(forKey: firstSeq) { bytes -= gone.footprint }
            let index = head
            head = head + 1 == capacity ? 0 : head + 1
            storage.withUnsafeMutableBufferPointer { Self.writeOver($0, at: index, with: slot, numbered: seq) }
        }
        nextSeq += 1
    }

    /// Copies `slot` over the full ring `storage`'s slot at `index`, as bytes, numbered `seq`. The ring's memory was
    /// last written a ring's worth of requests ago: the slot ``Journal/fetchAhead`` on is asked for (its place
    /// wrapped by subtraction: a division a slot took longer than the rest of the arithmetic here).
    @inline(__always)
    private static func writeOver(
        _ storage: UnsafeMutableBufferPointer<JournalSlot>, at index: Int, with slot: UnsafePointer<JournalSlot>,
        numbered seq: UInt64
    ) {
        let place = storage.baseAddress! + index
        UnsafeMutableRawPointer(place).copyMemory(from: slot, byteCount: MemoryLayout<JournalSlot>.size)
        place.pointer(to: \.seq)!.pointee = seq
        var ahead = index + Journal.fetchAhead
        while ahead >= storage.count { ahead -= storage.count }
        Prefetch.forWriting(UInt(bitPattern: storage.baseAddress! + ahead), as: JournalSlot.self)
    }

    /// Adds the slots of `runs` (each in the order of its answers) in the order of their answers, a merge by their
    /// ends, as ``add(_:extra:collection:)`` would one by one: every slot of this ring's dataset and none with an
    /// extra (a collection of the default list's requests, nearly every one). Returns how many it wrote over.
    ///
    /// Once the ring is full, the storage is opened once for all of them and the origin and the last activity are
    /// settled once, from the earliest start and the latest end: slot by slot, through the collection's writer and
    /// ``add(_:extra:collection:)``, each cost 400 instructions (callgrind), most of it that bookkeeping.
    mutating func addPlain(_ runs: [UnsafeBufferPointer<JournalSlot>], collection: UInt64) -> Int {
        var heads = [Int](repeating: 0, count: runs.count)
        var left = runs.reduce(0) { $0 + $1.count }
        for run in runs { Journal.prefetch(run, from: 0, count: Journal.fetchAhead) }
        while left > 0 && storage.count < capacity {  // the storage grows: one at a time
            let (run, index) = Journal.takeEarliest(runs, &heads)
            add(runs[run].baseAddress! + index, extra: nil, collection: collection)
            left -= 1
        }
        guard left > 0 else { return 0 }
        let (overwritten, firstGone) = (left, firstSeq)
        var (index, seq) = (head, nextSeq)
        var (earliestStart, latestEnd) = (Int64.max, Int64.min)
        let capacity = capacity
        storage.withUnsafeMutableBufferPointer { storage in
            while left > 0 {
                let (run, place) = Journal.takeEarliest(runs, &heads)
                let slot = runs[run].baseAddress! + place
                earliestStart = min(earliestStart, slot.pointer(to: \.start)!.pointee)
                latestEnd = max(latestEnd, slot.pointer(to: \.end)!.pointee)
                Self.writeOver(storage, at: index, with: slot, numbered: seq)
                seq += 1
                index = index + 1 == capacity ? 0 : index + 1
                left -= 1
            }
        }
        (head, nextSeq) = (index, seq)
        if originCollection == collection && earliestStart < originTime { originTime = earliestStart }
        if lastActivityTime < latestEnd { lastActivityTime = latestEnd }
        // The slots written over were numbered from `firstGone` on; those with an extra lose it. Only the ring's
        // earlier slots can have one (this collection's have none), at most a ring's worth.
        if !extras.isEmpty {
            for gone in firstGone..<firstGone + UInt64(min(overwritten, capacity)) {
                if let extra = extras.removeValue(forKey: gone) { bytes -= extra.footprint }
            }
        }
        return overwritten
    }

    /// Takes the slot at `index`, about to be removed, out of the count, and its extra with it.
    private mutating func forget(at index: Int) {
        let (flags, seq) = storage.withUnsafeBufferPointer { ($0[index].flags, $0[index].seq) }
        let extra = flags.contains(.extra) ? extras.removeValue(forKey: seq) : nil
        bytes -= JournalSlot.footprint(extra: extra)
    }

    /// The newest request (the ring must not be empty).
    var newest: Kept { kept(at: index(of: nextSeq - 1)) }

    /// A slot with its extra.
    struct Kept: Sendable {
        let slot: JournalSlot
        let extra: JournalSlot.Extra?
    }

    private func kept(at index: Int) -> Kept {
        let slot = storage[index]
        return Kept(slot: slot, extra: slot.flags.contains(.extra) ? extras[slot.seq] : nil)
    }

    /// Where the kept entry numbered `seq` is in ``storage``.
    private func index(of seq: UInt64) -> Int {
        let offset = Int(seq - firstSeq)
        return storage.count < capacity ? offset : (head + offset) % capacity
    }

    /// Removes the oldest entries until they took `wanted` bytes or the ring is empty; returns the bytes freed.
    mutating func removeOldest(freeing wanted: Int) -> Int {
        storage = storage.count < capacity || head == 0 ? storage : Array(storage[head...] + storage[..<head])
        head = 0  // unwrapped once, so the array shrinks from the front
        let before = bytes
        var removed = 0
        while removed < storage.count, before - bytes < wanted {
            forget(at: removed)
            removed += 1
        }
        storage.removeFirst(removed)
        return before - bytes
    }

    /// Empties the ring at `now`; numbering goes on, and `t_ms` starts again at the next request.
    mutating func removeAll(at now: ContinuousClock.Instant) {
        storage = []
        extras = [:]
        head = 0
        bytes = Self.overhead
        hasOrigin = false
        lastActivityTime = JournalSlot.time(now)
        hasActivity = true
    }

    /// The entries numbered after `since`, oldest first, at most `limit` of them.
    func entries(after since: UInt64, limit: Int) -> [Kept] {
        var found: [Kept] = []
        let count = storage.count
        guard count > 0 else { return found }
        let skip = since >= firstSeq ? Int(min(since - firstSeq + 1, UInt64(count))) : 0
        var offset = skip
        while offset < count, found.count < limit {
            found.append(kept(at: (head + offset) % count))
            offset += 1
        }
        return found
    }

    /// Every entry, oldest first.
    var all: [Kept] { entries(after: 0, limit: .max) }
}
