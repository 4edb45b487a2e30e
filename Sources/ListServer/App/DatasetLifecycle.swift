import ListDomain

/// The life of datasets after their writes: when each was last used goes to the store, and those nobody used for
/// `data.dataset_ttl_s` are removed with everything written to them, durably, in the background.
///
/// A task wakes every ``interval(ttl:)``: it moves the registry's coarse clock on (reads note their use against it
/// without reading a clock), hands the uses since the last pass to the store, asks the store which datasets are
/// idle, and expires each through the ``WriteCoordinator`` (one group commit each, queued with the writes like any
/// other: nothing waits for the sweep). The coordinator expires a dataset only if it was not used since it was
/// found idle. A use is noted to the clock of the last pass, so it may look up to one interval older than it is: a
/// dataset expires between `ttl + interval` and `ttl + 2 · interval` after its last use.
///
/// With several servers on one PostgreSQL store each sweeps; a use on one reaches the store within an interval,
/// and the others see it there before they expire anything.
enum DatasetLifecycle {
    /// How often the sweep runs: a tenth of the time-to-live, between 1 and 60 seconds (60 with no expiry, for the
    /// last uses `GET /admin/datasets` shows).
    static func interval(ttl: Duration) -> Duration {
        guard ttl > .zero else { return .seconds(60) }
        return min(max(ttl / 10, .seconds(1)), .seconds(60))
    }

    /// The most datasets one pass expires (the next pass takes the rest).
    static let expiriesPerPass = 1000

    /// Starts the sweep; cancel the task to stop it.
    ///
    /// - Parameters:
    ///   - ttl: `data.dataset_ttl_s`; zero never expires anything.
    ///   - expired: Told each dataset removed (the server forgets its fault counters).
    static func start(
        writes: WriteCoordinator, ttl: Duration, wallClock: @escaping @Sendable () -> WallTime,
        expired: @escaping @Sendable (String) -> Void
    ) -> Task<Void, Never> {
        let interval = interval(ttl: ttl)
        return Task {
            while !Task.isCancelled {
                do { try await Task.sleep(for: interval) } catch { return }
                for name in await sweep(writes: writes, ttl: ttl, interval: interval, now: wallClock()) {
                    expired(name)
                }
            }
        }
    }

    /// One pass at `now`; returns the datasets it removed. A store that fails leaves the rest to the next pass.
    static func sweep(writes: WriteCoordinator, ttl: Duration, interval: Duration, now: WallTime) async -> [String] {
        let lists = writes.lists
        lists.advanceClock(to: now)
        do {
            try await writes.store.recordUse(lists.takeUses(), now: now)
        } catch {
            return []  // uses of loaded lists are in memory still, where an expiry looks first
        }
        guard ttl > .zero else { return [] }
        let cutoff = WallTime(milliseconds: now.milliseconds - Int64((ttl + interval).wholeMilliseconds))
        guard let idle = try? await writes.store.idleLists(before: cutoff, limit: expiriesPerPass) else { return [] }
        var removed: [String] = []
        for name in idle where name != ListRegistry.defaultList {
            if await writes.expire(name, idleBefore: cutoff) { removed.append(name) }
        }
        return removed
    }
}
