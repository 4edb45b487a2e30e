import ListDomain

/// The life of datasets after their writes: when each was last used goes to the store, and those nobody used for
/// ``SettingKey/datasetTTLSeconds`` are removed with everything written to them, durably, in the background.
///
/// A task wakes every second to move the registry's coarse clock on (reads note their use against it without
/// reading a clock; the memory budget lets a dataset leave memory only once untouched for a tick). Every
/// ``interval(ttl:)`` it also hands the uses since the last pass to the store, asks the store which datasets are
/// idle, and expires each through the ``WriteCoordinator`` (one group commit each, queued with the writes like any
/// other: nothing waits for the sweep). The coordinator expires a dataset only if it was not used since it was
/// found idle. A use is noted to the clock's last tick, and one noted at the tick the clock still shows is handed
/// to the store as of the pass (the clock may lag, its task held up), so a use looks at most a second older than it
/// is and at most an interval newer: a dataset expires between `ttl + interval - 1 s` and `ttl + 3 · interval + 1 s`
/// after its last use.
///
/// With several servers on one PostgreSQL store each sweeps; a use on one reaches the store within an interval,
/// and the others see it there before they expire anything.
enum DatasetLifecycle {
    /// How often the registry's clock moves on.
    static let tick = Duration.seconds(1)

    /// How often the sweep runs: a tenth of the time-to-live, between 1 and 10 seconds.
    static func interval(ttl: Duration) -> Duration {
        guard ttl > .zero else { return .seconds(10) }
        return min(max(ttl / 10, .seconds(1)), .seconds(10))
    }

    /// The most datasets one pass expires (the next pass takes the rest).
    static let expiriesPerPass = 1000

    /// Starts the sweep; cancel the task to stop it.
    ///
    /// - Parameters:
    ///   - ttl: ``SettingKey/datasetTTLSeconds``; zero never expires anything.
    ///   - expired: Told each dataset removed (the server forgets its fault counters).
    ///   - expireProfiles: Asked, each pass, to drop the profiles nobody met for the time given (`ttl` and an
    ///     interval, as a dataset's rows): a profile of a dataset never written to has no rows to expire with.
    static func start(
        writes: WriteCoordinator, ttl: Duration, wallClock: @escaping @Sendable () -> WallTime,
        expired: @escaping @Sendable (String) -> Void,
        expireProfiles: @escaping @Sendable (Duration) async -> Void = { _ in }
    ) -> Task<Void, Never> {
        let interval = interval(ttl: ttl)
        let ticksPerSweep = max(1, Int(interval / tick))
        return Task {
            var ticks = 0
            while !Task.isCancelled {
                do { try await Task.sleep(for: tick) } catch { return }
                ticks += 1
                guard ticks % ticksPerSweep == 0 else {
                    writes.lists.advanceClock(to: wallClock())
                    continue
                }
                for name in await sweep(writes: writes, ttl: ttl, interval: interval, now: wallClock()) {
                    expired(name)
                }
                if ttl > .zero { await expireProfiles(ttl + interval) }
            }
        }
    }

    /// One pass at `now`; returns the datasets it removed. A store that fails leaves the rest to the next pass.
    static func sweep(writes: WriteCoordinator, ttl: Duration, interval: Duration, now: WallTime) async -> [String] {
        let lists = writes.lists
        // A use noted at the clock's latest value may be as recent as now, and is kept as now: the clock moves on a
        // task of the shared pool, which a busy machine can hold up for seconds (seen in CI: a dataset read every
        // 0.2 s expired, its uses noted at a clock four seconds behind). Older values were noted before the clock
        // last moved on, so they stand.
        let latestTick = lists.clockNow.milliseconds
        lists.advanceClock(to: now)
        let uses = lists.takeUses().mapValues { $0.milliseconds >= latestTick ? max($0, now) : $0 }
        do {
            try await writes.store.recordUse(uses, now: now)
        } catch {
            lists.restoreUses(uses)  // for the next pass; an expiry looks in memory first meanwhile
            return []
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
