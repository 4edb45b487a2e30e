package import ListDomain

/// The ``ListStore`` in a PostgreSQL database (``SettingKey/dataURL``): the same tables and the same semantics as the
/// SQLite store, for servers that share one store.
///
/// Why libpq, and why on threads of its own. The issue offered two clients: postgres-nio (async/await, a pool,
/// `LISTEN` as an async sequence) or libpq. Measured on this machine (BENCHMARKS.md, "Choosing the PostgreSQL
/// client"): postgres-nio brings SwiftNIO and its event-loop threads beside our libevent loops and minutes to a
/// clean build, for the same round trips; libpq is one system library (Debian `libpq-dev`), in a room of its own
/// like SQLite. libpq is not driven from the HTTP loops: a loop that parsed results would spend its time on the
/// store, and libpq's connect resolves host names with a blocking `getaddrinfo` even in its asynchronous mode.
/// Instead a small pool of threads (``PostgresPool``, ``SettingKey/dataPoolSize``) makes the blocking calls, exactly as
/// the SQLite store's thread does, and hands results back through continuations: no loop thread ever waits for
/// PostgreSQL.
///
/// Calls to ``commit(_:)`` never overlap (the ``WriteCoordinator`` makes them one at a time); reads run on the
/// other threads meanwhile. A connection that breaks is made again by the next job that needs it, after a backoff
/// (``PostgresListTables``); until then calls fail `.unavailable` at once (503 with `Retry-After`).
package final class PostgresStore: ListStore {
    /// The schema version this build writes; a database with a higher one is refused.
    package static var schemaVersion: Int64 { PostgresSchema.version }

    /// Where the store is (its password redacted when shown).
    package let url: PostgresURL
    private let pool: PostgresPool
    /// Shared with every connection of the pool and with the server's ``PostgresListener``.
    let reachability: PostgresReachability

    private init(url: PostgresURL, pool: PostgresPool, reachability: PostgresReachability) {
        self.url = url
        self.pool = pool
        self.reachability = reachability
    }

    /// A store that was never closed stops its threads (which then close their connections).
    deinit { pool.requestStop() }

    /// Connects to `url`, brings its schema up to date (once, whichever replica comes first) and starts the pool.
    ///
    /// - Parameters:
    ///   - poolSize: The number of connections, each on a thread of its own (``SettingKey/dataPoolSize``), at least 2:
    ///     the writer's, whose transaction holds the lists' locks between the calls of a group commit (a read run
    ///     there meanwhile would run inside it, and a failed one would roll it back), and the readers'.
    ///   - changesKept: How many of each list's most recent changes are kept; older ones are pruned at commit.
    ///   - idempotencyTTL: How long idempotency records are kept.
    ///   - schema: A schema of its own for the tables (tests: an empty store per test in one database); nil for
    ///     the database's search path.
    /// - Throws: ``PostgresStoreError``, one line naming the redacted URL and what is wrong: the database cannot
    ///   be reached or refused the login, the migration failed, or its schema is newer than this build.
    package static func open(
        url: PostgresURL, poolSize: Int, changesKept: Int, idempotencyTTL: Duration, schema: String? = nil
    ) async throws(PostgresStoreError) -> PostgresStore {
        let options = PostgresListTables.Options(
            url: url, changesKept: changesKept, idempotencyTTL: idempotencyTTL, schema: schema)
        let pool = PostgresPool(size: max(poolSize, 2), options: options)
        do throws(StoreFailure) {
            try await pool.run { tables throws(StoreFailure) in
                let connection = try tables.connected()
                do throws(PostgresSchema.Problem) {
                    try PostgresSchema.migrate(connection)
                } catch {
                    switch error {
                    case .newer(let found):
                        throw StoreFailure(
                            .unavailable,
                            "its schema version is \(found), newer than this ListServer knows "
                                + "(\(PostgresSchema.version)); run a newer ListServer")
                    case .postgres(let error):
                        throw StoreFailure(.unavailable, "the migration failed: \(error.description)")
                    }
                }
            }
        } catch {
            await pool.stop()
            throw PostgresStoreError(url: url, problem: error.message)
        }
        return PostgresStore(url: url, pool: pool, reachability: options.reachability)
    }

    // MARK: ListStore

    package func listNames() async throws(StoreFailure) -> [String] {
        try await pool.run { tables throws(StoreFailure) in try tables.listNames() }
    }

    package nonisolated(nonsending) func loadList(_ name: String) async throws(StoreFailure) -> StoredList? {
        try await pool.run { tables throws(StoreFailure) in try tables.loadList(name) }
    }

    package func datasetSummaries(after: String?, limit: Int) async throws(StoreFailure) -> [DatasetSummary] {
        try await pool.run { tables throws(StoreFailure) in try tables.datasetSummaries(after: after, limit: limit) }
    }

    package func recordUse(_ uses: [String: WallTime], now: WallTime) async throws(StoreFailure) {
        try await pool.run { tables throws(StoreFailure) in try tables.recordUse(uses, now: now) }
    }

    package nonisolated(nonsending) func datasetsHoldingWrites() async throws(StoreFailure) -> Int {
        try await pool.run { tables throws(StoreFailure) in try tables.datasetsHoldingWrites() }
    }

    package func idleLists(before cutoff: WallTime, limit: Int) async throws(StoreFailure) -> [String] {
        try await pool.run { tables throws(StoreFailure) in try tables.idleLists(before: cutoff, limit: limit) }
    }

    package nonisolated(nonsending) func idempotencyRecords(_ keys: [IdempotencyKey], now: WallTime, maxAge: Duration)
        async throws(StoreFailure) -> [IdempotencyKey: IdempotencyRecord]
    {
        // On the writer: inside the transaction that holds the group's locks, so a key cannot be claimed by
        // another server between this lookup and the commit.
        try await pool.run(on: .writer) { tables throws(StoreFailure) in
            try tables.idempotencyRecords(keys, now: now, maxAge: maxAge)
        }
    }

    package nonisolated(nonsending) func commit(_ batch: CommitBatch) async throws(StoreFailure) {
        try await pool.run(on: .writer) { tables throws(StoreFailure) in try tables.commit(batch) }
    }

    package var isReachable: Bool { reachability.isReachable }

    /// Other servers may write to the same database: every group commit locks its lists and catches up first.
    package var isShared: Bool { true }

    package nonisolated(nonsending) func beginCommit(_ lists: [String: ListPosition]) async throws(StoreFailure)
        -> [String: ListCatchUp]
    {
        try await pool.run(on: .writer) { tables throws(StoreFailure) in try tables.beginCommit(lists) }
    }

    package nonisolated(nonsending) func abandonCommit() async {
        _ = try? await pool.run(on: .writer) { tables throws(StoreFailure) in tables.abandonCommit() }
    }

    package func changes(of list: String, after sequence: UInt64, limit: Int) async throws(StoreFailure)
        -> ChangeWindow
    {
        try await pool.run { tables throws(StoreFailure) in
            try tables.changes(of: list, after: sequence, limit: limit)
        }
    }

    package func image(of list: String, id: UInt64, digest: UInt128) async throws(StoreFailure) -> [UInt8]? {
        try await pool.run { tables throws(StoreFailure) in try tables.image(of: list, id: id, digest: digest) }
    }

    package func countAttempt(list: String, client: String, resource: String) async throws(StoreFailure) -> UInt64? {
        try await pool.run { tables throws(StoreFailure) in
            try tables.countAttempt(list: list, client: client, resource: resource, now: WallTime.now())
        }
    }

    package func profiles() async throws(StoreFailure) -> [String: StoredProfile] {
        try await pool.run { tables throws(StoreFailure) in try tables.profiles(of: nil) }
    }

    package func profile(of list: String) async throws(StoreFailure) -> StoredProfile? {
        try await pool.run { tables throws(StoreFailure) in try tables.profiles(of: list)[list] }
    }

    package func setProfile(_ profile: StoredProfile?, of list: String) async throws(StoreFailure) {
        try await pool.run { tables throws(StoreFailure) in try tables.setProfile(profile, of: list) }
    }

    package func setTokenKey(_ key: UInt128, of list: String) async throws(StoreFailure) -> Bool {
        try await pool.run { tables throws(StoreFailure) in try tables.setTokenKey(key, of: list) }
    }

    package func recordProfileUse(_ uses: [String: WallTime]) async throws(StoreFailure) {
        guard !uses.isEmpty else { return }
        try await pool.run { tables throws(StoreFailure) in try tables.recordProfileUse(uses) }
    }

    package func expireProfiles(idleBefore cutoff: WallTime, limit: Int) async throws(StoreFailure) -> [String] {
        try await pool.run { tables throws(StoreFailure) in
            try tables.expireProfiles(idleBefore: cutoff, limit: limit)
        }
    }

    /// Runs the jobs already queued, closes the connections and stops the threads; later calls throw
    /// `.unavailable`.
    package func close() async {
        await pool.stop()
    }
}

/// Why the PostgreSQL store cannot be opened: one line for the start-up error, with the password hidden.
package struct PostgresStoreError: Error, CustomStringConvertible {
    package let url: PostgresURL
    package let problem: String

    package var description: String { "\(SettingKey.dataURL.name) \(url.redacted): \(problem)" }
}
