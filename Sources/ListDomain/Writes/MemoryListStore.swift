import Synchronization

/// A ``ListStore`` in memory: what the domain's tests commit to, and the reference the real stores are held to.
///
/// It can be told to fail the next commits (``failNextCommits(_:with:)``), to rehearse a full disk.
public final class MemoryListStore: ListStore {
    private struct Contents {
        var lists: [String: StoredList] = [:]
        var changes: [String: [Change]] = [:]
        var idempotency: [IdempotencyKey: IdempotencyRecord] = [:]
        /// Uploaded images' bytes, by list and id, with their digests.
        var images: [String: [UInt64: (digest: UInt128, bytes: [UInt8])]] = [:]
        /// When each list was last used, as recorded (a list without an entry: never recorded).
        var lastUsed: [String: WallTime] = [:]
        var profiles: [String: StoredProfile] = [:]
        /// When each stored profile was last met (``recordProfileUse(_:)``).
        var profileUses: [String: WallTime] = [:]
        /// Lists loaded one by one (``loadList(_:)``), in order: tests check what a server loads, and when.
        var loads: [String] = []
        var failures: [StoreFailure] = []
        var commits = 0
        var closed = false
    }

    /// How many changes per list are kept.
    public let changesKept: Int
    private let contents = Mutex(Contents())

    public init(changesKept: Int = 100_000) {
        self.changesKept = changesKept
    }

    /// Makes the next `count` commits fail with `failure`, applying nothing.
    public func failNextCommits(_ count: Int, with failure: StoreFailure) {
        contents.withLock { $0.failures += Array(repeating: failure, count: count) }
    }

    /// How many commits succeeded.
    public var commitCount: Int { contents.withLock { $0.commits } }

    public func listNames() async throws(StoreFailure) -> [String] {
        try contents.withLock { contents throws(StoreFailure) in
            try Self.checkOpen(contents)
            return Array(contents.lists.keys)
        }
    }

    public nonisolated(nonsending) func loadList(_ name: String) async throws(StoreFailure) -> StoredList? {
        try contents.withLock { contents throws(StoreFailure) in
            try Self.checkOpen(contents)
            contents.loads.append(name)
            return contents.lists[name]
        }
    }

    /// The lists ``loadList(_:)`` read, in order.
    public var loadedLists: [String] { contents.withLock { $0.loads } }

    public func datasetSummaries(after: String?, limit: Int) async throws(StoreFailure) -> [DatasetSummary] {
        try contents.withLock { contents throws(StoreFailure) in
            try Self.checkOpen(contents)
            let names = contents.lists.keys.filter { name in !name.isEmpty && (after.map { name > $0 } ?? true) }
                .sorted().prefix(limit)
            return names.map { name in
                let list = contents.lists[name]!
                let text = list.written.values.reduce(0) { total, item in
                    total + (item.overrides.label?.utf8.count ?? 0) + (item.overrides.author?.utf8.count ?? 0)
                        + (item.image?.byteCount ?? 0)
                }
                let chat =
                    list.messages.values.reduce(0) { $0 + 64 + $1.text.utf8.count } + 64 * list.readMarkers.count
                return DatasetSummary(
                    name: name, liveCount: list.header.nextID - UInt64(list.deleted.count),
                    writtenCount: UInt64(list.written.count),
                    bytes: UInt64(text + chat + 48 * (list.written.count + list.deleted.count + 1)),
                    lastUsed: contents.lastUsed[name])
            }
        }
    }

    public func recordUse(_ uses: [String: WallTime], now: WallTime) async throws(StoreFailure) {
        try contents.withLock { contents throws(StoreFailure) in
            try Self.checkOpen(contents)
            for (name, time) in uses where contents.lists[name] != nil {
                contents.lastUsed[name] = max(contents.lastUsed[name] ?? time, time)
            }
            for name in contents.lists.keys where contents.lastUsed[name] == nil { contents.lastUsed[name] = now }
        }
    }

    public nonisolated(nonsending) func datasetsHoldingWrites() async throws(StoreFailure) -> Int {
        try contents.withLock { contents throws(StoreFailure) in
            try Self.checkOpen(contents)
            return contents.lists.filter { name, list in
                !name.isEmpty
                    && (list.header.nextID != list.header.baseCount || !list.written.isEmpty || !list.deleted.isEmpty
                        || !list.messages.isEmpty || !list.readMarkers.isEmpty)
            }.count
        }
    }

    public func idleLists(before cutoff: WallTime, limit: Int) async throws(StoreFailure) -> [String] {
        try contents.withLock { contents throws(StoreFailure) in
            try Self.checkOpen(contents)
            let idle = contents.lastUsed.filter {
                !$0.key.isEmpty && contents.lists[$0.key] != nil && $0.value <= cutoff
            }
            return idle.sorted { $0.value < $1.value }.prefix(limit).map(\.key)
        }
    }

    public nonisolated(nonsending) func idempotencyRecords(_ keys: [IdempotencyKey], now: WallTime, maxAge: Duration)
        async
        throws(StoreFailure) -> [IdempotencyKey: IdempotencyRecord]
    {
        let oldest = now.milliseconds - Int64(maxAge.components.seconds * 1000)
        return try contents.withLock { contents throws(StoreFailure) in
            try Self.checkOpen(contents)
            var found: [IdempotencyKey: IdempotencyRecord] = [:]
            for key in keys {
                if let record = contents.idempotency[key], record.createdAt.milliseconds > oldest {
                    found[key] = record
                }
            }
            return found
        }
    }

