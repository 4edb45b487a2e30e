/// The lists in memory, held to a budget (``ListRegistry/memoryBudget``).
///
/// Every list in memory counts what both copies of it hold (the registry's and the ``WriteCoordinator``'s second
/// one), about, as its writes go (``ListState/approximateBytes``). When a group commit leaves the lists over the
/// budget, the datasets used least recently leave memory until they are a tenth under it: they stay stored, and are
/// read again on their next use, as at start. The default list never leaves, nor does a list the group itself
/// wrote, nor one put in memory (read from the store, or written) since the clock's last move but one (the server
/// moves it every second), so that a request whose dataset was just read for it finds it when routed again. Any
/// other may go at any moment, however recently read: every read finds its list or learns it is out in one look
/// under the registry's lock (``stateInMemory(of:)``), and a request whose list went out is loaded and routed
/// again.
///
/// So the budget is passed only by what the last one or two seconds read into memory (loads are one at a time,
/// among the commits) or wrote; one list alone is held to a limit of its own by the coordinator (``WriteCoordinator/maxDatasetBytes``).
extension ListRegistry {
    /// What `state` counts against the budget: both copies.
    static func cost(of state: ListState) -> Int { 2 * state.approximateBytes }

    /// What the lists in memory count against the budget now.
    public var memoryInUse: Int { contents.withLock { $0.loadedBytes } }

    /// The lists in memory and out of it now, and how many left memory so far: for `/metrics`.
    public var memoryStatistics: ListMemoryStatistics {
        contents.withLock { contents in
            ListMemoryStatistics(
                inMemory: contents.loaded.count, bytes: contents.loadedBytes, outOfMemory: contents.stored.count,
                evictions: contents.evictions, budget: memoryBudget)
        }
    }

    /// If the lists in memory are over the budget, takes the least recently used datasets out of memory (but those
    /// in `keeping`) until they are a tenth under it, or none is left that may go; returns their names, for the
    /// coordinator to drop its copies.
    func evictOverBudget(keeping: some Sequence<String>) -> [String] {
        guard memoryBudget != .max else { return [] }
        let before = previousTick.load(ordering: .relaxed)
        let evicted = contents.withLock { contents -> [String] in
            guard contents.loadedBytes > memoryBudget else { return [] }
            let kept = Set(keeping)
            let target = memoryBudget - memoryBudget / 10
            let candidates = contents.loaded.filter { name, entry in
                name != Self.defaultList && !kept.contains(name) && entry.installedAt < before
            }.sorted { $0.value.lastUsed < $1.value.lastUsed }
            var evicted: [String] = []
            for (name, entry) in candidates {
                guard contents.loadedBytes > target else { break }
                contents.loaded[name] = nil
                contents.loadedBytes -= entry.bytes
                if contents.used.remove(name) != nil { contents.evictedUses[name] = entry.lastUsed }
                if contents.stored.insert(name).inserted { unloadedCount.add(1, ordering: .relaxed) }
                evicted.append(name)
            }
            contents.evictions += evicted.count
            return evicted
        }
        // Read again from the store when next used, with every other server's writes: nothing to catch up.
        for name in evicted { forgetHeard(name) }
        return evicted
    }
}

/// The lists in memory, as ``ListRegistry/memoryStatistics`` reads them.
public struct ListMemoryStatistics: Sendable, Equatable {
    /// Lists in memory (the default list among them, once written to).
    public var inMemory: Int
    /// What they count against the budget (both copies).
    public var bytes: Int
    /// Stored lists not in memory: not used since the start, or out of memory since.
    public var outOfMemory: Int
    /// Lists taken out of memory for the budget since the start.
    public var evictions: Int
    /// ``ListRegistry/memoryBudget``.
    public var budget: Int
}
