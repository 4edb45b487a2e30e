import Synchronization

/// The profiles of the datasets that have one (``DatasetProfile``), and what each has used of its script: shared by
/// every loop, so a step answers exactly `times` requests however they are spread over the loops.
///
/// While no dataset has a profile a request costs one atomic load (``isEmpty``); once one does, a request to any
/// dataset takes the lock for a lookup. Bounded: ``capacity`` profiles, ``maximumBytes`` of them in all.
/// Kept in memory: a restart forgets the profiles, and servers that share a store do not share them.
public final class ProfileRegistry: Sendable {
    /// A profile, when it was set, and how many more requests each of its steps answers.
    public struct Entry: Sendable, Equatable {
        public let profile: DatasetProfile
        /// When the profile was set (``ProfileRegistry``'s clock): its outage counts from here.
        public let since: Duration
        /// By step, how many more matching requests it answers.
        public var left: [Int]

        public init(profile: DatasetProfile, since: Duration, left: [Int]) {
            self.profile = profile
            self.since = since
            self.left = left
        }
    }

    /// What a profile does to one request.
    public enum Decision: Sendable, Equatable {
        /// The dataset is in an outage for `remaining` more.
        case outage(remaining: Duration)
        /// Step `step` (from 0) answers it, and answers `left` more after it.
        case scripted(DatasetProfile.Answer, step: Int, left: Int)
    }

    /// How many profiles there are, and how many requests they acted on since the start, by cause.
    public struct Statistics: Sendable, Equatable {
        public var profiles = 0
        public var outages: UInt64 = 0
        public var scripted: UInt64 = 0
    }

    /// The most datasets that may have a profile at once.
    public static let capacity = 10_000
    /// The most bytes all profiles may hold together (``DatasetProfile/approximateBytes``).
    public static let maximumBytes = 16 << 20

    private let entries = Mutex<(profiles: [String: Entry], bytes: Int, acted: Statistics)>(([:], 0, Statistics()))
    private let count = Atomic<Int>(0)
    /// Monotonic time, from any origin.
    private let now: @Sendable () -> Duration

    public init(now: @escaping @Sendable () -> Duration) {
        self.now = now
    }

    /// The profiles now, and what they did so far.
    public var statistics: Statistics {
        entries.withLock { entries in
            var statistics = entries.acted
            statistics.profiles = entries.profiles.count
            return statistics
        }
    }

    /// Whether no dataset has a profile: the one check a request pays then.
    public var isEmpty: Bool { count.load(ordering: .relaxed) == 0 }

    /// Sets (or with nil or an empty profile, clears) the profile of `dataset`; a script starts over, an outage
    /// starts now. Returns false (and sets nothing) when it would make more than ``capacity`` profiles or
    /// ``maximumBytes``.
    @discardableResult
    public func set(_ profile: DatasetProfile?, for dataset: String) -> Bool {
        let started = now()
        return entries.withLock { entries in
            let replaced = entries.profiles[dataset].map { $0.profile.approximateBytes + dataset.utf8.count } ?? 0
            guard let profile, profile != DatasetProfile() else {
                entries.profiles[dataset] = nil
                entries.bytes -= replaced
                count.store(entries.profiles.count, ordering: .relaxed)
                return true
            }
            let bytes = profile.approximateBytes + dataset.utf8.count
            guard entries.profiles[dataset] != nil || entries.profiles.count < Self.capacity,
                entries.bytes - replaced + bytes <= Self.maximumBytes
            else { return false }
            entries.profiles[dataset] = Entry(profile: profile, since: started, left: profile.script.map(\.times))
            entries.bytes += bytes - replaced
            count.store(entries.profiles.count, ordering: .relaxed)
            return true
        }
    }

    /// The profile of `dataset` as it stands, and how long ago it was set; nil without one.
    public func entry(of dataset: String) -> (entry: Entry, elapsed: Duration)? {
        let now = now()
        return entries.withLock { entries in entries.profiles[dataset].map { ($0, now - $0.since) } }
    }

    /// The faults `dataset`'s profile draws, if it has any.
    public func faults(of dataset: String) -> DatasetProfile.Faults? {
        guard !isEmpty else { return nil }
        return entries.withLock { entries in entries.profiles[dataset]?.profile.faults }
    }

    /// What `dataset`'s profile does to `request` (a step it matches is used once); nil when nothing.
    ///
    /// - Parameter request: Made only when the dataset has a profile.
    public func decide(_ dataset: String, _ request: () -> ProfileRequest) -> Decision? {
        guard !isEmpty else { return nil }
        let now = now()
        return entries.withLock { entries in
            guard let entry = entries.profiles[dataset] else { return nil }
            if let outage = entry.profile.outage, let remaining = outage.remaining(after: now - entry.since) {
                entries.acted.outages += 1
                return .outage(remaining: remaining)
            }
            // The first step not used up is the one that applies: steps run in order.
            guard let step = entry.left.firstIndex(where: { $0 > 0 }),
                entry.profile.script[step].match.matches(request())
            else { return nil }
            entries.profiles[dataset]!.left[step] -= 1  // in place: no copy of the entry
            entries.acted.scripted += 1
            return .scripted(entry.profile.script[step].answer, step: step, left: entry.left[step] - 1)
        }
    }
}
