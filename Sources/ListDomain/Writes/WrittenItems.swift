/// The items of a list with written fields, by id: created items in chunks of consecutive ids, the generated items
/// clients changed in a dictionary split into buckets.
///
/// `POST /items` hands out ids one after another from the end of the generated catalog, so the items it writes are
/// kept by position: from `denseBase` (the catalog's size) on, in chunks of ``chunkSize`` slots. Writing one is a
/// store into a slot, with no hashing and no table that rehashes as it grows. Kept in dictionaries (the bucketed
/// table below, before this split), every created item cost two dictionary insertions (the coordinator keeps two
/// copies of a list), about 650 bytes of memory, and writes grew slower as the list grew: 51 µs of server CPU a
/// write in the first 100,000 created, 64 µs past 300,000 (wrk, 64 clients, `synchronous=normal`; 48.5–50 µs at
/// every size with nothing kept, Benchmarks/HISTORY.md).
///
/// Readers hold copies of a list's state, so a write may find a table shared, and copy-on-write would copy all of
/// it. Chunks and buckets bound that: such a write copies the outer array (references) and one chunk or bucket.
///
/// Both grow with what they hold, so a small list costs little: a chunk is as long as its last written slot (up to
/// ``chunkSize``, growing as an array does), and the sparse part is one dictionary until it holds
/// ``bucketThreshold`` items, then ``bucketCount``. A dataset with one created item allocated a whole chunk of 256
/// slots, about 21 KB, and 10,000 such datasets (a week of UI tests, one each) held 231 MB.
/// (The ``WriteCoordinator`` keeps a copy of its own, so that a write finds a table shared only while a reader
/// happens to hold the copy it changes.)
public struct WrittenItems: Sendable, Equatable, ExpressibleByDictionaryLiteral {
    /// The number of buckets of the sparse part once it is large: a power of two, picked by the id's low bits mixed.
    static let bucketCount = 256
    /// How many items the sparse part holds in one dictionary before it is split into ``bucketCount``.
    static let bucketThreshold = 64
    /// Slots per chunk of the dense part: a power of two.
    static let chunkSize = 256
    /// The most chunks the dense part spans (2^28 ids past `denseBase`); ids beyond go to the sparse part, so
    /// that ids handed out by growth, however many, never make the outer array unreasonably large.
    static let maximumChunks = 1 << 20

    /// Ids below `denseBase` or past the dense span; empty until such an item is written (then one bucket, and
    /// ``bucketCount`` past ``bucketThreshold`` items): every page of a list nobody wrote to starts from a fresh
    /// state, and allocating (and freeing) 256 buckets for each made such pages 10–20 % slower
    /// (Benchmarks/HISTORY.md, scenario 1 without writes).
    private var buckets: [[UInt64: WrittenItem]] = []
    /// Ids from `denseBase` on, by position; a chunk no written item falls in is nil, and a chunk ends after the
    /// last slot written so far.
    private var chunks: [[WrittenItem?]?] = []
    /// The first id of the dense part: the size of the generated catalog, where created ids start.
    private let denseBase: UInt64
    public private(set) var count = 0
    /// About how many bytes of memory the table holds: its slots, its dictionaries' entries, and the text of its
    /// items that does not fit in a string's own 16 bytes (kept as writes go, for the coordinator's byte limit and
    /// the registry's memory budget).
    public private(set) var approximateBytes = 0

    /// The bytes a slot of the dense part takes (a `WrittenItem?`), and an entry of the sparse part (the item, its
    /// key and the dictionary's share).
    static let slotBytes = 80
    static let entryBytes = 112
    /// The bytes an entry of the chunk table takes (a chunk's array reference, or nil).
    static let chunkEntryBytes = 8

    /// No items; ids from `denseBase` on (a list's created items) are kept by position.
    public init(denseFrom denseBase: UInt64) {
        self.denseBase = denseBase
    }

    /// No items, every id kept in the dictionary (tests, and values compared with a list's).
    public init() {
        self.init(denseFrom: .max)
    }

    /// `items`, with ids from `denseBase` on kept by position.
    public init(_ items: [UInt64: WrittenItem], denseFrom denseBase: UInt64 = .max) {
        self.init(denseFrom: denseBase)
        for (id, item) in items { self[id] = item }
    }

    public init(dictionaryLiteral elements: (UInt64, WrittenItem)...) {
        self.init()
        for (id, item) in elements { self[id] = item }
    }

    public var isEmpty: Bool { count == 0 }

    public subscript(id: UInt64) -> WrittenItem? {
        get {
            if let (chunk, slot) = position(of: id) {
                guard chunk < chunks.count, let slots = chunks[chunk], slot < slots.count else { return nil }
                return slots[slot]
            }
            return buckets.isEmpty ? nil : buckets[bucket(of: id)][id]
        }
        set {
            if let (chunk, slot) = position(of: id) {
                setDense(newValue, chunk: chunk, slot: slot)
            } else {
                setSparse(newValue, id: id)
            }
        }
    }

    /// Every item, as one dictionary (tests, and the store's view).
    public var all: [UInt64: WrittenItem] {
        var all: [UInt64: WrittenItem] = [:]
        all.reserveCapacity(count)
        forEach { id, item in all[id] = item }
        return all
    }

    /// The slots of the dense part and the dictionaries of the sparse part the table holds: what its memory grows
    /// with, besides the items themselves (tests check that it grows with them).
    var allocatedSlots: (dense: Int, buckets: Int) {
        (chunks.reduce(0) { $0 + ($1?.count ?? 0) }, buckets.count)
    }

