import Synchronization

/// Every list the server serves, by name: the shared default (`""`) and the datasets clients name.
///
/// A list nobody wrote to is not stored anywhere: reading it gives the generated list of the configured seed and
/// count. Readers take a copy of a list's state (``state(of:)``, one uncontended lock and a few retains) and answer
/// from it; only the ``WriteCoordinator`` installs new states, after their commit.
///
/// Stored lists are loaded on first use: the registry starts with the names the store has (``needsLoading(_:)``
/// says which are not in memory yet), and the coordinator reads a list's rows the first time a request names it, so
/// start-up time and memory do not grow with the datasets on disk. It also notes when each dataset was last used
/// (read or written), to a coarse clock the server moves on (``advanceClock(to:)``), for the store to keep
/// (``takeUses()``) and idle datasets to expire. And it holds the lists in memory to a budget
/// (`ListRegistry+Memory.swift`): past it, the datasets used least recently leave memory, to be read again on
/// their next use.
public final class ListRegistry: Sendable {
    /// The name of the shared default list, which requests without `X-Dataset` use.
    public static let defaultList = ""

    /// A list in memory, and when it was last used.
    struct Entry {
        var state: ListState
        /// Milliseconds since 1970, to the registry's coarse clock.
        var lastUsed: Int64
        /// When it was put in memory (read from the store, or written), to the same clock.
        var installedAt: Int64
        /// What it counts against ``memoryBudget``: both copies the server keeps of it.
        var bytes: Int
    }

    /// What the lock guards.
    struct Contents {
        /// The lists in memory.
        var loaded: [String: Entry] = [:]
        /// Stored lists not in memory yet.
        var stored: Set<String> = []
        /// Datasets used since the last ``takeUses()``.
        var used: Set<String> = []
        /// The sum of the entries' ``Entry/bytes``.
        var loadedBytes = 0
        /// The last uses of datasets that left memory before ``takeUses()`` took them.
        var evictedUses: [String: Int64] = [:]
        /// How many lists left memory for the budget so far.
        var evictions = 0
    }

    /// The seed and count of a list nobody wrote to.
    public let seed: UInt64
    public let baseCount: UInt64
    /// What the lists in memory may hold, both copies of each counted.
    public let memoryBudget: Int
    let contents: Mutex<Contents>
    /// How many stored lists are not in memory (0, the common case once each was used: one atomic load for a
    /// request to know it needs no loading).
    let unloadedCount = Atomic<Int>(0)
    /// The coarse wall clock uses are noted with, in milliseconds, and its value before its last move.
    private let clock: Atomic<Int64>
    let previousTick = Atomic<Int64>(.min)
    /// With a store other servers write to: the sequence numbers they reached in lists this server's copy has not
    /// caught up with yet, with the reads waiting for it (`ListRegistry+Heard.swift`), and how many such lists
    /// there are (0: the common case, one atomic load for a reader to know it).
    let heard = Mutex<[String: HeardAhead]>([:])
    let heardCount = Atomic<Int>(0)
    /// The number the next read waiting for a list to catch up is known by.
    let nextWaiter = Atomic<UInt64>(0)

    /// A registry of lists with `count` generated items from `seed`, the `stored` lists in memory, and the lists
    /// named `unloaded` on disk (loaded on first use).
    ///
    /// - Parameter memoryBudget: What the lists in memory may hold (see `ListRegistry+Memory.swift`); no bound by default.
    public init(
        seed: UInt64, count: UInt64, stored: [String: StoredList] = [:], unloaded: some Sequence<String> = [],
        now: WallTime = WallTime(milliseconds: 0), memoryBudget: Int = .max
    ) {
        precondition(count <= Catalog.maximumCount, "Catalog count \(count) exceeds 2^53")
        self.seed = seed
        baseCount = count
        self.memoryBudget = memoryBudget
        clock = Atomic(now.milliseconds)
        var contents = Contents()
        contents.loaded = stored.mapValues { stored in
            let state = ListState(stored)
            return Entry(
                state: state, lastUsed: now.milliseconds, installedAt: now.milliseconds, bytes: Self.cost(of: state))
        }
        contents.loadedBytes = contents.loaded.values.reduce(0) { $0 + $1.bytes }
        contents.stored = Set(unloaded).subtracting(stored.keys)
        unloadedCount.store(contents.stored.count, ordering: .relaxed)
        self.contents = Mutex(contents)
    }

