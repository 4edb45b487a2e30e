/// Where a server keeps what was written: the lists' writes, their change feeds and the idempotency records.
///
/// Only writes are stored, a sparse overlay over the generated lists; a list nobody wrote to has no rows. The
/// server holds the state of the lists in use in memory (``ListState``) and the store is where that state is made
/// durable: at start only the names of the stored lists are read (``listNames()``), a list's rows on its first use
/// (``loadList(_:)``), and every group of writes is committed as one transaction (``commit(_:)``) before any of
/// them is answered. A dataset nobody uses expires: the store keeps when each list was last used
/// (``recordUse(_:now:)``) and names the idle ones (``idleLists(before:limit:)``), and a commit removes them.
///
/// Implementations (SQLite, PostgreSQL, and ``MemoryListStore`` for tests) pass the same tests. Every method may be
/// called from any task;
/// none may block the caller's thread (an implementation runs its blocking calls on a thread of its own and
/// resumes the caller from there). Calls to ``commit(_:)`` never overlap: the ``WriteCoordinator`` makes them one
/// at a time.
public protocol ListStore: AnyObject, Sendable {
    /// The name of every list that has rows, as the last commit left them.
    func listNames() async throws(StoreFailure) -> [String]

    /// The rows of list `name` as the last commit left them; nil when it has none.
    ///
    /// `nonisolated(nonsending)` for the reason ``commit(_:)`` gives: the coordinator loads a list on the committing
    /// task before its first write.
    nonisolated(nonsending) func loadList(_ name: String) async throws(StoreFailure) -> StoredList?

    /// What each dataset (every list but the default) holds and when it was last used, by name after `after`
    /// (nil: from the first), at most `limit`, in name order.
    func datasetSummaries(after: String?, limit: Int) async throws(StoreFailure) -> [DatasetSummary]

    /// Keeps when these lists were last used (a list that has no rows gets none: this never makes one), and gives
    /// `now` to every list whose last use was never recorded (a list created since the last call, or one from
    /// before the store kept uses), so that it expires its time-to-live after now.
    func recordUse(_ uses: [String: WallTime], now: WallTime) async throws(StoreFailure)

    /// The datasets (never the default list) whose last use recorded is at or before `cutoff`, at most `limit`,
    /// least recently used first.
    func idleLists(before cutoff: WallTime, limit: Int) async throws(StoreFailure) -> [String]

    /// How many datasets (never the default list) hold writes: items handed out past the base count, written or
    /// deleted. A dataset dropped (or reset) since its last write holds none, though its header row stays.
    nonisolated(nonsending) func datasetsHoldingWrites() async throws(StoreFailure) -> Int

    /// The idempotency records with these keys, written less than `maxAge` before `now`; older ones are as good as
    /// gone (and may be pruned at any time).
    nonisolated(nonsending) func idempotencyRecords(_ keys: [IdempotencyKey], now: WallTime, maxAge: Duration)
        async throws(StoreFailure)
        -> [IdempotencyKey: IdempotencyRecord]

    /// Makes `batch` durable, all of it or none of it: when this returns every effect is committed (synced as the
    /// store is configured to), and when it throws none is.
    ///
    /// This and ``idempotencyRecords(_:now:maxAge:)`` run on their caller's executor (`nonisolated(nonsending)`),
    /// the committing task's: a plain `async` requirement hopped to the global executor and back around every
    /// call, each hop asking the task for its executor preference (about 800 instructions a write, callgrind). A
    /// store whose work belongs elsewhere hands it over itself, as SQLiteStore does to its thread.
    nonisolated(nonsending) func commit(_ batch: CommitBatch) async throws(StoreFailure)

    /// The changes of list `list` after sequence number `sequence`, oldest first, at most `limit`.
    ///
    /// Only the most recent changes are kept (how many is the store's setting); `oldestKept` in the answer says where what is
    /// kept begins, so a caller can tell "nothing after S" from "S is older than what is kept".
    func changes(of list: String, after sequence: UInt64, limit: Int) async throws(StoreFailure) -> ChangeWindow

