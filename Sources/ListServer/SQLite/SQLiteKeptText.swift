import Foundation

/// A string's bytes as a C string that lives as long as this object: text a statement can bind without SQLite
/// copying it (``SQLiteStatement/bind(kept:at:)``).
///
/// Why: a list name is bound to every row a commit writes (the item, its change, the header), and bound as a copy
/// (`SQLITE_TRANSIENT`) each bind freed the previous copy and allocated the next. ListServer's text binds averaged
/// 710 instructions against 356 for `Benchmarks/sqlite/writes-server.c`, which binds the name and the change's
/// kind in place (callgrind, 64 writing clients); binding both in place took 2.2k instructions off a write.
final class SQLiteKeptText {
    /// The bytes, NUL-terminated.
    let characters: UnsafeMutablePointer<CChar>
    /// The number of bytes before the NUL.
    let count: Int32

    init(_ text: String) {
        characters = strdup(text)!
        count = Int32(text.utf8.count)
    }

    deinit {
        free(characters)
    }
}