    /// The list's state as of now; a read of a dataset counts as a use.
    ///
    /// A stored list not in memory yet reads as a list nobody wrote to: callers load it first (``needsLoading(_:)``,
    /// ``WriteCoordinator/load(_:)``).
    public func state(of name: String) -> ListState {
        if name.isEmpty {
            return contents.withLock { $0.loaded[name]?.state } ?? fresh()
        }
        let now = clock.load(ordering: .relaxed)
        return contents.withLock { contents -> ListState? in
            guard let entry = contents.loaded[name] else { return nil }
            if entry.lastUsed < now {
                contents.loaded[name]!.lastUsed = now
                contents.used.insert(name)
            }
            return entry.state
        } ?? fresh()
    }

    /// The list's state for a read, which counts as a use; nil when the list is stored but not in memory (never read
    /// since the start, or taken out for the memory budget): the caller has it loaded, then reads again. One look
    /// under the lock, so a list cannot leave memory between the check and the read.
    public func stateInMemory(of name: String) -> ListState? {
        if name.isEmpty {  // the default list never leaves memory, and its use is not noted
            return contents.withLock { $0.loaded[name]?.state } ?? fresh()
        }
        let now = clock.load(ordering: .relaxed)
        let found = contents.withLock { contents -> ListState?? in
            guard let entry = contents.loaded[name] else { return contents.stored.contains(name) ? .some(nil) : nil }
            if entry.lastUsed < now {
                contents.loaded[name]!.lastUsed = now
                contents.used.insert(name)
            }
            return .some(entry.state)
        }
        switch found {
        case .some(let state): return state
        case .none: return fresh()
        }
    }

    /// The state of list `name` if it is in memory, without counting a use (the registry's own bookkeeping).
    func loadedState(of name: String) -> ListState? {
        contents.withLock { $0.loaded[name]?.state }
    }

    /// Whether any stored list is not in memory yet (one atomic load).
    public var hasUnloaded: Bool { unloadedCount.load(ordering: .relaxed) > 0 }

    /// Whether list `name` is stored but not in memory: it must be loaded before it is read.
    public func needsLoading(_ name: String) -> Bool {
        guard unloadedCount.load(ordering: .relaxed) > 0 else { return false }
        return contents.withLock { $0.stored.contains(name) }
    }

    /// Whether list `name` has state: in memory, or stored.
    public func exists(_ name: String) -> Bool {
        contents.withLock { $0.loaded[name] != nil || $0.stored.contains(name) }
    }

    /// How many datasets (every list but the default) have state, in memory or stored.
    public var datasetCount: Int {
        contents.withLock { contents in
            contents.loaded.count - (contents.loaded[Self.defaultList] == nil ? 0 : 1)
                + contents.stored.count - (contents.stored.contains(Self.defaultList) ? 1 : 0)
        }
    }

    /// Installs a committed state, and returns the one it replaces (nil for a list that had none).
    ///
    /// - Parameter used: Whether this server's client used the list (a write); a list read from the store, or
    ///   brought level with other servers' writes, keeps the last use it had (none, for a list new to memory).
    func install(_ state: ListState, as name: String, used: Bool = true) -> ListState? {
        let now = clock.load(ordering: .relaxed)
        let replaced = contents.withLock { contents in
            if contents.stored.remove(name) != nil { unloadedCount.subtract(1, ordering: .relaxed) }
            if used && !name.isEmpty { contents.used.insert(name) }
            let lastUsed = used ? now : contents.loaded[name]?.lastUsed ?? 0
            let entry = Entry(state: state, lastUsed: lastUsed, installedAt: now, bytes: Self.cost(of: state))
            contents.loadedBytes += entry.bytes
            let replaced = contents.loaded.updateValue(entry, forKey: name)
            contents.loadedBytes -= replaced?.bytes ?? 0
            return replaced?.state
        }
        if heardCount.load(ordering: .acquiring) > 0 { caughtUp(name, at: state.header.lastSequence) }
        return replaced
    }

