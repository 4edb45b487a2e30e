/// A statement parameter, sent in PostgreSQL's binary format with its type named (so the server neither parses
/// text nor guesses types): `bigint` as 8 bytes big-endian, `text` as its UTF-8 bytes, `bytea` as the bytes
/// themselves (an uploaded file goes as it is, not as hex text twice its size).
///
/// Every integer column of the schema is `bigint`: `UInt64` values (seeds, ids, sequence numbers) are stored as
/// the `Int64` with the same bits, as in the SQLite store.
enum PostgresValue {
    case null
    case bigint(Int64)
    case text(String)
    case bytea([UInt8])

    /// A `UInt64` as the `bigint` with the same bits.
    static func unsigned(_ value: UInt64) -> PostgresValue { .bigint(Int64(bitPattern: value)) }
    static func int(_ value: Int) -> PostgresValue { .bigint(Int64(value)) }
    /// `value`, or NULL.
    static func int(_ value: Int?) -> PostgresValue { value.map { .bigint(Int64($0)) } ?? .null }
    /// A string as `bytea`, its UTF-8 bytes (for the columns that may hold U+0000, see ``PostgresSchema``).
    static func utf8(_ value: String) -> PostgresValue { .bytea(Array(value.utf8)) }
    /// `value` as `bytea`, or NULL.
    static func utf8(_ value: String?) -> PostgresValue { value.map { .utf8($0) } ?? .null }

    /// The type's OID (`pg_type.oid`; fixed for built-in types): what `PQprepare` is told.
    var typeOID: UInt32 {
        switch self {
        case .null: 0  // unspecified: the server infers it from the statement
        case .bigint: 20
        case .text: 25
        case .bytea: 17
        }
    }

    /// Appends the value's binary form to `buffer`; nil for NULL (no bytes, and a null pointer for libpq).
    func append(to buffer: inout [UInt8]) -> Int? {
        switch self {
        case .null:
            return nil
        case .bigint(let value):
            withUnsafeBytes(of: value.bigEndian) { buffer.append(contentsOf: $0) }
            return 8
        case .text(let value):
            let start = buffer.count
            buffer.append(contentsOf: value.utf8)
            return buffer.count - start
        case .bytea(let bytes):
            buffer.append(contentsOf: bytes)
            return bytes.count
        }
    }
}