    /// Calls `body` with every item, the dense part's in id order first.
    public func forEach(_ body: (UInt64, WrittenItem) -> Void) {
        for chunk in chunks.indices {
            guard let slots = chunks[chunk] else { continue }
            for slot in slots.indices {
                if let item = slots[slot] { body(denseBase + UInt64(chunk * Self.chunkSize + slot), item) }
            }
        }
        for bucket in buckets.indices {
            for (id, item) in buckets[bucket] { body(id, item) }
        }
    }

    /// What writing an item at `id` adds to ``approximateBytes`` besides the item's text: the slots up to it (and
    /// the chunk table's room for a new chunk), or a new entry of the sparse part; 0 where the id has a place.
    public func growthBytes(at id: UInt64) -> Int {
        guard let (chunk, slot) = position(of: id) else {
            let present = buckets.isEmpty ? false : buckets[bucket(of: id)][id] != nil
            return present ? 0 : Self.entryBytes
        }
        guard chunk < chunks.count else {
            return (chunk - chunks.count + 1) * Self.chunkEntryBytes + (slot + 1) * Self.slotBytes
        }
        return max(0, slot + 1 - (chunks[chunk]?.count ?? 0)) * Self.slotBytes
    }

    /// The chunk and slot of `id` in the dense part; nil for an id the sparse part keeps.
    private func position(of id: UInt64) -> (chunk: Int, slot: Int)? {
        guard id >= denseBase else { return nil }
        let offset = id - denseBase
        guard offset < UInt64(Self.chunkSize * Self.maximumChunks) else { return nil }
        let index = Int(truncatingIfNeeded: offset)
        return (index / Self.chunkSize, index % Self.chunkSize)
    }

    /// Stores `item` in its slot by swapping it in: `item != nil` and `slot != nil` each copied the 80-byte item
    /// and destroyed the copy (its strings retained and released), six copies a store, about 1,600 instructions a
    /// created item (callgrind).
    private mutating func setDense(_ item: WrittenItem?, chunk: Int, slot: Int) {
        var item = item
        let adds = Self.holds(item)
        let textAdded = Self.textBytes(item)
        if chunk >= chunks.count {
            guard adds else { return }
            approximateBytes += (chunk - chunks.count + 1) * Self.chunkEntryBytes
            chunks.append(contentsOf: repeatElement(nil, count: chunk - chunks.count + 1))
        }
        if case .none = chunks[chunk] {
            guard adds else { return }
            chunks[chunk] = []
        }
        if slot >= chunks[chunk]!.count {
            guard adds else { return }
            // Room up to this slot: ids are handed out one after another, so this is nearly always one more slot,
            // and the array's own growth (doubling) keeps that amortized.
            let added = slot - chunks[chunk]!.count + 1
            chunks[chunk]!.append(contentsOf: repeatElement(nil, count: added))
            approximateBytes += added * Self.slotBytes
        }
        swap(&item, &chunks[chunk]![slot])  // `item` is now what the slot held
        count += (adds ? 1 : 0) - (Self.holds(item) ? 1 : 0)
        approximateBytes += textAdded - Self.textBytes(item)
    }

    /// The bytes `item`'s text takes beyond the strings' own (a string of up to 15 bytes is kept inline), and its
    /// upload's description (``uploadBytes``).
    private static func textBytes(_ item: WrittenItem?) -> Int {
        heapBytes(item?.overrides.label?.utf8.count) + heapBytes(item?.overrides.author?.utf8.count)
            + (item?.image == nil ? 0 : uploadBytes)
    }

    /// What an upload's description holds: its box (``StoredImage``, 80 bytes with the object's header) and its
    /// BlurHash's 28 characters on the heap.
    static let uploadBytes = 80 + 28 + 32

    private static func heapBytes(_ count: Int?) -> Int {
        guard let count, count > 15 else { return 0 }
        return count + 32
    }

    /// Whether `item` is an item, without copying it (as `item != nil` does).
    private static func holds(_ item: borrowing WrittenItem?) -> Bool {
        switch item {
        case .some: true
        case .none: false
        }
    }

    private mutating func setSparse(_ item: WrittenItem?, id: UInt64) {
        if buckets.isEmpty {
            guard Self.holds(item) else { return }
            buckets = [[:]]
        } else if buckets.count == 1 && buckets[0].count >= Self.bucketThreshold && Self.holds(item) {
            // Large enough to split: each bucket is a table a shared copy's write copies on its own.
            let all = buckets[0]
            buckets = Array(repeating: [:], count: Self.bucketCount)
            for (id, item) in all { buckets[bucket(of: id)][id] = item }
        }
        let bucket = bucket(of: id)
        if let item {
            let replaced = buckets[bucket].updateValue(item, forKey: id)
            if replaced == nil {
                count += 1
                approximateBytes += Self.entryBytes
            }
            approximateBytes += Self.textBytes(item) - Self.textBytes(replaced)
        } else if let removed = buckets[bucket].removeValue(forKey: id) {
            count -= 1
            approximateBytes -= Self.entryBytes + Self.textBytes(removed)
        }
    }

    /// The bucket of `id`: the only one while there is one; else ids, consecutive integers, mixed so they spread
    /// over the buckets evenly.
    private func bucket(of id: UInt64) -> Int {
        buckets.count == 1 ? 0 : Int(truncatingIfNeeded: SplitMix64.mix(id) & UInt64(Self.bucketCount - 1))
    }

    /// The same items, however each side keeps them.
    public static func == (lhs: WrittenItems, rhs: WrittenItems) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var equal = true
        lhs.forEach { id, item in
            if equal && rhs[id] != item { equal = false }
        }
        return equal
    }
}