    /// The bytes of the image uploaded for item `id` of `list`, if its digest is still `digest`; nil when the item
    /// has no upload, or another one now.
    func image(of list: String, id: UInt64, digest: UInt128) async throws(StoreFailure) -> [UInt8]?

    /// Finishes pending work and closes the store; later calls fail.
    func close() async

    /// Whether the store answered the last time it was asked (or its connection noticed it gone): false while a
    /// database server is down or unreachable. Always true for a store in a local file.
    var isReachable: Bool { get }

    /// Whether other servers write to the same store (PostgreSQL shared by replicas): then each group commit
    /// starts with ``beginCommit(_:)``, and the coordinator's copies of the lists are brought level with the store
    /// before the group applies. False (the default) for a store this server alone writes to.
    var isShared: Bool { get }

    /// A shared store only: opens the transaction the next ``commit(_:)`` (or ``abandonCommit()``) ends, takes
    /// the write locks of `lists` (so no other server writes to them until then), and returns, for each list whose
    /// stored position differs from the one given, what brings the server's copy level. The coordinator's
    /// ``idempotencyRecords(_:now:maxAge:)`` of the group run inside that transaction.
    nonisolated(nonsending) func beginCommit(_ lists: [String: ListPosition]) async throws(StoreFailure)
        -> [String: ListCatchUp]

    /// A shared store only: ends the transaction ``beginCommit(_:)`` opened without writing (the group changed
    /// nothing), releasing its locks.
    nonisolated(nonsending) func abandonCommit() async

    /// A shared store only: counts one more attempt of `client` at `resource` of list `list` (`?fail_first`) and
    /// returns the count with it, so a client whose retries land on different servers sees its first N fail
    /// whichever server answers; nil (the default) for a store that does not count, when each server counts
    /// in memory. A reset or drop of the list forgets its counts.
    func countAttempt(list: String, client: String, resource: String) async throws(StoreFailure) -> UInt64?

    /// Every stored profile (`PUT /admin/datasets/<name>/profile`), by dataset: what a server sets as it starts.
    func profiles() async throws(StoreFailure) -> [String: StoredProfile]

    /// The stored profile of `list`, if any: what a server sets when another one tells it the profile changed.
    func profile(of list: String) async throws(StoreFailure) -> StoredProfile?

    /// Stores `profile` as `list`'s (nil deletes it), durably before it returns; a shared store tells the other
    /// servers. A drop of the list (``ListEffects/drop``) deletes it too, in the drop's transaction. A profile
    /// stored over one keeps the stored ``StoredProfile/tokenKey`` (a revoke that came between is not undone);
    /// `profile`'s key goes only into a new row.
    func setProfile(_ profile: StoredProfile?, of list: String) async throws(StoreFailure)

    /// Gives `list`'s stored profile a new token key (`POST /auth/revoke`), in one statement, durably, telling the
    /// other servers as ``setProfile(_:of:)`` does; false (nothing written) when it has no stored profile.
    func setTokenKey(_ key: UInt128, of list: String) async throws(StoreFailure) -> Bool

    /// Keeps when requests last met these datasets' profiles (a later time only; a dataset without a stored profile
    /// gets nothing): each server records its own, so a store that servers share knows the last use of every
    /// profile, whichever server met it.
    func recordProfileUse(_ uses: [String: WallTime]) async throws(StoreFailure)

    /// Deletes the stored profiles neither met (``recordProfileUse(_:)``) nor set after `cutoff`, least recently
    /// used first, at most `limit`, in one statement that looks again at each row it deletes (a profile set or met
    /// meanwhile stays), telling the other servers as ``setProfile(_:of:)`` does. Returns their datasets.
    func expireProfiles(idleBefore cutoff: WallTime, limit: Int) async throws(StoreFailure) -> [String]

    /// Where the ``WriteCoordinator`` applies and commits its groups. A store that makes its calls on a thread of
    /// its own offers that thread, so that a group is applied, committed and answered there, without a hop to the
    /// global pool and back around each commit; nil (the default) for the global concurrent executor.
    var preferredExecutor: (any TaskExecutor)? { get }
}

