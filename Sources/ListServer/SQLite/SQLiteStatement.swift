import CSQLite

/// One prepared statement: bind, step, read columns, reset; finalized by its connection.
///
/// Parameter and column indexes are SQLite's: parameters count from 1, columns from 0. `UInt64` values are stored
/// as the `Int64` with the same bits (`Int64(bitPattern:)`), so every value up to 2^64-1 comes back as it went in;
/// SQLite compares and orders them as signed numbers, which matters only above 2^63-1 (see ``SQLiteSchema``).
///
/// Store thread only, like the connection that made it.
final class SQLiteStatement {
    /// The `sqlite3_stmt`.
    private let handle: OpaquePointer
    /// The connection's `sqlite3`, for error messages.
    private let connection: OpaquePointer
    /// The SQL text, for error messages.
    let sql: String
    private var isFinalized = false

    init(handle: OpaquePointer, connection: OpaquePointer, sql: String) {
        self.handle = handle
        self.connection = connection
        self.sql = sql
    }

    // MARK: Binding

    /// Binds an integer to parameter `index`.
    func bind(_ value: Int64, at index: Int32) throws(SQLiteError) {
        try check(sqlite3_bind_int64(handle, index, value))
    }

    /// Binds the bits of `value` as an `Int64`.
    func bind(_ value: UInt64, at index: Int32) throws(SQLiteError) {
        try bind(Int64(bitPattern: value), at: index)
    }

    /// Binds an integer, or NULL for nil.
    func bind(_ value: Int?, at index: Int32) throws(SQLiteError) {
        if let value { try bind(Int64(value), at: index) } else { try bindNull(at: index) }
    }

    /// Binds a literal, which SQLite reads in place (`SQLITE_STATIC`: a literal lives as long as the process).
    func bind(literal text: StaticString, at index: Int32) throws(SQLiteError) {
        let characters = UnsafeRawPointer(text.utf8Start).assumingMemoryBound(to: CChar.self)
        try check(sqlite3_bind_text(handle, index, characters, Int32(text.utf8CodeUnitCount), csqlite_static()))
    }

    /// Binds text that SQLite reads in place (`SQLITE_STATIC`): `text` must stay valid until this parameter is
    /// bound again or the statement is finalized (``SQLiteListTables`` keeps its list names so).
    func bind(kept text: SQLiteKeptText, at index: Int32) throws(SQLiteError) {
        try check(sqlite3_bind_text(handle, index, text.characters, text.count, csqlite_static()))
    }

    /// Binds text (copied by SQLite before this returns), or NULL for nil.
    func bind(_ value: String?, at index: Int32) throws(SQLiteError) {
        guard var text = value else { return try bindNull(at: index) }
        let status = text.withUTF8 { utf8 in
            // A nil base address would bind NULL rather than the empty string.
            guard let base = utf8.baseAddress, !utf8.isEmpty else {
                return sqlite3_bind_text(handle, index, "", 0, csqlite_transient())
            }
            return base.withMemoryRebound(to: CChar.self, capacity: utf8.count) { characters in
                sqlite3_bind_text(handle, index, characters, Int32(utf8.count), csqlite_transient())
            }
        }
        try check(status)
    }

    /// Binds bytes as a blob (copied by SQLite before this returns); an empty array is an empty blob, not NULL.
    func bind(_ bytes: [UInt8], at index: Int32) throws(SQLiteError) {
        let status = bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress, !raw.isEmpty else { return sqlite3_bind_zeroblob(handle, index, 0) }
            return sqlite3_bind_blob(handle, index, base, Int32(raw.count), csqlite_transient())
        }
        try check(status)
    }

    /// Binds NULL.
    func bindNull(at index: Int32) throws(SQLiteError) {
        try check(sqlite3_bind_null(handle, index))
    }

    // MARK: Stepping

    /// Runs the statement to its next row: true when there is one to read, false when it is done.
    @discardableResult
    func step() throws(SQLiteError) -> Bool {
        let status = sqlite3_step(handle)
        if status == SQLITE_ROW { return true }
        if status == SQLITE_DONE { return false }
        throw SQLiteError(code: status, connection: connection, context: sql)
    }

    /// Makes the statement ready to run again; its bindings stay.
    ///
    /// `sqlite3_reset` repeats the error of the last step, which ``step()`` has already thrown, so it is not
    /// checked here.
    func reset() {
        sqlite3_reset(handle)
    }

    /// Frees the statement; the connection calls this before it closes. Idempotent.
    func finalize() {
        guard !isFinalized else { return }
        isFinalized = true
        sqlite3_finalize(handle)
    }

    // MARK: Columns

    /// Whether column `index` of the current row is NULL.
    func isNull(at index: Int32) -> Bool {
        sqlite3_column_type(handle, index) == SQLITE_NULL
    }

    /// Column `index` as an integer (0 for NULL).
    func int64(at index: Int32) -> Int64 {
        sqlite3_column_int64(handle, index)
    }

    /// Column `index` as the `UInt64` whose bits it holds.
    func uint64(at index: Int32) -> UInt64 {
        UInt64(bitPattern: int64(at: index))
    }

    /// Column `index` as an `Int`, nil for NULL.
    func optionalInt(at index: Int32) -> Int? {
        isNull(at: index) ? nil : Int(truncatingIfNeeded: int64(at: index))
    }

    /// Column `index` as text, nil for NULL.
    func text(at index: Int32) -> String? {
        guard !isNull(at: index), let characters = sqlite3_column_text(handle, index) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, index))
        return String(decoding: UnsafeBufferPointer(start: characters, count: count), as: UTF8.self)
    }

    /// Column `index` as bytes (empty for NULL and for an empty blob).
    func blob(at index: Int32) -> [UInt8] {
        guard let bytes = sqlite3_column_blob(handle, index) else { return [] }
        let count = Int(sqlite3_column_bytes(handle, index))
        return Array(UnsafeRawBufferPointer(start: bytes, count: count))
    }

    private func check(_ status: Int32) throws(SQLiteError) {
        try SQLiteError.check(status, connection, "binding a parameter of \(sql)")
    }
}