    /// Forgets list `name` entirely: it was removed from the store (expired), and reads as a list nobody wrote to.
    func remove(_ name: String) {
        contents.withLock { contents in
            contents.loadedBytes -= contents.loaded.removeValue(forKey: name)?.bytes ?? 0
            contents.used.remove(name)
            contents.evictedUses[name] = nil
            if contents.stored.remove(name) != nil { unloadedCount.subtract(1, ordering: .relaxed) }
        }
        forgetHeard(name)
    }

    /// Notes that list `name` is stored (another server wrote it), to be loaded on first use; nothing changes for a
    /// list in memory.
    public func noteStored(_ name: String) {
        contents.withLock { contents in
            guard contents.loaded[name] == nil, contents.stored.insert(name).inserted else { return }
            unloadedCount.add(1, ordering: .relaxed)
        }
    }

    /// Forgets that list `name` is stored, if it is not in memory (another server removed it).
    public func forgetStored(_ name: String) {
        contents.withLock { contents in
            if contents.stored.remove(name) != nil { unloadedCount.subtract(1, ordering: .relaxed) }
        }
    }

    /// Whether list `name` is in memory.
    public func isLoaded(_ name: String) -> Bool {
        contents.withLock { $0.loaded[name] != nil }
    }

    /// When dataset `name` was last used, to the coarse clock, as far as this server knows; nil for a list not in
    /// memory nor used since the store was last told.
    public func lastUse(of name: String) -> WallTime? {
        contents.withLock { ($0.loaded[name]?.lastUsed ?? $0.evictedUses[name]).map { WallTime(milliseconds: $0) } }
    }

    /// The datasets used since the last call, with when: for the store to keep.
    public func takeUses() -> [String: WallTime] {
        contents.withLock { contents in
            defer {
                contents.used = []
                contents.evictedUses = [:]
            }
            var uses = contents.evictedUses.mapValues { WallTime(milliseconds: $0) }
            for name in contents.used {
                if let entry = contents.loaded[name] { uses[name] = WallTime(milliseconds: entry.lastUsed) }
            }
            return uses
        }
    }

    /// Gives back uses ``takeUses()`` took that the store could not keep, for the next pass.
    public func restoreUses(_ uses: [String: WallTime]) {
        contents.withLock { contents in
            for (name, use) in uses {
                if let entry = contents.loaded[name] {
                    contents.loaded[name]!.lastUsed = max(entry.lastUsed, use.milliseconds)
                    contents.used.insert(name)
                } else {
                    contents.evictedUses[name] = max(contents.evictedUses[name] ?? .min, use.milliseconds)
                }
            }
        }
    }

    /// The coarse clock uses are noted with: the wall clock as of the server's last pass (``advanceClock(to:)``).
    public var clockNow: WallTime { WallTime(milliseconds: clock.load(ordering: .relaxed)) }

    /// Moves the clock uses are noted with to `now` (never back): the server does this every few seconds, so a
    /// read does not read the clock.
    public func advanceClock(to now: WallTime) {
        var current = clock.load(ordering: .relaxed)
        while current < now.milliseconds {
            let (exchanged, original) = clock.compareExchange(
                expected: current, desired: now.milliseconds, ordering: .relaxed)
            if exchanged {
                previousTick.store(current, ordering: .relaxed)
                return
            }
            current = original
        }
    }

    /// The names of the lists in memory.
    public var names: [String] { contents.withLock { Array($0.loaded.keys) } }

    /// A list nobody wrote to.
    func fresh() -> ListState { ListState(seed: seed, count: baseCount) }
}
