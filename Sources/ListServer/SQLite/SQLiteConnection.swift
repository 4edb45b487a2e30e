import CSQLite

/// One `sqlite3` connection: open and close, run SQL, prepare statements and keep the hot ones prepared.
///
/// A thin wrapper over the C API, as small as the store needs (prepare, bind, step, column, finalize): every
/// failing call becomes a ``SQLiteError`` through ``SQLiteError/check(_:_:_:)``. Store thread only: the
/// connection is opened with `SQLITE_OPEN_NOMUTEX` because one thread makes every call on it.
final class SQLiteConnection {
    /// What opening may do to the file.
    enum Mode {
        /// Read and write, creating the file when it is missing.
        case readWriteCreate
        /// Read only (``SQLiteStore``'s test hook: how a read-only file looks to a process that cannot write it).
        case readOnly
    }

    /// The `sqlite3`; nil once closed.
    private var handle: OpaquePointer?
    /// Statements prepared once and reused (``cached(_:)``), by the address of their SQL text. That SQL is always
    /// a literal, and finding its address among a dozen is a few compares: keyed by the text, every use hashed it
    /// whole (about 1,000 instructions a statement, four statements a write: 2 % of a write's instructions,
    /// `valgrind --tool=callgrind`).
    private var statements: [(sql: UnsafeRawPointer, statement: SQLiteStatement)] = []

    /// Opens (or creates) the database at `path` (`:memory:` for a private in-memory one).
    ///
    /// Extended result codes are on, so errors say `SQLITE_IOERR_WRITE` rather than `SQLITE_IOERR`.
    init(path: String, mode: Mode) throws(SQLiteError) {
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        switch mode {
        case .readWriteCreate: flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        case .readOnly: flags |= SQLITE_OPEN_READONLY
        }
        var opened: OpaquePointer?
        let status = sqlite3_open_v2(path, &opened, flags, nil)
        guard status == SQLITE_OK, let opened else {
            // A connection comes back even from most failures, holding the message; it must still be closed.
            let error = SQLiteError(code: status, connection: opened, context: "opening")
            sqlite3_close_v2(opened)
            throw error
        }
        handle = opened
    }

    deinit { close() }

    /// Finalizes the cached statements and closes the connection (`sqlite3_close_v2`: should a statement still be
    /// open, the connection goes when it does). Idempotent.
    func close() {
        for entry in statements { entry.statement.finalize() }
        statements = []
        if let handle { sqlite3_close_v2(handle) }
        handle = nil
    }

    // MARK: Running SQL

    /// Runs `sql`, one or more statements without parameters, ignoring rows.
    func execute(_ sql: String) throws(SQLiteError) {
        let connection = try open()
        try SQLiteError.check(sqlite3_exec(connection, sql, nil, nil, nil), connection, sql)
    }

    /// A new statement for `sql` (one statement); the caller finalizes it.
    func prepare(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        try prepare(sql, flags: 0)
    }

    /// The statement for `sql`, prepared on first use and kept until the connection closes: the commit path's
    /// statements run thousands of times a second, and preparing costs about as much as running them.
    func cached(_ sql: StaticString) throws(SQLiteError) -> SQLiteStatement {
        let key = UnsafeRawPointer(sql.utf8Start)
        for entry in statements where entry.sql == key { return entry.statement }
        let statement = try prepare(sql.description, flags: UInt32(SQLITE_PREPARE_PERSISTENT))
        statements.append((key, statement))
        return statement
    }

    /// Runs `body` with the cached statement for `sql`, then resets it, also when `body` throws, so no statement
    /// stays open (an open read would hold the WAL snapshot; an open write, its lock).
    ///
    /// The bindings stay, so `body` must bind every parameter on every use: clearing them
    /// (`sqlite3_clear_bindings`) cost about 850 instructions a statement, three statements a write.
    func withStatement<T>(_ sql: StaticString, _ body: (SQLiteStatement) throws(SQLiteError) -> T) throws(SQLiteError)
        -> T
    {
        let statement = try cached(sql)
        defer { statement.reset() }
        return try body(statement)
    }

    /// The first column of the first row of `sql` as an integer (a pragma's answer), nil when there is no row.
    func integer(_ sql: String) throws(SQLiteError) -> Int64? {
        let statement = try prepare(sql)
        defer { statement.finalize() }
        return try statement.step() ? statement.int64(at: 0) : nil
    }

    /// Every row's first column of `sql` as text (a pragma's answer).
    func texts(_ sql: String) throws(SQLiteError) -> [String] {
        let statement = try prepare(sql)
        defer { statement.finalize() }
        var texts: [String] = []
        while try statement.step() { texts.append(statement.text(at: 0) ?? "") }
        return texts
    }

    // MARK: State

    /// Whether the database was opened read-only: SQLite opens a file it may not write read-only, without an
    /// error, even when asked for read and write.
    var isReadOnly: Bool {
        guard let handle else { return true }
        return sqlite3_db_readonly(handle, "main") == 1
    }

    /// How many rows the last INSERT, UPDATE or DELETE changed.
    var changes: Int {
        guard let handle else { return 0 }
        return Int(sqlite3_changes(handle))
    }

    /// Whether no transaction is open (SQLite rolls some failed transactions back by itself).
    var isAutocommit: Bool {
        guard let handle else { return true }
        return sqlite3_get_autocommit(handle) != 0
    }

    /// The message of the most recent failure.
    var errorText: String {
        guard let handle else { return "the connection is closed" }
        return String(cString: sqlite3_errmsg(handle))
    }

    /// The extended result code of the most recent failure.
    var extendedErrorCode: Int32 {
        guard let handle else { return SQLITE_MISUSE }
        return sqlite3_extended_errcode(handle)
    }

    /// How long a statement waits for another connection's lock before it fails with `SQLITE_BUSY`.
    func setBusyTimeout(_ timeout: Duration) throws(SQLiteError) {
        let connection = try open()
        let milliseconds = Int32(clamping: timeout.wholeMilliseconds)
        try SQLiteError.check(sqlite3_busy_timeout(connection, milliseconds), connection, "setting the busy timeout")
    }

    private func prepare(_ sql: String, flags: UInt32) throws(SQLiteError) -> SQLiteStatement {
        let connection = try open()
        var statement: OpaquePointer?
        try SQLiteError.check(sqlite3_prepare_v3(connection, sql, -1, flags, &statement, nil), connection, sql)
        guard let statement else {
            throw SQLiteError(code: SQLITE_MISUSE, message: "no statement in the SQL", context: sql)
        }
        return SQLiteStatement(handle: statement, connection: connection, sql: sql)
    }

    private func open() throws(SQLiteError) -> OpaquePointer {
        guard let handle else {
            throw SQLiteError(code: SQLITE_MISUSE, message: "the connection is closed", context: "using it")
        }
        return handle
    }
}
