import Synchronization

/// One loop's view of the profiles (``ProfileRegistry``): a copy of each profile its requests met, with what only
/// that loop changes (its latency draws, its counts, when it last met one), under a lock no other loop takes.
///
/// Why: with one lock for every loop, two loops serving one profiled dataset passed the lock's cache line (and the
/// counts beside it) back and forth on every request; a profile of every field cost a page some 2 µs of CPU at two
/// loops against 1.3 at one (`Benchmarks/profiles/cost.sh`, HISTORY.md). What must be exact across loops stays
/// shared, and only the requests that need it pay for it: a script step is claimed from the registry (its lock,
/// only for a request that matches the step), and a client's rate limit is one atomic cell the shards share
/// (``RateLimitCell``). A copy is made again when the registry's ``ProfileRegistry/generation`` moved: a profile
/// set, cleared or given a new token key, a step used up, rate-limit cells dropped.
final class ProfileShard: Sendable {
    let state = Mutex<(entries: [String: Entry], acted: ProfileRegistry.Statistics)>(([:], .init()))

    /// One profile as this loop sees it.
    struct Entry {
        /// The registry's generation this copy was made at.
        var generation: UInt64
        /// Which setting of the profile it copies (``ProfileRegistry/Entry/serial``).
        var serial: UInt64
        var profile: DatasetProfile
        /// When the profile was set (the registry's clock, in nanoseconds): its outage counts from here.
        var since: Int64
        var tokenKey: UInt128
        /// The first step not used up, as of ``generation``.
        var step: Int?
        /// This loop's latency draws: the profile's seed (or the time it was set), moved on by the shard's index.
        var random: SplitMix64
        /// When a request on this loop last met it (nanoseconds).
        var lastUsed: Int64
        /// The rate-limit cells of the clients this loop has seen, from the registry.
        var cells: [String: RateLimitCell] = [:]
    }
}

extension ProfileRegistry {
    /// `dataset`'s profile copied for shard number `index` at `generation` (keeping what the shard drew and when it
    /// last met it while the profile is the same one); nil when it has none.
    fileprivate func copy(_ dataset: String, shard index: Int, generation: UInt64, old: ProfileShard.Entry?)
        -> ProfileShard.Entry?
    {
        entries.withLock { entries in
            guard let entry = entries.profiles[dataset] else { return nil }
            let same = old?.serial == entry.serial
            let (seconds, attoseconds) = entry.since.components
            let seed = entry.profile.faults?.seed ?? UInt64(truncatingIfNeeded: seconds ^ attoseconds)
            return ProfileShard.Entry(
                generation: generation, serial: entry.serial, profile: entry.profile, since: entry.since.nanoseconds,
                tokenKey: entry.tokenKey,
                step: entry.left.firstIndex { $0 > 0 },
                random: same ? old!.random : SplitMix64(seed: seed &+ UInt64(index) &* 0x9E37_79B9_7F4A_7C15),
                lastUsed: same ? max(old!.lastUsed, entry.since.nanoseconds) : entry.since.nanoseconds)
        }
    }

    /// The verdict on shard `index`, for ``verdict(_:loop:_:)``.
    func verdict(
        _ dataset: String, shard index: Int, now: Duration, _ request: (ProfileRequest.Needs) -> ProfileRequest
    ) -> Verdict? {
        let generation = count.generation.load(ordering: .acquiring)
        return shards[index].state.withLock { state -> Verdict? in
            var slot = state.entries.index(forKey: dataset)
            if slot == nil || state.entries.values[slot!].generation != generation {
                let old = slot.map { state.entries.values[$0] }
                guard let fresh = copy(dataset, shard: index, generation: generation, old: old) else {
                    if let slot { state.entries.remove(at: slot) }
                    return nil
                }
                state.entries[dataset] = fresh
                slot = state.entries.index(forKey: dataset)
            }
            return state.entries.values[slot!].judge(
                request, now: now.nanoseconds, registry: self, dataset: dataset, acted: &state.acted)
        }
    }

