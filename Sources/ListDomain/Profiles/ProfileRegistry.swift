import Synchronization

/// The profiles of the datasets that have one (``DatasetProfile``), and what each has used of its script: shared by
/// every loop, so a step answers exactly `times` requests however they are spread over the loops.
///
/// While no dataset has a profile a request costs one atomic load (``isEmpty``), and a request to a dataset
/// without one a look at a filter of names. A request to a profiled dataset is judged on its loop's shard
/// (``ProfileShard``), which takes no lock another loop takes. Bounded: ``capacity`` profiles, ``maximumBytes`` of
/// them in all.
/// In memory: the router stores each profile before setting it here, and sets the stored ones at start and when
/// another server changed one (`Router+Profiles.swift`). What clients make it hold (rate-limit buckets) counts in
/// the same bound, and is bounded per dataset besides; tokens hold nothing (`ProfileRegistry+Tokens.swift`).
public final class ProfileRegistry: Sendable {
    /// A profile, when it was set, how many more requests each of its steps answers, what its clients hold (their
    /// rate-limit buckets, `ProfileRegistry+Clients.swift`) and the key its tokens are signed with.
    public struct Entry: Sendable, Equatable {
        public let profile: DatasetProfile
        /// When the profile was set (``ProfileRegistry``'s clock): its outage counts from here.
        public let since: Duration
        /// By step, how many more matching requests it answers.
        public var left: [Int]
        /// Which setting of the profile this is (the registry's generation when it was set): a shard keeps its
        /// draws while it is the same one, and starts them over from the seed when it was set again.
        var serial: UInt64 = 0
        /// By client, its rate-limit cell (shared with the shards that met the client).
        var buckets: [String: RateLimitCell] = [:]
        /// The key of the dataset's tokens (``ProfileRegistry/TokenSigner``): stored with the profile, so that
        /// every server sharing the store checks a token the same way; a new one revokes every token issued.
        public internal(set) var tokenKey: UInt128 = 0
        /// When it was set by the store's clock (``StoredProfile/setAt``): a server told of a change that is this
        /// one already (its own, heard back) leaves it be.
        public var setAt: WallTime?

        public init(profile: DatasetProfile, since: Duration, left: [Int]) {
            self.profile = profile
            self.since = since
            self.left = left
        }

        public static func == (lhs: Entry, rhs: Entry) -> Bool {
            lhs.profile == rhs.profile && lhs.since == rhs.since && lhs.left == rhs.left && lhs.tokenKey == rhs.tokenKey
        }
    }

    /// What a profile does in place of a request's answer.
    public enum Decision: Sendable, Equatable {
        /// The dataset is in an outage for `remaining` more.
        case outage(remaining: Duration)
        /// The client asked more often than the rate limit lets it: it may again in `retryAfter`.
        case rateLimited(retryAfter: Duration)
        /// The dataset wants a token, and the request has none that is valid: `refusal` says why.
        case unauthorized(TokenRefusal)
        /// Step `step` (from 0) answers it, and answers `left` more after it.
        case scripted(DatasetProfile.Answer, step: Int, left: Int)
    }

    /// Everything a profile does to one request: an answer in place of the route's, if any, and how its answer
    /// travels. Plain values (a fault mix only where it can act): a verdict is copied several times a request,
    /// and one holding a string or an array of the profile's retained and released it each time, from both loops.
    public struct Verdict: Sendable, Equatable {
        public var decision: Decision?
        /// Latency drawn for the request's kind of route.
        public var latency: Duration = .zero
        public var bandwidth: DatasetProfile.Bandwidth?
        /// Where the client stands with the rate limit, for the `RateLimit` fields of every answer.
        public var rateLimit: RateLimitStatus?
        /// The profile's faults, for a request without fault parameters of its own.
        public var faults: DatasetProfile.Faults?

        public init(decision: Decision? = nil) {
            self.decision = decision
        }
    }

    /// A client's standing with the rate limit (the IETF `RateLimit-Policy` and `RateLimit` fields).
    public struct RateLimitStatus: Sendable, Equatable {
        /// The quota (`requests`) and its window (`per_s`).
        public var quota: Int
        public var windowSeconds: Int
        /// Requests it may still make now.
        public var remaining: Int
        /// Whole seconds until its bucket is full again.
        public var resetSeconds: Int
    }

    /// How many profiles there are, and how many requests they acted on since the start, by cause.
    public struct Statistics: Sendable, Equatable {
        public var profiles = 0
        public var outages: UInt64 = 0
        public var scripted: UInt64 = 0
        public var rateLimited: UInt64 = 0
        public var unauthorized: UInt64 = 0
        /// Answers sent at the profile's bandwidth.
        public var throttled: UInt64 = 0
    }

