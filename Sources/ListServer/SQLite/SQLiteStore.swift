package import ListDomain

/// The ``ListStore`` in an SQLite file: one connection, on one thread of its own, in WAL mode.
///
/// Every SQLite call runs on the store's thread (``SQLiteStoreThread``); the async methods queue a job there and
/// suspend until it is done (called on the thread itself, as the coordinator's commits are, they run at once), so
/// no caller's thread ever waits on the disk. The thread runs the jobs one at a time,
/// so each ``commit(_:)`` is exactly one transaction of the batch the ``WriteCoordinator`` grouped, and its one
/// sync (`synchronous = FULL`: at every commit; `NORMAL`: at WAL checkpoints, which in WAL mode can lose the last
/// commits on a power cut but never corrupts the file) is paid once per group.
///
/// Why a small wrapper of our own over SQLite's C API (``SQLiteConnection``, ``SQLiteStatement``: prepare, bind,
/// step, column, finalize) rather than GRDB, the model of a Swift SQLite library: GRDB 7.10 is available, but its
/// Linux support is unofficial and has had link errors against Debian's libsqlite3 in the past, and it brings its
/// own dispatch queues (`DatabaseQueue`, `DatabasePool`), while the store needs one writer thread of its own whose
/// transaction grouping it controls. The wrapper is small: a few hundred lines, one place for result codes.
/// Checked on this machine (Swift 6.3.1, Debian 12, libsqlite3 3.40.1): GRDB 7.10.0 builds, links and runs a
/// write and a read in a throwaway package (debug build), so the choice rests on the threads and the control,
/// not on link errors.
package final class SQLiteStore: ListStore {
    /// How hard a commit syncs: SQLite's `PRAGMA synchronous`.
    package enum Synchronous: String, Sendable {
        /// Every commit is synced to the disk before it returns: durable against power loss.
        case full
        /// Commits are synced at WAL checkpoints: durable against a crash of the process, not of the machine.
        case normal
    }

    /// The schema version this build writes (`PRAGMA user_version`); a file with a higher one is refused.
    package static var schemaVersion: Int64 { SQLiteSchema.version }

    /// The file (or `:memory:`).
    package let path: String
    private let thread: SQLiteStoreThread

    private init(path: String, thread: SQLiteStoreThread) {
        self.path = path
        self.thread = thread
    }

    /// A store that was never closed stops its thread (which then closes the connection).
    deinit { thread.requestStop() }

    /// Opens (or creates) the store at `path`, checks the file and brings its schema up to date.
    ///
    /// - Parameters:
    ///   - path: The database file; its folder is created (with its parents) when missing. `:memory:` is a
    ///     throwaway in-memory store.
    ///   - synchronous: How hard a commit syncs (see ``Synchronous``).
    ///   - changesKept: How many of each list's most recent changes are kept; older ones are pruned at commit.
    ///   - idempotencyTTL: How long idempotency records are kept; older ones are pruned every 1,000 commits or
    ///     once a minute.
    /// - Throws: ``SQLiteStoreError``, one line naming the path and what is wrong: the file cannot be read or
    ///   created, is not a database or is damaged (`PRAGMA quick_check`), is read-only (or its folder is), or has
    ///   a schema version newer than this build.
    package static func open(
        path: String, synchronous: Synchronous, changesKept: Int, idempotencyTTL: Duration
    ) async throws(SQLiteStoreError) -> SQLiteStore {
        try await open(
            path: path, synchronous: synchronous, changesKept: changesKept, idempotencyTTL: idempotencyTTL,
            busyTimeout: .seconds(2), readOnlyForTesting: false)
    }

    /// ``open(path:synchronous:changesKept:idempotencyTTL:)`` with the settings tests change.
    ///
    /// - Parameters:
    ///   - busyTimeout: How long a statement waits for a lock another process holds on the file before the call
    ///     fails `.unavailable` (2 s by default: the server is the file's only writer, so a lock is someone's
    ///     `sqlite3` shell or backup, and writes should not queue up behind it for long).
    ///   - readOnlyForTesting: Opens the file with `SQLITE_OPEN_READONLY`, to see the read-only start-up error
    ///     where the tests cannot make a file read-only (as root, without `chattr`).
    package static func open(
        path: String, synchronous: Synchronous, changesKept: Int, idempotencyTTL: Duration,
        busyTimeout: Duration, readOnlyForTesting: Bool
    ) async throws(SQLiteStoreError) -> SQLiteStore {
        let options = SQLiteListTables.Options(
            path: path, synchronous: synchronous, changesKept: changesKept, idempotencyTTL: idempotencyTTL,
            busyTimeout: busyTimeout, readOnly: readOnlyForTesting)
        let thread = SQLiteStoreThread(name: "sqlite-store")
        do throws(SQLiteStoreError) {
            try await thread.open(path: path) { () throws(SQLiteStoreError) in try SQLiteListTables(options) }
        } catch {
            await thread.stop()
            throw error
        }
        return SQLiteStore(path: path, thread: thread)
    }

    // MARK: ListStore

    package func listNames() async throws(StoreFailure) -> [String] {
        try await thread.run { tables throws(StoreFailure) in try tables.listNames() }
    }

    package nonisolated(nonsending) func loadList(_ name: String) async throws(StoreFailure) -> StoredList? {
        try await thread.run { tables throws(StoreFailure) in try tables.loadList(name) }
    }

    package func datasetSummaries(after: String?, limit: Int) async throws(StoreFailure) -> [DatasetSummary] {
        try await thread.run { tables throws(StoreFailure) in try tables.datasetSummaries(after: after, limit: limit) }
    }

    package func recordUse(_ uses: [String: WallTime], now: WallTime) async throws(StoreFailure) {
        try await thread.run { tables throws(StoreFailure) in try tables.recordUse(uses, now: now) }
    }

    package nonisolated(nonsending) func datasetsHoldingWrites() async throws(StoreFailure) -> Int {
        try await thread.run { tables throws(StoreFailure) in try tables.datasetsHoldingWrites() }
    }

    package func idleLists(before cutoff: WallTime, limit: Int) async throws(StoreFailure) -> [String] {
        try await thread.run { tables throws(StoreFailure) in try tables.idleLists(before: cutoff, limit: limit) }
    }

    package nonisolated(nonsending) func idempotencyRecords(_ keys: [IdempotencyKey], now: WallTime, maxAge: Duration)
        async throws(StoreFailure) -> [IdempotencyKey: IdempotencyRecord]
    {
        try await thread.run { tables throws(StoreFailure) in
            try tables.idempotencyRecords(keys, now: now, maxAge: maxAge)
        }
    }

    package nonisolated(nonsending) func commit(_ batch: CommitBatch) async throws(StoreFailure) {
        try await thread.run { tables throws(StoreFailure) in try tables.commit(batch) }
    }

    package func changes(of list: String, after sequence: UInt64, limit: Int) async throws(StoreFailure)
        -> ChangeWindow
    {
        try await thread.run { tables throws(StoreFailure) in
            try tables.changes(of: list, after: sequence, limit: limit)
        }
    }

    package func image(of list: String, id: UInt64, digest: UInt128) async throws(StoreFailure) -> [UInt8]? {
        try await thread.run { tables throws(StoreFailure) in try tables.image(of: list, id: id, digest: digest) }
    }

    package func profiles() async throws(StoreFailure) -> [String: StoredProfile] {
        try await thread.run { tables throws(StoreFailure) in try tables.profiles() }
    }

    package func profile(of list: String) async throws(StoreFailure) -> StoredProfile? {
        try await thread.run { tables throws(StoreFailure) in try tables.profiles(of: list)[list] }
    }

    package func setProfile(_ profile: StoredProfile?, of list: String) async throws(StoreFailure) {
        try await thread.run { tables throws(StoreFailure) in try tables.setProfile(profile, of: list) }
    }

    package func setTokenKey(_ key: UInt128, of list: String) async throws(StoreFailure) -> Bool {
        try await thread.run { tables throws(StoreFailure) in try tables.setTokenKey(key, of: list) }
    }

    package func recordProfileUse(_ uses: [String: WallTime]) async throws(StoreFailure) {
        guard !uses.isEmpty else { return }
        try await thread.run { tables throws(StoreFailure) in try tables.recordProfileUse(uses) }
    }

    package func expireProfiles(idleBefore cutoff: WallTime, limit: Int) async throws(StoreFailure) -> [String] {
        try await thread.run { tables throws(StoreFailure) in
            try tables.expireProfiles(idleBefore: cutoff, limit: limit)
        }
    }

    /// The store's thread: the ``WriteCoordinator`` applies and commits its groups on it, so a write crosses two
    /// threads (its loop's and this one), not four (the loop, the global pool, this thread, the pool again).
    package var preferredExecutor: (any TaskExecutor)? { thread }

    /// Runs the jobs already queued, closes the connection and stops the thread; later calls throw
    /// `.unavailable`.
    package func close() async {
        await thread.stop()
    }

    // MARK: Tests

    /// Runs `sql` on the store's own connection, on its thread: for tests that change what only this connection
    /// sees (`PRAGMA max_page_count`, to make commits fail as on a full disk).
    package func executeForTesting(_ sql: String) async throws(StoreFailure) {
        try await thread.run { tables throws(StoreFailure) in
            do throws(SQLiteError) {
                try tables.connection.execute(sql)
            } catch {
                throw error.storeFailure
            }
        }
    }
}
