/// What a profile's clients make it hold: a rate-limit bucket each, counted in ``ProfileRegistry/maximumBytes`` and
/// bounded per dataset (``ProfileRegistry/maximumClients``), the least useful going first when a new one needs room.
extension ProfileRegistry {
    /// The most clients a dataset's rate limit tracks at once.
    public static let maximumClients = 1000
    /// The longest client key kept (`X-Client-Id` is the client's to choose): longer ones are cut.
    static let maximumClientKeyBytes = 128
    /// What a bucket costs beyond its key, about.
    static let clientEntryBytes = 64

    /// `client` as a rate limit keys it: its first ``maximumClientKeyBytes`` bytes.
    static func clientKey(_ client: String) -> String {
        client.utf8.count > maximumClientKeyBytes
            ? String(decoding: client.utf8.prefix(maximumClientKeyBytes), as: UTF8.self) : client
    }
}

extension ProfileRegistry {
    /// `client`'s rate-limit cell in `dataset`'s profile, made when it has none (``RateLimitCell``): what a shard
    /// asks the first time a client comes to it. Nil when the dataset has no profile any more.
    ///
    /// A new client past ``ProfileRegistry/maximumClients`` (or the byte bound) takes the place of cells that are
    /// full again (a full bucket is the same as none); when none is, it shares one cell with the others that could
    /// not be tracked, so the limit still holds for them together: a client cannot escape its own empty bucket by
    /// bringing a thousand new names. The shared cell is not charged (one per dataset). Dropping cells tells the
    /// shards (``generation``), which drop theirs: a client must not go on with one the others no longer count.
    func rateLimitCell(for client: String, of dataset: String, now: Int64) -> RateLimitCell? {
        entries.withLock { entries in
            guard let index = entries.profiles.index(forKey: dataset) else { return nil }
            let key = Self.clientKey(client)
            if let cell = entries.profiles.values[index].buckets[key] { return cell }
            let (cell, dropped) = entries.profiles.values[index].admit(key, now: now, budget: &entries.bytes)
            if dropped { count.changed() }
            return cell
        }
    }
}

extension ProfileRegistry.Entry {
    /// About how many bytes the entry holds, dataset name included: the profile and the rate-limit cells (but the
    /// shared one, which is never charged).
    func bytes(_ dataset: String) -> Int {
        profile.approximateBytes + dataset.utf8.count
            + buckets.keys.reduce(0) { $0 + ($1.isEmpty ? 0 : ProfileRegistry.clientEntryBytes + $1.utf8.count) }
    }

    /// The cell for a client not seen before (or the shared one it goes to), and whether full cells were dropped
    /// to make room.
    fileprivate mutating func admit(_ key: String, now: Int64, budget: inout Int) -> (RateLimitCell, dropped: Bool) {
        var dropped = false
        var key = key
        let cost = ProfileRegistry.clientEntryBytes + key.utf8.count
        if buckets.count >= ProfileRegistry.maximumClients || budget + cost > ProfileRegistry.maximumBytes {
            for (name, cell) in buckets where !name.isEmpty && cell.isFull(at: now) {
                buckets[name] = nil
                budget -= ProfileRegistry.clientEntryBytes + name.utf8.count
                dropped = true
            }
        }
        if buckets.count >= ProfileRegistry.maximumClients || budget + cost > ProfileRegistry.maximumBytes {
            key = ""  // the shared cell of the untracked (not charged: one per dataset)
        } else {
            budget += cost
        }
        if let cell = buckets[key] { return (cell, dropped) }
        let cell = RateLimitCell()
        buckets[key] = cell
        return (cell, dropped)
    }
}