extension ListStore {
    /// Every list that has rows, by name (``listNames()``, then ``loadList(_:)`` for each): what tests and tools
    /// read; the server loads lists on first use.
    public func load() async throws(StoreFailure) -> [String: StoredList] {
        var lists: [String: StoredList] = [:]
        for name in try await listNames() {
            if let list = try await loadList(name) { lists[name] = list }
        }
        return lists
    }

    public var preferredExecutor: (any TaskExecutor)? { nil }

    public var isShared: Bool { false }

    public var isReachable: Bool { true }

    public nonisolated(nonsending) func beginCommit(_ lists: [String: ListPosition]) async throws(StoreFailure)
        -> [String: ListCatchUp]
    { [:] }

    public nonisolated(nonsending) func abandonCommit() async {}

    public func countAttempt(list: String, client: String, resource: String) async throws(StoreFailure) -> UInt64? {
        nil
    }
}

/// A list as the store holds it: the list's header and its written items and deletions.
public struct StoredList: Sendable, Equatable {
    public var header: ListHeader
    /// Items with written fields (created or patched, not deleted), by id.
    public var written: [UInt64: WrittenItem]
    /// Deleted ids, ascending.
    public var deleted: [UInt64]
    /// Chat messages written (sent, edited or deleted) and read markers.
    public var messages: [MessageKey: WrittenMessage] = [:]
    public var readMarkers: [ReadMarkerKey: ReadMarker] = [:]

    public init(header: ListHeader, written: [UInt64: WrittenItem] = [:], deleted: [UInt64] = []) {
        self.header = header
        self.written = written
        self.deleted = deleted
    }
}

/// What a dataset holds, for `GET /admin/datasets`.
public struct DatasetSummary: Sendable, Equatable {
    public var name: String
    /// Its live items: handed-out ids less deleted ones.
    public var liveCount: UInt64
    /// Items with written fields (created or changed, not deleted).
    public var writtenCount: UInt64
    /// About how many bytes its rows take: the written fields' text and a fixed cost per row, its uploads' files,
    /// and its kept changes.
    public var bytes: UInt64
    /// When it was last used, as recorded; nil while none is.
    public var lastUsed: WallTime?

    public init(name: String, liveCount: UInt64, writtenCount: UInt64, bytes: UInt64, lastUsed: WallTime?) {
        self.name = name
        self.liveCount = liveCount
        self.writtenCount = writtenCount
        self.bytes = bytes
        self.lastUsed = lastUsed
    }
}

/// The scalar state of one list.
public struct ListHeader: Sendable, Equatable {
    /// The seed the list is generated from.
    public var seed: UInt64
    /// The number of generated items it (re)starts with.
    public var baseCount: UInt64
    /// 1 at creation, one more per reset.
    public var version: UInt64
    /// The next id to hand out: ids `0..<nextID` exist or were deleted. Never goes down but on a reset.
    public var nextID: UInt64
    /// The sequence number of the list's last change; 0 before the first.
    public var lastSequence: UInt64

    public init(seed: UInt64, baseCount: UInt64, version: UInt64, nextID: UInt64, lastSequence: UInt64) {
        self.seed = seed
        self.baseCount = baseCount
        self.version = version
        self.nextID = nextID
        self.lastSequence = lastSequence
    }
}

/// Everything one group commit changes, all lists together: one transaction.
public struct CommitBatch: Sendable, Equatable {
    /// What changes in each list touched, by name.
    public var lists: [String: ListEffects]
    /// Idempotency records to add (a key that is already stored is never in a batch).
    public var idempotency: [IdempotencyKey: IdempotencyRecord]
    /// The wall-clock time of the commit, stored with the idempotency records.
    public var now: WallTime

    public init(
        lists: [String: ListEffects] = [:], idempotency: [IdempotencyKey: IdempotencyRecord] = [:],
        now: WallTime
    ) {
        self.lists = lists
        self.idempotency = idempotency
        self.now = now
    }

