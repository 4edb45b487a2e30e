/// What a profile's clients make it hold: a rate-limit bucket each, counted in ``ProfileRegistry/maximumBytes`` and
/// bounded per dataset (``ProfileRegistry/maximumClients``), the least useful going first when a new one needs room.
extension ProfileRegistry {
    /// The most clients a dataset's rate limit tracks at once.
    public static let maximumClients = 1000
    /// The longest client key kept (`X-Client-Id` is the client's to choose): longer ones are cut.
    static let maximumClientKeyBytes = 128
    /// What a bucket costs beyond its key, about.
    static let clientEntryBytes = 64
}

extension ProfileRegistry.Entry {
    /// A client's token bucket: `level` requests available as of `updated`.
    struct Bucket: Sendable {
        var level: Double
        var updated: Duration
    }

    /// About how many bytes the entry holds, dataset name included: the profile and the buckets (but the shared
    /// one, which is never charged).
    func bytes(_ dataset: String) -> Int {
        profile.approximateBytes + dataset.utf8.count
            + buckets.keys.reduce(0) { $0 + ($1.isEmpty ? 0 : ProfileRegistry.clientEntryBytes + $1.utf8.count) }
    }

    /// Counts one request of `client` against `limit`: its standing afterwards, and when refused, when it may ask
    /// again. `budget` is the registry's byte count, charged for a new client.
    ///
    /// A new client past ``ProfileRegistry/maximumClients`` (or the byte bound) takes the place of buckets that are
    /// full again (a full bucket is the same as none); when none is, it shares one bucket with the others that
    /// could not be tracked, so the limit still holds for them together: a client cannot escape its own empty
    /// bucket by bringing a thousand new names. The shared bucket is not charged (one per dataset).
    mutating func take(_ limit: DatasetProfile.RateLimit, client: String, now: Duration, budget: inout Int)
        -> (ProfileRegistry.RateLimitStatus, retryAfter: Duration?)
    {
        let capacity = Double(limit.capacity)
        let rate = limit.refillPerSecond
        // One lookup for a client seen before (the common case), its bucket counted in place.
        let index =
            buckets.index(forKey: client)
            ?? admit(client, capacity: capacity, rate: rate, now: now, budget: &budget)
        var bucket = buckets.values[index]
        bucket.level = level(bucket, capacity, rate, now)
        bucket.updated = now
        var retryAfter: Duration?
        if bucket.level >= 1 {
            bucket.level -= 1
        } else {
            retryAfter = .seconds((1 - bucket.level) / rate)
        }
        buckets.values[index] = bucket
        let status = ProfileRegistry.RateLimitStatus(
            quota: limit.requests, windowSeconds: limit.perSeconds,
            remaining: Int(bucket.level.rounded(.down)),
            resetSeconds: Int(((capacity - bucket.level) / rate).rounded(.up)))
        return (status, retryAfter)
    }

    /// Makes a bucket for a client not seen before (or finds the shared one it goes to): its index.
    private mutating func admit(_ client: String, capacity: Double, rate: Double, now: Duration, budget: inout Int)
        -> Dictionary<String, Bucket>.Index
    {
        var key =
            client.utf8.count > ProfileRegistry.maximumClientKeyBytes
            ? String(decoding: client.utf8.prefix(ProfileRegistry.maximumClientKeyBytes), as: UTF8.self) : client
        if let index = buckets.index(forKey: key) { return index }  // a long name, cut to one seen before
        let cost = ProfileRegistry.clientEntryBytes + key.utf8.count
        if buckets.count >= ProfileRegistry.maximumClients || budget + cost > ProfileRegistry.maximumBytes {
            for (name, bucket) in buckets where !name.isEmpty && level(bucket, capacity, rate, now) >= capacity {
                buckets[name] = nil
                budget -= ProfileRegistry.clientEntryBytes + name.utf8.count
            }
        }
        if buckets.count >= ProfileRegistry.maximumClients || budget + cost > ProfileRegistry.maximumBytes {
            key = ""  // the shared bucket of the untracked (not charged: one per dataset)
        } else {
            budget += cost
        }
        if buckets[key] == nil { buckets[key] = Bucket(level: capacity, updated: now) }
        return buckets.index(forKey: key)!
    }

    /// The bucket's level at `now`: refilled since it was last counted, never above `capacity`.
    private func level(_ bucket: Bucket, _ capacity: Double, _ rate: Double, _ now: Duration) -> Double {
        let elapsed = max(.zero, now - bucket.updated)  // `now` is read before the lock: it may be a little behind
        let (seconds, attoseconds) = elapsed.components
        return min(capacity, bucket.level + (Double(seconds) + Double(attoseconds) * 1e-18) * rate)
    }
}
