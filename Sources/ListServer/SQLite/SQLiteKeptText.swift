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
    /// The number of bytes of the text, not counting the NUL after it.
    let count: Int32

    /// Copies `text`'s UTF-8 bytes, all of them (a NUL inside too: `count` says where the text ends), and a NUL.
    init(_ text: String) {
        let bytes = Array(text.utf8)
        let characters = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
        for (offset, byte) in bytes.enumerated() { characters[offset] = CChar(bitPattern: byte) }
        characters[bytes.count] = 0
        self.characters = characters
        count = Int32(bytes.count)
    }

    deinit {
        characters.deallocate()
    }
}
