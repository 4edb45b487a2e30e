/// A table by list name that keeps what was set most recently: past twice its capacity, it forgets all but the
/// `capacity` entries set or changed last.
///
/// For what the server keeps per list only to be faster for lists in use (the ``WriteCoordinator``'s second copy of
/// a list, the ``ChangeFeed``'s window of recent changes): kept for every list ever written to, that was a few
/// hundred bytes per dataset for ever, and a server that serves a week of UI tests, one dataset each, has tens of
/// thousands. A forgotten entry costs only speed: the coordinator copies the list again, the feed reads the store.
///
/// Setting or changing an entry costs what a dictionary's does plus a counter; forgetting sorts the stamps once
/// every `capacity` new names, so each costs O(log n) over time.
struct RecencyTable<Value> {
    /// How many entries are kept when the table trims itself.
    let capacity: Int
    private var entries: [String: (value: Value, stamp: UInt64)] = [:]
    private var clock: UInt64 = 0

    init(capacity: Int) {
        precondition(capacity >= 1)
        self.capacity = capacity
    }

    var count: Int { entries.count }

    /// The entry for `key`, if it is kept; reading it does not make it recent.
    subscript(key: String) -> Value? {
        entries[key]?.value
    }

    /// Sets the entry for `key` (nil removes it); a set entry is the most recent.
    mutating func set(_ value: Value?, for key: String) {
        guard let value else {
            entries[key] = nil
            return
        }
        clock += 1
        entries[key] = (value, clock)
        trimIfFull()
    }

    /// Takes the entry for `key` out of the table.
    mutating func removeValue(forKey key: String) -> Value? {
        entries.removeValue(forKey: key)?.value
    }

    /// Changes the entry for `key` in place (made with `make` when there is none), and makes it the most recent.
    mutating func modify<Result>(
        _ key: String, default make: @autoclosure () -> Value, _ body: (inout Value) -> Result
    ) -> Result {
        clock += 1
        let stamp = clock
        let result = Self.change(&entries[key, default: (make(), stamp)]) { entry in
            entry.stamp = stamp
            return body(&entry.value)
        }
        trimIfFull()
        return result
    }

    /// Removes every entry `isRemoved` picks.
    mutating func removeAll(where isRemoved: (String, Value) -> Bool) {
        entries = entries.filter { !isRemoved($0.key, $0.value.value) }
    }

    /// One access to the dictionary's storage for both the stamp and the value (no copy of the value out and back).
    private static func change<Entry, Result>(_ entry: inout Entry, _ body: (inout Entry) -> Result) -> Result {
        body(&entry)
    }

    /// Past twice the capacity, keeps the `capacity` most recent entries.
    private mutating func trimIfFull() {
        guard entries.count > 2 * capacity else { return }
        let stamps = entries.values.map(\.stamp).sorted(by: >)
        let oldestKept = stamps[capacity - 1]
        entries = entries.filter { $0.value.stamp >= oldestKept }
    }
}