    /// The most datasets that may have a profile at once.
    public static let capacity = 10_000
    /// The most bytes all profiles may hold together (``DatasetProfile/approximateBytes``).
    public static let maximumBytes = 16 << 20

    let entries = Mutex<(profiles: [String: Entry], bytes: Int)>(([:], 0))
    /// How many profiles there are, in an allocation of its own: beside the lock, every request's load of it
    /// missed the cache whenever the other loop had just taken the lock (perf: `isEmpty` rose to 0.2 % of the
    /// server's time with a profile in use).
    let count = ProfileCount()
    /// What ``changedDirectly(_:)`` calls.
    private let directChange = Mutex<(@Sendable (String) -> Void)?>(nil)
    /// Told each time a dataset's profile is set or cleared (``onSet(_:)``).
    private let setObservers = Mutex<[@Sendable (String, Entry?) -> Void]>([])
    /// Held while the observers are told (``set(_:for:age:setAt:tokenKey:)``).
    private let notifying = Mutex<Void>(())
    /// The time (this registry's clock) up to which uses are recorded (``usesRecorded(through:)``).
    private let recorded = Mutex<Duration>(.zero)
    /// The loops' shards; a loop's index picks one (more loops than shards share).
    let shards = (0..<8).map { _ in ProfileShard() }
    /// Monotonic time, from any origin.
    let now: @Sendable () -> Duration
    /// The wall clock, in milliseconds since 1970: what a token's expiry counts in, the same on every server.
    let wallClock: @Sendable () -> Int64
    /// Signs tokens.
    let signer: TokenSigner

    public init(
        now: @escaping @Sendable () -> Duration, wallClock: @escaping @Sendable () -> Int64,
        signer: @escaping TokenSigner
    ) {
        self.now = now
        self.wallClock = wallClock
        self.signer = signer
    }

    /// The profiles now, and what they did so far.
    public var statistics: Statistics {
        var statistics = Statistics()
        statistics.profiles = entries.withLock { $0.profiles.count }
        for shard in shards {
            let acted = shard.state.withLock { $0.acted }
            statistics.outages += acted.outages
            statistics.scripted += acted.scripted
            statistics.rateLimited += acted.rateLimited
            statistics.unauthorized += acted.unauthorized
            statistics.throttled += acted.throttled
        }
        return statistics
    }

    /// Whether no dataset has a profile: the one check a request pays then.
    public var isEmpty: Bool { count.value.load(ordering: .relaxed) == 0 }

    /// Whether `profile` would fit as `dataset`'s: not one more than ``capacity`` profiles, not past
    /// ``maximumBytes`` (what ``set(_:for:age:setAt:)`` checks again).
    public func fits(_ profile: DatasetProfile, for dataset: String) -> Bool {
        entries.withLock { entries in
            Self.entry(
                profile, for: dataset, since: .zero, setAt: nil, tokenKey: 0, among: entries.profiles,
                bytes: entries.bytes) != nil
        }
    }

    /// The entry `profile` makes for `dataset` with tokens signed by `tokenKey`, keeping what its clients hold
    /// (their buckets), and the bytes it adds; nil when it would make more than ``capacity`` profiles or pass
    /// ``maximumBytes`` (`bytes` held now).
    private static func entry(
        _ profile: DatasetProfile, for dataset: String, since: Duration, setAt: WallTime?, tokenKey: UInt128,
        among profiles: [String: Entry], bytes: Int
    ) -> (entry: Entry, added: Int)? {
        var entry = Entry(profile: profile, since: since, left: profile.script.map(\.times))
        entry.setAt = setAt
        entry.tokenKey = tokenKey
        let old = profiles[dataset]
        // The clients' cells go on under the same limit; under another they would be read wrong (a cell is the time
        // its bucket is full again, which depends on the rate), so a new limit starts every bucket full.
        if let old, old.profile.rateLimit == profile.rateLimit { entry.buckets = old.buckets }
        let added = entry.bytes(dataset) - (old?.bytes(dataset) ?? 0)
        guard old != nil || profiles.count < capacity, bytes + added <= maximumBytes else { return nil }
        return (entry, added)
    }

    /// Sets (or with nil or an empty profile, clears) the profile of `dataset`, its tokens signed by `tokenKey`;
    /// a script starts over, an outage starts `age` ago (now, unless it was set earlier: before a restart, or by
    /// another server). Returns false (and sets nothing) when it would make more than ``capacity`` profiles or
    /// ``maximumBytes``.
    @discardableResult
    public func set(
        _ profile: DatasetProfile?, for dataset: String, age: Duration = .zero, setAt: WallTime? = nil,
        tokenKey: UInt128 = 0
    ) -> Bool {
        let done = store(profile, for: dataset, age: age, setAt: setAt, tokenKey: tokenKey)
        let observers = setObservers.withLock { $0 }
        if done, !observers.isEmpty {
            // Read and told under one lock: sets that race are told in the order they read, and the last told is
            // the profile as it stands. Read, then told, outside it, one set's entry read before another's store could
            // be told after that one's, leaving the simulated participants on the older profile.
            notifying.withLock { _ in
                let entry = entry(of: dataset)?.entry
                for observer in observers { observer(dataset, entry) }
            }
        }
        return done
    }