    /// Claims one use of the step that applies now for `request` (the first not used up, if it matches): its
    /// answer, its number and how many it answers after this one; nil when none matches. A step used up tells the
    /// shards, so that each looks at the next one from its next request on.
    func claimStep(of dataset: String, for request: ProfileRequest) -> (DatasetProfile.Answer, step: Int, left: Int)? {
        entries.withLock { entries in
            guard let index = entries.profiles.index(forKey: dataset),
                let step = entries.profiles.values[index].left.firstIndex(where: { $0 > 0 }),
                entries.profiles.values[index].profile.script[step].match.matches(request)
            else { return nil }
            entries.profiles.values[index].left[step] -= 1
            let left = entries.profiles.values[index].left[step]
            if left == 0 { count.changed() }
            return (entries.profiles.values[index].profile.script[step].answer, step, left)
        }
    }
}

extension ProfileShard.Entry {
    /// ``ProfileRegistry/verdict(_:loop:_:)`` under the shard's lock, on the entry in place.
    fileprivate mutating func judge(
        _ request: (ProfileRequest.Needs) -> ProfileRequest, now: Int64, registry: ProfileRegistry,
        dataset: String, acted: inout ProfileRegistry.Statistics
    ) -> ProfileRegistry.Verdict {
        // Time in nanoseconds here: `Duration`'s 128-bit arithmetic cost some 500 instructions a request.
        // Written once a second, not every request (the idle sweep reads it).
        if now - lastUsed >= 1_000_000_000 { lastUsed = now }
        let request = request(
            ProfileRequest.Needs(
                query: step.map { !profile.script[$0].match.query.isEmpty } ?? false,
                client: profile.rateLimit != nil, token: profile.auth != nil))
        var verdict = ProfileRegistry.Verdict()
        if var faults = profile.faults {
            // A mix that can draw nothing is left behind (an array the verdict would retain for nothing).
            if faults.rate == 0, faults.failFirst == nil { faults.mix = nil }
            verdict.faults = faults
        }
        if let distribution = profile.latency?.distribution(for: request.kind) {
            verdict.latency = distribution.sample(using: &random)
        }
        if let bandwidth = profile.bandwidth, request.kind != .stream {
            verdict.bandwidth = bandwidth
            acted.throttled += 1
        }
        if let outage = profile.outage, let remaining = outage.remaining(afterMilliseconds: (now - since) / 1_000_000) {
            acted.outages += 1
            verdict.decision = .outage(remaining: remaining)
            return verdict
        }
        if let limit = profile.rateLimit {
            // Keyed as the registry keys them, cut to their first bytes: `X-Client-Id` is the client's to choose,
            // up to the head's size.
            let client = ProfileRegistry.clientKey(request.client)
            var cell = cells[client]
            if cell == nil, let made = registry.rateLimitCell(for: client, of: dataset, now: now) {
                // Bounded as the registry's are: past that many clients this loop starts its list over.
                if cells.count >= ProfileRegistry.maximumClients { cells.removeAll(keepingCapacity: true) }
                cells[client] = made
                cell = made
            }
            if let cell {
                let (status, retryAfter) = cell.take(limit, now: now)
                verdict.rateLimit = status
                if let retryAfter {
                    acted.rateLimited += 1
                    verdict.decision = .rateLimited(retryAfter: .nanoseconds(retryAfter))
                    return verdict
                }
            }
        }
        if profile.auth != nil,
            let refusal = ProfileRegistry.refusal(
                of: request.token, carried: request.carriesToken, key: tokenKey, registry: registry, dataset: dataset)
        {
            acted.unauthorized += 1
            verdict.decision = .unauthorized(refusal)
            return verdict
        }
        // The first step not used up is the one that applies: steps run in order. Only a request that matches it
        // goes to the registry, which counts uses for every loop.
        if let step, profile.script[step].match.matches(request),
            let (answer, claimed, left) = registry.claimStep(of: dataset, for: request)
        {
            acted.scripted += 1
            verdict.decision = .scripted(answer, step: claimed, left: left)
        }
        return verdict
    }
}
