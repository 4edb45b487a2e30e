import CSQLite
import FoundationEssentials
import Glibc
import ListDomain

/// A failed SQLite call: the one place SQLite's result codes become Swift errors (GRDB's `ResultCode` plays this
/// part there).
///
/// Every call whose status matters goes through ``check(_:_:_:)``, which reads the connection's extended result
/// code, its message and the `errno` of the last failed system call while they still belong to this failure
/// (the store thread makes every call on its connection, so nothing comes in between).
struct SQLiteError: Error, CustomStringConvertible, Equatable {
    /// The extended result code (`SQLITE_IOERR_WRITE` rather than `SQLITE_IOERR`): connections are opened with
    /// `SQLITE_OPEN_EXRESCODE`.
    let code: Int32
    /// `sqlite3_errmsg` at the time, or `sqlite3_errstr(code)` when there was no connection.
    let message: String
    /// `sqlite3_system_errno`: the `errno` of the last system call that failed, 0 when none did.
    let systemErrno: Int32
    /// What the caller was doing ("BEGIN IMMEDIATE", "opening", a statement's SQL).
    let context: String

    /// The primary result code (`SQLITE_IOERR` for `SQLITE_IOERR_WRITE`).
    var primaryCode: Int32 { code & 0xFF }

    /// Whether the disk (or the user's quota) is full: `SQLITE_FULL`, or an I/O error whose system call failed
    /// with `ENOSPC` or `EDQUOT` (SQLite reports some failed writes, a full `-shm` mapping among them, as I/O
    /// errors).
    var isDiskFull: Bool {
        primaryCode == SQLITE_FULL
            || (primaryCode == SQLITE_IOERR && (systemErrno == ENOSPC || systemErrno == EDQUOT))
    }

    /// The error with the state of `connection` (nil: no connection, the code's own text).
    init(code: Int32, connection: OpaquePointer?, context: String) {
        self.code = code
        self.context = context
        if let connection {
            message = String(cString: sqlite3_errmsg(connection))
            systemErrno = sqlite3_system_errno(connection)
        } else {
            message = String(cString: sqlite3_errstr(code))
            systemErrno = 0
        }
    }

    /// An error that SQLite did not report but the wrapper found (a pragma answering something unexpected).
    init(code: Int32, message: String, context: String) {
        self.code = code
        self.message = message
        self.systemErrno = 0
        self.context = context
    }

    /// Throws unless `status` is `SQLITE_OK` (or, for steps, `SQLITE_ROW` and `SQLITE_DONE`).
    static func check(_ status: Int32, _ connection: OpaquePointer?, _ context: @autoclosure () -> String)
        throws(SQLiteError)
    {
        guard status != SQLITE_OK && status != SQLITE_ROW && status != SQLITE_DONE else { return }
        throw SQLiteError(code: status, connection: connection, context: context())
    }

    /// `SQLITE_FULL`, `SQLITE_IOERR_WRITE`, … : the primary code's name, with the extended code in numbers when it
    /// is one.
    var codeName: String {
        let names: [Int32: String] = [
            SQLITE_ERROR: "SQLITE_ERROR", SQLITE_PERM: "SQLITE_PERM", SQLITE_ABORT: "SQLITE_ABORT",
            SQLITE_BUSY: "SQLITE_BUSY", SQLITE_LOCKED: "SQLITE_LOCKED", SQLITE_NOMEM: "SQLITE_NOMEM",
            SQLITE_READONLY: "SQLITE_READONLY", SQLITE_INTERRUPT: "SQLITE_INTERRUPT", SQLITE_IOERR: "SQLITE_IOERR",
            SQLITE_CORRUPT: "SQLITE_CORRUPT", SQLITE_FULL: "SQLITE_FULL", SQLITE_CANTOPEN: "SQLITE_CANTOPEN",
            SQLITE_PROTOCOL: "SQLITE_PROTOCOL", SQLITE_SCHEMA: "SQLITE_SCHEMA", SQLITE_TOOBIG: "SQLITE_TOOBIG",
            SQLITE_CONSTRAINT: "SQLITE_CONSTRAINT", SQLITE_MISMATCH: "SQLITE_MISMATCH", SQLITE_MISUSE: "SQLITE_MISUSE",
            SQLITE_AUTH: "SQLITE_AUTH", SQLITE_RANGE: "SQLITE_RANGE", SQLITE_NOTADB: "SQLITE_NOTADB",
        ]
        let name = names[primaryCode] ?? "SQLite code \(primaryCode)"
        return code == primaryCode ? name : "\(name) (extended code \(code))"
    }

    /// `BEGIN IMMEDIATE: database is locked (SQLITE_BUSY)`, with the system error when there was one.
    var description: String {
        var text = "\(context): \(message) (\(codeName))"
        if systemErrno != 0 { text += ", system error: \(String(cString: strerror(systemErrno)))" }
        return text
    }

    /// The failure the ``ListStore`` contract speaks of: `.full` for a full disk, `.unavailable` for the rest.
    var storeFailure: StoreFailure {
        StoreFailure(isDiskFull ? .full : .unavailable, "SQLite: \(description)")
    }
}
