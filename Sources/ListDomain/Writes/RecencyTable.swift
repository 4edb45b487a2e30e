/// A table by list name that keeps what was set most recently: past twice its capacity, it forgets all but the
/// `capacity` entries set or changed last; past its weight (when its entries are weighed), it forgets the least
/// recent ones until they weigh no more than it.
///
/// For what the server keeps per list only to be faster for lists in use (the ``WriteCoordinator``'s second copy of
/// a list, the ``ChangeFeed``'s window of recent changes): kept for every list ever written to, that was a few
/// hundred bytes per dataset for ever, and a server that serves a week of UI tests, one dataset each, has tens of
/// thousands. A forgotten entry costs only speed: the coordinator copies the list again, the feed reads the store.
///
/// Setting or changing an entry costs what a dictionary's does plus a counter; forgetting sorts the stamps once
/// every `capacity` new names, so each costs O(log n) over time. Shedding weight scans the entries once per entry
/// it forgets: it happens only when entries are heavy, and then each forgotten one saved much more than the scan.
struct RecencyTable<Value> {
    /// How many entries are kept when the table trims itself.
    let capacity: Int
    /// The most the entries may weigh together.
    let maxWeight: Int
    /// What an entry weighs (O(1): the value keeps its own count).
    private let weigh: (Value) -> Int
    /// What the entries weigh together.
    private(set) var weight = 0
    private var entries: [String: (value: Value, stamp: UInt64)] = [:]
    private var clock: UInt64 = 0

    init(capacity: Int, maxWeight: Int = .max, weigh: @escaping (Value) -> Int = { _ in 0 }) {
        precondition(capacity >= 1)
        self.capacity = capacity
        self.maxWeight = maxWeight
        self.weigh = weigh
    }

    var count: Int { entries.count }

    /// The entry for `key`, if it is kept; reading it does not make it recent.
    subscript(key: String) -> Value? {
        entries[key]?.value
    }

    /// Sets the entry for `key` (nil removes it); a set entry is the most recent.
    mutating func set(_ value: Value?, for key: String) {
        guard let value else {
            _ = removeValue(forKey: key)
            return
        }
        clock += 1
        weight += weigh(value)
        if let replaced = entries.updateValue((value, clock), forKey: key) { weight -= weigh(replaced.value) }
        trimIfFull()
    }

    /// Takes the entry for `key` out of the table.
    mutating func removeValue(forKey key: String) -> Value? {
        guard let removed = entries.removeValue(forKey: key)?.value else { return nil }
        weight -= weigh(removed)
        return removed
    }

    /// Changes the entry for `key` in place (made with `make` when there is none), and makes it the most recent.
    mutating func modify<Result>(
        _ key: String, default make: @autoclosure () -> Value, _ body: (inout Value) -> Result
    ) -> Result {
        clock += 1
        let stamp = clock
        let weigh = self.weigh
        var added = 0
        let result = Self.change(&entries[key, default: (make(), stamp)]) { entry in
            entry.stamp = stamp
            let before = weigh(entry.value)
            defer { added = weigh(entry.value) - before }
            return body(&entry.value)
        }
        weight += added
        trimIfFull()
        return result
    }

    /// Removes every entry `isRemoved` picks.
    mutating func removeAll(where isRemoved: (String, Value) -> Bool) {
        entries = entries.filter { !isRemoved($0.key, $0.value.value) }
        reweigh()
    }

    /// One access to the dictionary's storage for both the stamp and the value (no copy of the value out and back).
    private static func change<Entry, Result>(_ entry: inout Entry, _ body: (inout Entry) -> Result) -> Result {
        body(&entry)
    }

    /// Past twice the capacity, keeps the `capacity` most recent entries; past the weight, forgets the least recent
    /// until the rest are within it (the newest too, if it alone weighs more).
    private mutating func trimIfFull() {
        if entries.count > 2 * capacity {
            let stamps = entries.values.map(\.stamp).sorted(by: >)
            let oldestKept = stamps[capacity - 1]
            entries = entries.filter { $0.value.stamp >= oldestKept }
            reweigh()
        }
        while weight > maxWeight, let oldest = entries.min(by: { $0.value.stamp < $1.value.stamp }) {
            _ = removeValue(forKey: oldest.key)
        }
    }

    private mutating func reweigh() {
        weight = entries.values.reduce(0) { $0 + weigh($1.value) }
    }
}
