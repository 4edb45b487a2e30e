import CSQLite
import FoundationEssentials
import Glibc

/// The list store's tables on one connection: opening and checking the file here, committing in
/// `SQLiteListTables+Commit.swift`, reading in `SQLiteListTables+Reads.swift`.
///
/// Store thread only (``SQLiteStoreThread`` creates it there and runs every call on it).
final class SQLiteListTables {
    /// How the store was asked to open the file.
    struct Options: Sendable {
        var path: String
        var synchronous: SQLiteStore.Synchronous
        /// The most changes kept per list (``SettingKey/changesKept``).
        var changesKept: Int
        /// How long idempotency records are kept before pruning may remove them.
        var idempotencyTTL: Duration
        /// How long a statement waits for another process's lock before the call fails `.unavailable`.
        var busyTimeout: Duration
        /// Open with `SQLITE_OPEN_READONLY` (the test hook for read-only files where the tests cannot make one).
        var readOnly: Bool
    }

    let connection: SQLiteConnection
    let options: Options
    /// Commits since idempotency records were last pruned, and when that was (the batch's time).
    var commitsSincePrune = 0
    var lastPrune: Int64?
    /// Every list name a commit has bound, kept for as long as the statements that may still point at it: one
    /// per dataset ever written to, which the store holds rows for anyway.
    private var keptNames: [String: SQLiteKeptText] = [:]

    /// Lets go of the text of list `name`, which a commit has just removed (an expired dataset). Its statements
    /// may still point at it, but each of them binds every parameter before every step, so none reads it again.
    func forgetName(_ name: String) {
        keptNames[name] = nil
    }

    /// `name` as text the commit's statements bind in place.
    func keptName(_ name: String) -> SQLiteKeptText {
        if let kept = keptNames[name] { return kept }
        let kept = SQLiteKeptText(name)
        keptNames[name] = kept
        return kept
    }

    /// Opens the file, checks it and brings its schema up to date; every failure is a one-line
    /// ``SQLiteStoreError`` naming the path and what is wrong with it.
    ///
    /// In order: the folder (created with its parents when missing), the connection, a read-only check (SQLite
    /// falls back to read-only without an error when it may not write), WAL and the `synchronous` level,
    /// `PRAGMA quick_check`, then the migrations in a write transaction (``SQLiteSchema/migrate(_:)``), which
    /// also fails on a file or folder SQLite cannot write, so that shows at start rather than at the first write.
    init(_ options: Options) throws(SQLiteStoreError) {
        let path = options.path
        func failure(_ problem: String) -> SQLiteStoreError { SQLiteStoreError(path: path, problem: problem) }
        if path != ":memory:" {
            let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            } catch {
                throw failure("cannot create its folder \(folder): \(FileErrorReason.of(error))")
            }
        }
        let connection: SQLiteConnection
        do throws(SQLiteError) {
            connection = try SQLiteConnection(path: path, mode: options.readOnly ? .readOnly : .readWriteCreate)
        } catch {
            throw failure(Self.explain(error, path: path))
        }
        guard !connection.isReadOnly else {
            throw failure(
                "the file is read-only (SQLite could open it only for reading; check its permissions and attributes)")
        }
        let damage: [String]
        do throws(SQLiteError) {
            try connection.setBusyTimeout(options.busyTimeout)
            let journal = try connection.texts("PRAGMA journal_mode = WAL").first
            // An in-memory database keeps its journal in memory: "memory", never "wal".
            if path != ":memory:" && journal != "wal" {
                throw SQLiteError(
                    code: SQLITE_ERROR, message: "journal_mode is \(journal ?? "unknown"), not wal",
                    context: "PRAGMA journal_mode = WAL")
            }
            try connection.execute("PRAGMA synchronous = \(options.synchronous.rawValue.uppercased())")
            // quick_check reads every page of the file once (integrity_check also cross-checks every index
            // against its table): its cost grows with the file. Measured here with SQLite 3.40: 16 ms for a 2.1 MB
            // file (100,000 deletions), 130 ms for 45 MB (1,000,000 written items) with the file in the page
            // cache, about 1 s for those 45 MB read from the disk. Cheap next to what it catches at start rather
            // than at some later read: a truncated or overwritten file.
            damage = try connection.texts("PRAGMA quick_check")
            // The check read every page through the page cache, which keeps up to 2 MB of them; none is needed
            // now (datasets are read on first use): let them go, so a file with 10,000 datasets starts as small
            // as an empty one.
            try connection.execute("PRAGMA shrink_memory")
        } catch {
            throw failure(Self.explain(error, path: path))
        }
        if damage != ["ok"] {
            throw failure("PRAGMA quick_check found damage: " + damage.prefix(3).joined(separator: "; "))
        }
        do throws(SQLiteSchema.Problem) {
            try SQLiteSchema.migrate(connection)
        } catch {
            switch error {
            case .newer(let found):
                throw failure(
                    "its schema version is \(found), newer than this ListServer knows (\(SQLiteSchema.version)); "
                        + "run a newer ListServer, or move the file away to start empty")
            case .sqlite(let error):
                throw failure(Self.explain(error, path: path))
            }
        }
        self.connection = connection
        self.options = options
    }

    /// Closes the connection; later calls fail.
    func close() {
        connection.close()
    }

    /// What an SQLite error at start-up means for the person starting the server, then SQLite's own words.
    static func explain(_ error: SQLiteError, path: String) -> String {
        let meaning: String
        switch error.primaryCode {
        case SQLITE_CANTOPEN: meaning = cannotOpen(path)
        case SQLITE_READONLY: meaning = "the file or its folder is read-only"
        case SQLITE_NOTADB: meaning = "the file is not an SQLite database"
        case SQLITE_CORRUPT: meaning = "the database file is corrupt"
        case SQLITE_BUSY, SQLITE_LOCKED: meaning = "another process holds a lock on the file"
        case SQLITE_PERM, SQLITE_AUTH: meaning = "permission denied"
        case SQLITE_FULL: meaning = "the disk is full"
        case SQLITE_IOERR: meaning = "an I/O error"
        default: meaning = "SQLite failed"
        }
        return "\(meaning): \(error)"
    }

    /// `SQLITE_CANTOPEN` in words: SQLite's `errno` is that of its last attempt, often not the one that matters.
    private static func cannotOpen(_ path: String) -> String {
        var status = stat()
        guard stat(path, &status) == 0 else {
            return "cannot create the file (is its folder writable?)"
        }
        if status.st_mode & S_IFMT == S_IFDIR { return "cannot open the file: the path is a folder" }
        return "cannot open the file (can it be read and written, and can its folder take the -wal and -shm files?)"
    }
}