    /// Calls `observer` with the dataset and its entry (nil: none) each time a profile is set or cleared through
    /// ``set(_:for:age:setAt:tokenKey:)``, on the caller's thread, after the registry's locks are given back, one
    /// call at a time, the last with the profile as it stands: what acts on a profile outside requests (the chat's
    /// simulated participants) follows it so. `observer` must not set a profile.
    public func onSet(_ observer: @escaping @Sendable (String, Entry?) -> Void) {
        setObservers.withLock { $0.append(observer) }
    }

    private func store(
        _ profile: DatasetProfile?, for dataset: String, age: Duration, setAt: WallTime?, tokenKey: UInt128
    ) -> Bool {
        let started = now() - max(age, .zero)
        guard let profile, profile != DatasetProfile() else {
            let removed = entries.withLock { entries in
                guard let old = entries.profiles.removeValue(forKey: dataset) else { return false }
                count.remove(dataset)
                entries.bytes -= old.bytes(dataset)
                count.changed()
                return true
            }
            // The loops' copies go too, after the registry's (a shard's lock is never taken inside it): a copy made
            // before the removal is put in under the shard's lock, so it is gone by the time this takes that lock.
            // Left, copies of removed profiles would pile up in shards whose loops never meet those datasets again.
            if removed { for shard in shards { _ = shard.state.withLock { $0.entries.removeValue(forKey: dataset) } } }
            return true
        }
        return entries.withLock { entries in
            guard
                var (entry, added) = Self.entry(
                    profile, for: dataset, since: started, setAt: setAt, tokenKey: tokenKey, among: entries.profiles,
                    bytes: entries.bytes)
            else { return false }
            entry.serial = count.generation.load(ordering: .relaxed) &+ 1  // the generation this change makes
            if entries.profiles.updateValue(entry, forKey: dataset) == nil { count.add(dataset) }
            entries.bytes += added
            count.changed()
            return true
        }
    }

    /// Asks that `dataset`'s profile be read from the store again and set as it is there, after this server set or
    /// cleared it, or gave it a new token key, directly. A server whose store others share hands the name to its
    /// listener (``onDirectChange(_:)``), which sets what it hears in order, so the store's state is set last: a
    /// direct set that came after another server's change was heard (a PUT and a DELETE at once, two revokes)
    /// would otherwise stay until the dataset changed again. Nothing happens without a listener. Returns whether
    /// a listener took it.
    @discardableResult
    public func changedDirectly(_ dataset: String) -> Bool {
        guard let handler = directChange.withLock({ $0 }) else { return false }
        handler(dataset)
        return true
    }

    /// Sets what ``changedDirectly(_:)`` calls (once, as the server starts).
    public func onDirectChange(_ handler: @escaping @Sendable (String) -> Void) {
        directChange.withLock { $0 = handler }
    }

    /// The datasets that have a profile.
    public var datasets: [String] { entries.withLock { Array($0.profiles.keys) } }

    /// When a request on this server last met each profile, by the wall clock, for those met since the uses
    /// recorded through (``usesRecorded(through:)``); and the registry's time now, which those uses go up to. A use
    /// is noted to the second (``ProfileShard``).
    public func unrecordedUses() -> (uses: [String: WallTime], through: Duration) {
        let now = now()
        let wall = wallClock()
        let mark = recorded.withLock { $0 }.nanoseconds
        var used: [String: Int64] = [:]
        let profiled = entries.withLock { Set($0.profiles.keys) }
        for shard in shards {
            shard.state.withLock { state in
                for (dataset, entry) in state.entries where entry.lastUsed > mark && profiled.contains(dataset) {
                    used[dataset] = max(used[dataset] ?? entry.lastUsed, entry.lastUsed)
                }
            }
        }
        let nanoseconds = now.nanoseconds
        return (used.mapValues { WallTime(milliseconds: wall - (nanoseconds - $0) / 1_000_000) }, now)
    }

    /// Notes that the uses ``unrecordedUses()`` returned with `through` are kept (by the store): the next call
    /// returns only those after ``recordOverlap`` before it. A request reads the clock before it takes its shard's
    /// lock, so one that read it just before `through` may note its use after the shards were read; without the
    /// overlap that use, and the second of uses after it that are not noted, would never be recorded. A use
    /// recorded twice changes nothing (the store keeps the later time).
    public func usesRecorded(through: Duration) {
        recorded.withLock { $0 = max($0, through - Self.recordOverlap) }
    }

