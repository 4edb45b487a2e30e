/// A bounded map that forgets its least recently used entry when full; every operation O(1).
///
/// Storage is three parts, none allocating per operation once warmed up:
/// - `slots`: an array of entries, each with `previous`/`next` indices forming an intrusive doubly-linked list
///   from the most recently used (`head`) to the least recently used (`tail`);
/// - `index`: a dictionary from key to slot;
/// - `free`: slots vacated by ``removeValue(forKey:)``, reused before the array grows.
///
/// The array grows on demand up to `capacity`, so a large capacity costs nothing until it is used.
package struct LRUTable<Key: Hashable, Value> {
    /// One entry and its place in the recency list.
    private struct Slot {
        var key: Key
        var value: Value
        var previous: Int
        var next: Int
    }

    /// The "no slot" link.
    private static var none: Int { -1 }

    /// The most entries the table holds.
    let capacity: Int
    private var slots: [Slot] = []
    private var index: [Key: Int] = [:]
    private var free: [Int] = []
    private var head = LRUTable.none
    private var tail = LRUTable.none

    /// Creates an empty table that holds at most `capacity` entries (at least 1).
    package init(capacity: Int) {
        precondition(capacity >= 1, "LRU capacity must be at least 1")
        self.capacity = capacity
    }

    /// The number of entries.
    package var count: Int { index.count }

    /// The value for `key`, marking it most recently used; `nil` when absent.
    package mutating func value(forKey key: Key) -> Value? {
        guard let slot = index[key] else { return nil }
        moveToFront(slot)
        return slots[slot].value
    }

    /// The value for `key` without touching the recency order.
    func peekValue(forKey key: Key) -> Value? {
        index[key].map { slots[$0].value }
    }

    /// Stores `value` for `key` as the most recently used entry.
    ///
    /// - Returns: The key evicted to make room, if the table was full and `key` was new.
    @discardableResult
    package mutating func setValue(_ value: Value, forKey key: Key) -> Key? {
        if let slot = index[key] {
            slots[slot].value = value
            moveToFront(slot)
            return nil
        }
        var evicted: Key?
        let slot: Int
        if let reused = free.popLast() {
            slot = reused
            slots[slot] = Slot(key: key, value: value, previous: Self.none, next: Self.none)
        } else if slots.count < capacity {
            slot = slots.count
            slots.append(Slot(key: key, value: value, previous: Self.none, next: Self.none))
        } else {
            // Full: recycle the least recently used slot in place.
            slot = tail
            evicted = slots[slot].key
            unlink(slot)
            index[slots[slot].key] = nil
            slots[slot].key = key
            slots[slot].value = value
        }
        index[key] = slot
        linkAtFront(slot)
        return evicted
    }

    /// Removes the entry for `key`, returning its value; its slot goes to the free list.
    @discardableResult
    mutating func removeValue(forKey key: Key) -> Value? {
        guard let slot = index.removeValue(forKey: key) else { return nil }
        unlink(slot)
        free.append(slot)
        return slots[slot].value
    }

    /// Removes the least recently used entry and returns it; nil when the table is empty.
    @discardableResult
    mutating func removeLeastRecentlyUsed() -> (key: Key, value: Value)? {
        guard tail != Self.none else { return nil }
        let key = slots[tail].key
        guard let value = removeValue(forKey: key) else { return nil }
        return (key, value)
    }

    /// The keys from most to least recently used (for tests and diagnostics; O(count)).
    var keysByRecency: [Key] {
        var keys: [Key] = []
        keys.reserveCapacity(count)
        var slot = head
        while slot != Self.none {
            keys.append(slots[slot].key)
            slot = slots[slot].next
        }
        return keys
    }

    /// Moves a linked slot to the front of the recency list.
    private mutating func moveToFront(_ slot: Int) {
        guard slot != head else { return }
        unlink(slot)
        linkAtFront(slot)
    }

    /// Detaches a slot from the recency list.
    private mutating func unlink(_ slot: Int) {
        let previous = slots[slot].previous
        let next = slots[slot].next
        if previous != Self.none { slots[previous].next = next } else { head = next }
        if next != Self.none { slots[next].previous = previous } else { tail = previous }
        slots[slot].previous = Self.none
        slots[slot].next = Self.none
    }

    /// Attaches a detached slot at the front of the recency list.
    private mutating func linkAtFront(_ slot: Int) {
        slots[slot].previous = Self.none
        slots[slot].next = head
        if head != Self.none { slots[head].previous = slot } else { tail = slot }
        head = slot
    }
}