    public nonisolated(nonsending) func commit(_ batch: CommitBatch) async throws(StoreFailure) {
        try contents.withLock { contents throws(StoreFailure) in
            try Self.checkOpen(contents)
            if !contents.failures.isEmpty { throw contents.failures.removeFirst() }
            for (name, effects) in batch.lists {
                if effects.drop {
                    contents.lists[name] = nil
                    contents.changes[name] = nil
                    contents.idempotency = contents.idempotency.filter { $0.key.list != name }
                    contents.images[name] = nil
                    contents.lastUsed[name] = nil
                    contents.profiles[name] = nil
                    contents.profileUses[name] = nil
                }
                guard let header = effects.header else { continue }
                var list = contents.lists[name] ?? StoredList(header: header)
                if effects.wipe {
                    list.written = [:]
                    list.deleted = []
                    list.messages = [:]
                    list.readMarkers = [:]
                    contents.idempotency = contents.idempotency.filter { $0.key.list != name }
                    contents.images[name] = nil
                }
                for (id, effect) in effects.images {
                    switch effect {
                    case .put(let image, let bytes): contents.images[name, default: [:]][id] = (image.digest, bytes)
                    case .remove: contents.images[name]?[id] = nil
                    }
                }
                for (id, item) in effects.written { list.written[id] = item }
                list.messages.merge(effects.messages) { _, new in new }
                list.readMarkers.merge(effects.readMarkers) { _, new in new }
                for id in effects.deleted { list.written[id] = nil }
                list.deleted = Array(Set(list.deleted).union(effects.deleted)).sorted()
                list.header = header
                contents.lists[name] = list
                var changes = contents.changes[name, default: []] + effects.changes
                if changes.count > changesKept { changes.removeFirst(changes.count - changesKept) }
                contents.changes[name] = changes
            }
            contents.idempotency.merge(batch.idempotency) { _, new in new }
            contents.commits += 1
        }
    }

    public func changes(of list: String, after sequence: UInt64, limit: Int) async throws(StoreFailure)
        -> ChangeWindow
    {
        try contents.withLock { contents throws(StoreFailure) in
            try Self.checkOpen(contents)
            let kept = contents.changes[list] ?? []
            return ChangeWindow(
                changes: Array(kept.lazy.filter { $0.sequence > sequence }.prefix(limit)),
                oldestKept: kept.first?.sequence)
        }
    }

    public func image(of list: String, id: UInt64, digest: UInt128) async throws(StoreFailure) -> [UInt8]? {
        try contents.withLock { contents throws(StoreFailure) in
            try Self.checkOpen(contents)
            guard let stored = contents.images[list]?[id], stored.digest == digest else { return nil }
            return stored.bytes
        }
    }

    /// How many uploaded images are stored, in every list.
    public var imageCount: Int { contents.withLock { $0.images.values.reduce(0) { $0 + $1.count } } }

    public func profiles() async throws(StoreFailure) -> [String: StoredProfile] {
        try contents.withLock { contents throws(StoreFailure) in
            try Self.checkOpen(contents)
            return contents.profiles
        }
    }

    public func profile(of list: String) async throws(StoreFailure) -> StoredProfile? {
        try contents.withLock { contents throws(StoreFailure) in
            try Self.checkOpen(contents)
            return contents.profiles[list]
        }
    }

    public func setProfile(_ profile: StoredProfile?, of list: String) async throws(StoreFailure) {
        try contents.withLock { contents throws(StoreFailure) in
            try Self.checkOpen(contents)
            if !contents.failures.isEmpty { throw contents.failures.removeFirst() }
            var profile = profile
            if let stored = contents.profiles[list], profile != nil { profile!.tokenKey = stored.tokenKey }
            contents.profiles[list] = profile
            if profile == nil { contents.profileUses[list] = nil }
        }
    }

    public func setTokenKey(_ key: UInt128, of list: String) async throws(StoreFailure) -> Bool {
        try contents.withLock { contents throws(StoreFailure) in
            try Self.checkOpen(contents)
            if !contents.failures.isEmpty { throw contents.failures.removeFirst() }
            guard contents.profiles[list] != nil else { return false }
            contents.profiles[list]!.tokenKey = key
            return true
        }
    }

    public func recordProfileUse(_ uses: [String: WallTime]) async throws(StoreFailure) {
        try contents.withLock { contents throws(StoreFailure) in
            try Self.checkOpen(contents)
            for (list, time) in uses where contents.profiles[list] != nil {
                contents.profileUses[list] = max(contents.profileUses[list] ?? time, time)
            }
        }
    }

    public func expireProfiles(idleBefore cutoff: WallTime, limit: Int) async throws(StoreFailure) -> [String] {
        try contents.withLock { contents throws(StoreFailure) in
            try Self.checkOpen(contents)
            let uses = contents.profileUses
            let idle = contents.profiles.compactMap { list, stored -> (String, WallTime)? in
                let used = max(stored.setAt, uses[list] ?? stored.setAt)
                return used <= cutoff ? (list, used) : nil
            }
            let removed = idle.sorted { $0.1 < $1.1 }.prefix(max(limit, 0)).map(\.0)
            for list in removed {
                contents.profiles[list] = nil
                contents.profileUses[list] = nil
            }
            return removed
        }
    }

    public func close() async {
        contents.withLock { $0.closed = true }
    }

    private static func checkOpen(_ contents: Contents) throws(StoreFailure) {
        if contents.closed { throw StoreFailure(.unavailable, "the store is closed") }
    }
}