    /// How far back from the last record ``unrecordedUses()`` looks again.
    public static let recordOverlap = Duration.seconds(2)

    /// The profile of `dataset` as it stands, and how long ago it was set; nil without one.
    public func entry(of dataset: String) -> (entry: Entry, elapsed: Duration)? {
        let now = now()
        return entries.withLock { entries in entries.profiles[dataset].map { ($0, now - $0.since) } }
    }

    /// What `dataset`'s profile does to `request` on loop `loop`: a step it matches is used once, a rate limit
    /// counts it, a latency is drawn. Nil when the dataset has no profile.
    ///
    /// In order: an outage answers everything; then the rate limit counts the request (refused ones too: a client
    /// that hammers is refused however it asks); then a token is checked; then the script.
    ///
    /// - Parameter request: Made only when the dataset has a profile, with only what the profile looks at
    ///   (``ProfileRequest/Needs``): decoding a query costs more than the rest of a verdict.
    public func verdict(_ dataset: String, loop: Int = 0, _ request: (ProfileRequest.Needs) -> ProfileRequest)
        -> Verdict?
    {
        guard !isEmpty, count.mayHave(dataset) else { return nil }
        return verdict(dataset, shard: loop & (shards.count - 1), now: now(), request)
    }
}

/// How many profiles there are, and a 256-bit filter of their datasets' names, on a cache line of their own (64
/// bytes of padding after them): read by every request, written by a `PUT`.
///
/// The filter lets a request to a dataset without a profile pass without the lock while others have one: both
/// loops took it for every such request (about 6 % more CPU a page beside one profiled dataset,
/// `Benchmarks/profiles/cost.sh`). A set bit may be another name's (then the lock decides); a clear one is sure.
/// `@unchecked Sendable`: ``names`` (how many datasets each bit stands for) is touched only under the registry's
/// lock; the atomics are read without it.
final class ProfileCount: @unchecked Sendable {
    let value = Atomic<Int>(0)
    /// Moves on whenever what the shards copied may have changed (``ProfileShard``): read by every request to a
    /// profiled dataset, written by a change.
    let generation = Atomic<UInt64>(0)
    private let filter0 = Atomic<UInt64>(0)
    private let filter1 = Atomic<UInt64>(0)
    private let filter2 = Atomic<UInt64>(0)
    private let filter3 = Atomic<UInt64>(0)
    private var names = [Int](repeating: 0, count: 256)
    private let padding: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)

    /// Something the shards copy changed (under the registry's lock): they copy it again.
    func changed() {
        generation.add(1, ordering: .releasing)
    }

    /// A profile for `name` was added (under the registry's lock).
    func add(_ name: String) {
        let bit = Self.bit(of: name)
        names[bit] += 1
        if names[bit] == 1 { change(bit, on: true) }
        value.add(1, ordering: .relaxed)
    }

    /// `name`'s profile was removed (under the registry's lock).
    func remove(_ name: String) {
        let bit = Self.bit(of: name)
        names[bit] -= 1
        if names[bit] == 0 { change(bit, on: false) }
        value.subtract(1, ordering: .relaxed)
    }

    /// Whether `name` may have a profile: false means it has none.
    func mayHave(_ name: String) -> Bool {
        let bit = Self.bit(of: name)
        let word =
            switch bit >> 6 {
            case 0: filter0.load(ordering: .relaxed)
            case 1: filter1.load(ordering: .relaxed)
            case 2: filter2.load(ordering: .relaxed)
            default: filter3.load(ordering: .relaxed)
            }
        return word & (1 << UInt64(bit & 63)) != 0
    }

    /// Sets or clears `bit` of the filter.
    private func change(_ bit: Int, on: Bool) {
        let mask: UInt64 = 1 << UInt64(bit & 63)
        switch (bit >> 6, on) {
        case (0, true): filter0.bitwiseOr(mask, ordering: .relaxed)
        case (0, false): filter0.bitwiseAnd(~mask, ordering: .relaxed)
        case (1, true): filter1.bitwiseOr(mask, ordering: .relaxed)
        case (1, false): filter1.bitwiseAnd(~mask, ordering: .relaxed)
        case (2, true): filter2.bitwiseOr(mask, ordering: .relaxed)
        case (2, false): filter2.bitwiseAnd(~mask, ordering: .relaxed)
        case (_, true): filter3.bitwiseOr(mask, ordering: .relaxed)
        case (_, false): filter3.bitwiseAnd(~mask, ordering: .relaxed)
        }
    }

    /// `name`'s bit: FNV-1a of its bytes, folded to 0..<256.
    private static func bit(of name: String) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return Int(truncatingIfNeeded: (hash ^ hash >> 32) & 255)
    }
}
