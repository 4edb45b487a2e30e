/// The items of a list with written fields, by id: a dictionary split into buckets, so that a write copies one
/// bucket rather than the whole table.
///
/// Readers hold copies of a list's state, so a write may find the table shared, and copy-on-write would copy all
/// of it: with 20,000 written items that made each commit copy 20,000 entries, and write throughput halved as the
/// table grew (seen by the crash test). With 256 buckets such a write copies the outer array (256 references) and
/// one bucket (1/256 of the items). (The ``WriteCoordinator`` keeps a copy of its own, so that a write finds the
/// table shared only while a reader happens to hold the copy it changes.)
public struct WrittenItems: Sendable, Equatable, ExpressibleByDictionaryLiteral {
    /// The number of buckets: a power of two, picked by the id's low bits mixed.
    static let bucketCount = 256

    /// Empty until the first item is written (then ``bucketCount`` buckets): every page of a list nobody wrote to
    /// starts from a fresh state, and allocating (and freeing) 256 buckets for each made such pages 10–20 % slower
    /// (BENCHMARKS.md, scenario 1 without writes).
    private var buckets: [[UInt64: WrittenItem]] = []
    public private(set) var count = 0

    public init() {}

    public init(_ items: [UInt64: WrittenItem]) {
        self.init()
        for (id, item) in items { self[id] = item }
    }

    public init(dictionaryLiteral elements: (UInt64, WrittenItem)...) {
        self.init()
        for (id, item) in elements { self[id] = item }
    }

    public var isEmpty: Bool { count == 0 }

    public subscript(id: UInt64) -> WrittenItem? {
        get { buckets.isEmpty ? nil : buckets[Self.bucket(of: id)][id] }
        set {
            if buckets.isEmpty {
                guard newValue != nil else { return }
                buckets = Array(repeating: [:], count: Self.bucketCount)
            }
            let bucket = Self.bucket(of: id)
            if let newValue {
                if buckets[bucket].updateValue(newValue, forKey: id) == nil { count += 1 }
            } else if buckets[bucket].removeValue(forKey: id) != nil {
                count -= 1
            }
        }
    }

    /// Every item, as one dictionary (tests, and the store's view).
    public var all: [UInt64: WrittenItem] {
        buckets.reduce(into: [:]) { all, bucket in all.merge(bucket) { first, _ in first } }
    }

    /// Ids are consecutive integers; mixing spreads them over the buckets evenly.
    private static func bucket(of id: UInt64) -> Int {
        Int(truncatingIfNeeded: SplitMix64.mix(id) & UInt64(bucketCount - 1))
    }

    public static func == (lhs: WrittenItems, rhs: WrittenItems) -> Bool {
        lhs.count == rhs.count && (lhs.count == 0 || lhs.buckets == rhs.buckets)
    }
}