    public var isEmpty: Bool { lists.isEmpty && idempotency.isEmpty }
}

/// What a commit changes in one list, applied in this order: drop or wipe, then the rows (written items,
/// deletions, images, changes), then the header.
public struct ListEffects: Sendable, Equatable {
    /// Whether the list goes away entirely first (`DELETE /admin/datasets/<name>`): its items, uploads, changes
    /// and idempotency records. The header and the `reset` change that follow keep its version and sequence going;
    /// with no header after it, the list is removed for good (``removesList``).
    public var drop = false
    /// Whether every written item, deletion, upload, chat write and idempotency record goes first (a reset);
    /// changes stay.
    public var wipe = false
    /// Items whose written fields are now these (insert or replace), by id.
    public var written: [UInt64: WrittenItem] = [:]
    /// Ids deleted now (their written fields go too; their uploads go by ``images``).
    public var deleted: [UInt64] = []
    /// Uploaded images stored or removed now, by id.
    public var images: [UInt64: ImageEffect] = [:]
    /// Chat messages written now (insert or replace), and read markers set.
    public var messages: [MessageKey: WrittenMessage] = [:]
    public var readMarkers: [ReadMarkerKey: ReadMarker] = [:]
    /// New changes, in sequence order.
    public var changes: [Change] = []
    /// The list's header after the commit; nil only for a drop.
    public var header: ListHeader?

    public init() {}

    /// Whether the list goes away with every row, its header too: an idle dataset expired (a drop keeps its header).
    public var removesList: Bool { drop && header == nil }

    /// Whether these effects change nothing (equal to `ListEffects()`), field by field without building one.
    public var isEmpty: Bool {
        !drop && !wipe && written.isEmpty && deleted.isEmpty && images.isEmpty && changes.isEmpty && header == nil
            && messages.isEmpty && readMarkers.isEmpty
    }
}

/// An idempotency key in the list it was used in (keys are per dataset).
public struct IdempotencyKey: Sendable, Hashable {
    public let list: String
    public let key: String

    public init(list: String, key: String) {
        self.list = list
        self.key = key
    }
}

/// The first answer to a request with an `Idempotency-Key`, for retries to get again.
public struct IdempotencyRecord: Sendable, Equatable {
    /// A digest of what the request asked (method, path, body), so the same key with another request is caught.
    public let fingerprint: [UInt8]
    /// The answer as the HTTP layer encoded it (opaque here).
    public let answer: [UInt8]
    /// When it was first answered.
    public let createdAt: WallTime

    public init(fingerprint: [UInt8], answer: [UInt8], createdAt: WallTime) {
        self.fingerprint = fingerprint
        self.answer = answer
        self.createdAt = createdAt
    }
}

/// The kept changes after a sequence number.
public struct ChangeWindow: Sendable, Equatable {
    /// The changes, oldest first.
    public var changes: [Change]
    /// The sequence number of the oldest change kept, or nil when none is; changes before it are gone.
    public var oldestKept: UInt64?

    public init(changes: [Change], oldestKept: UInt64?) {
        self.changes = changes
        self.oldestKept = oldestKept
    }
}

/// Wall-clock time in milliseconds since 1970 (idempotency records outlive the process, so no monotonic clock).
public struct WallTime: Sendable, Hashable, Comparable {
    public let milliseconds: Int64

    public init(milliseconds: Int64) { self.milliseconds = milliseconds }

    public static func < (lhs: WallTime, rhs: WallTime) -> Bool { lhs.milliseconds < rhs.milliseconds }
}

/// Why the store could not do what it was asked; the HTTP layer answers 503 or 507.
public struct StoreFailure: Error, Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// The disk is full (SQLITE_FULL): 507, and nothing of the batch was applied.
        case full
        /// Anything else (I/O error, busy, closed): 503.
        case unavailable
    }

    public let kind: Kind
    /// What went wrong, for logs and the problem's detail.
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }
}
