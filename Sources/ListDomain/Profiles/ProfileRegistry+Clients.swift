/// What a profile's clients make it hold: a rate-limit bucket each, and the tokens issued to them. Both count in
/// ``ProfileRegistry/maximumBytes`` and are bounded per dataset: ``ProfileRegistry/maximumClients`` buckets and
/// ``ProfileRegistry/maximumTokens`` tokens, the least useful going first when a new one needs room.
extension ProfileRegistry {
    /// The most clients a dataset's rate limit tracks at once.
    public static let maximumClients = 1000
    /// The most tokens a dataset holds at once.
    public static let maximumTokens = 1000
    /// The longest client key kept (`X-Client-Id` is the client's to choose): longer ones are cut.
    static let maximumClientKeyBytes = 128
    /// What a bucket costs beyond its key, about, and what a token costs.
    static let clientEntryBytes = 64
    static let tokenBytes = 64

    /// A token for `dataset`, valid `tokenTTLSeconds` of its profile's ``DatasetProfile/Auth`` from now; `token` is
    /// what the caller made (random). Nil when the dataset's profile wants no token (nothing to remember), or
    /// when the profiles hold as much as they may.
    @discardableResult
    public func issue(_ token: UInt128, for dataset: String) -> (token: UInt128, expiresIn: Int)? {
        let now = now()
        return entries.withLock { entries in
            guard let ttl = entries.profiles[dataset]?.profile.auth?.tokenTTLSeconds else { return nil }
            let cost = Self.tokenBytes
            // The dataset's expired tokens go first when room is short: they let no one in.
            let short = entries.bytes + cost > Self.maximumBytes
            entries.bytes -= entries.profiles[dataset]!.makeRoomForToken(now: now, sweep: short)
            guard entries.bytes + cost <= Self.maximumBytes else { return nil }
            entries.profiles[dataset]!.tokens[token] = now + .seconds(ttl)
            entries.bytes += cost
            return (token, ttl)
        }
    }

    /// Expires every token of `dataset` now; how many there were.
    @discardableResult
    public func revokeTokens(of dataset: String) -> Int {
        entries.withLock { entries in
            guard let tokens = entries.profiles[dataset]?.tokens else { return 0 }
            entries.profiles[dataset]!.tokens = [:]
            entries.bytes -= tokens.count * Self.tokenBytes
            return tokens.count
        }
    }
}

extension ProfileRegistry.Entry {
    /// A client's token bucket: `level` requests available as of `updated`.
    struct Bucket: Sendable {
        var level: Double
        var updated: Duration
    }

    /// About how many bytes the entry holds, dataset name included: the profile, the buckets (but the shared one,
    /// which is never charged) and the tokens.
    func bytes(_ dataset: String) -> Int {
        profile.approximateBytes + dataset.utf8.count
            + buckets.keys.reduce(0) { $0 + ($1.isEmpty ? 0 : ProfileRegistry.clientEntryBytes + $1.utf8.count) }
            + tokens.count * ProfileRegistry.tokenBytes
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
        var key =
            client.utf8.count > ProfileRegistry.maximumClientKeyBytes
            ? String(decoding: client.utf8.prefix(ProfileRegistry.maximumClientKeyBytes), as: UTF8.self) : client
        let capacity = Double(limit.capacity)
        let rate = limit.refillPerSecond
        if buckets[key] == nil {
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
        }
        var bucket = buckets[key]!
        bucket.level = level(bucket, capacity, rate, now)
        bucket.updated = now
        var retryAfter: Duration?
        if bucket.level >= 1 {
            bucket.level -= 1
        } else {
            retryAfter = .seconds((1 - bucket.level) / rate)
        }
        buckets[key] = bucket
        let status = ProfileRegistry.RateLimitStatus(
            policy: policyField, quota: limit.requests, windowSeconds: limit.perSeconds,
            remaining: Int(bucket.level.rounded(.down)),
            resetSeconds: Int(((capacity - bucket.level) / rate).rounded(.up)))
        return (status, retryAfter)
    }

    /// The bucket's level at `now`: refilled since it was last counted, never above `capacity`.
    private func level(_ bucket: Bucket, _ capacity: Double, _ rate: Double, _ now: Duration) -> Double {
        let elapsed = max(.zero, now - bucket.updated)  // `now` is read before the lock: it may be a little behind
        let (seconds, attoseconds) = elapsed.components
        return min(capacity, bucket.level + (Double(seconds) + Double(attoseconds) * 1e-18) * rate)
    }

    /// Why `token` does not let a request in (missing, unknown, expired); nil when it does.
    func refusal(of token: UInt128?, carried: Bool, now: Duration) -> String? {
        guard carried else { return "the dataset's profile wants a bearer token, and the request carries none" }
        guard let token else { return "the token is not one this dataset issued (32 hex digits), or it was revoked" }
        guard let expiry = tokens[token] else { return "the token is not one this dataset issued, or it was revoked" }
        guard now < expiry else { return "the token expired" }
        return nil
    }

    /// Drops the expired tokens when the dataset holds ``ProfileRegistry/maximumTokens`` (or `sweep`), and when
    /// still full, the one that expires first; returns the bytes freed.
    mutating func makeRoomForToken(now: Duration, sweep: Bool = false) -> Int {
        guard sweep || tokens.count >= ProfileRegistry.maximumTokens else { return 0 }
        var freed = 0
        for (token, expiry) in tokens where expiry <= now {
            tokens[token] = nil
            freed += ProfileRegistry.tokenBytes
        }
        if tokens.count >= ProfileRegistry.maximumTokens, let first = tokens.min(by: { $0.value < $1.value }) {
            tokens[first.key] = nil
            freed += ProfileRegistry.tokenBytes
        }
        return freed
    }
}

extension ProfileRegistry.Entry {
    /// How many tokens are held (expired ones until they are swept or revoked too).
    public var tokenCount: Int { tokens.count }
}
