import ListDomain

/// A ``MemoryListStore`` whose commits can be held at a gate, so a test can look at the world while a commit is in
/// flight (and let writes queue behind it).
///
/// While ``isHolding`` is true, each commit waits before reaching the store until ``release()`` or ``open()``.
final class GatedListStore: ListStore {
    private struct State {
        var holding = false
        var held: [CheckedContinuation<Void, Never>] = []
        var batches: [CommitBatch] = []
    }

    let inner: MemoryListStore
    private let state = PThreadLocked(State())

    init(_ inner: MemoryListStore = MemoryListStore(), holding: Bool = true) {
        self.inner = inner
        state.withLock { $0.holding = holding }
    }

    /// Whether commits are held.
    var isHolding: Bool { state.withLock { $0.holding } }
    /// How many commits wait at the gate.
    var heldCount: Int { state.withLock { $0.held.count } }
    /// Every batch that passed the gate, in order (whether the store then committed it or failed).
    var batches: [CommitBatch] { state.withLock { $0.batches } }

    /// Lets the commits waiting now through; later ones are held while ``isHolding``.
    func release() {
        let held = state.withLock { state in
            defer { state.held = [] }
            return state.held
        }
        for continuation in held { continuation.resume() }
    }

    /// Holds the commits from now on.
    func hold() { state.withLock { $0.holding = true } }

    /// Stops holding commits, and lets the waiting ones through.
    func open() {
        state.withLock { $0.holding = false }
        release()
    }

    func listNames() async throws(StoreFailure) -> [String] { try await inner.listNames() }

    nonisolated(nonsending) func loadList(_ name: String) async throws(StoreFailure) -> StoredList? {
        try await inner.loadList(name)
    }

    func datasetSummaries(after: String?, limit: Int) async throws(StoreFailure) -> [DatasetSummary] {
        try await inner.datasetSummaries(after: after, limit: limit)
    }

    func recordUse(_ uses: [String: WallTime], now: WallTime) async throws(StoreFailure) {
        try await inner.recordUse(uses, now: now)
    }

    nonisolated(nonsending) func datasetsHoldingWrites() async throws(StoreFailure) -> Int {
        try await inner.datasetsHoldingWrites()
    }

    func idleLists(before cutoff: WallTime, limit: Int) async throws(StoreFailure) -> [String] {
        try await inner.idleLists(before: cutoff, limit: limit)
    }

    nonisolated(nonsending) func idempotencyRecords(_ keys: [IdempotencyKey], now: WallTime, maxAge: Duration)
        async throws(StoreFailure)
        -> [IdempotencyKey: IdempotencyRecord]
    {
        try await inner.idempotencyRecords(keys, now: now, maxAge: maxAge)
    }

    nonisolated(nonsending) func commit(_ batch: CommitBatch) async throws(StoreFailure) {
        await withCheckedContinuation { continuation in
            let passes = state.withLock { state in
                guard state.holding else { return true }
                state.held.append(continuation)
                return false
            }
            if passes { continuation.resume() }
        }
        state.withLock { $0.batches.append(batch) }
        try await inner.commit(batch)
    }

    func changes(of list: String, after sequence: UInt64, limit: Int) async throws(StoreFailure) -> ChangeWindow {
        try await inner.changes(of: list, after: sequence, limit: limit)
    }

    func image(of list: String, id: UInt64, digest: UInt128) async throws(StoreFailure) -> [UInt8]? {
        try await inner.image(of: list, id: id, digest: digest)
    }

    func profiles() async throws(StoreFailure) -> [String: StoredProfile] { try await inner.profiles() }

    func profile(of list: String) async throws(StoreFailure) -> StoredProfile? { try await inner.profile(of: list) }

    func setProfile(_ profile: StoredProfile?, of list: String) async throws(StoreFailure) {
        try await inner.setProfile(profile, of: list)
    }

    func setTokenKey(_ key: UInt128, of list: String) async throws(StoreFailure) -> Bool {
        try await inner.setTokenKey(key, of: list)
    }

    func recordProfileUse(_ uses: [String: WallTime]) async throws(StoreFailure) {
        try await inner.recordProfileUse(uses)
    }

    func expireProfiles(idleBefore cutoff: WallTime, limit: Int) async throws(StoreFailure) -> [String] {
        try await inner.expireProfiles(idleBefore: cutoff, limit: limit)
    }

    func close() async { await inner.close() }
}
