import CPostgres

/// The rows a statement returned, in PostgreSQL's binary format (asked for by ``PostgresConnection``), read by row
/// and column; owns the `PGresult` and clears it when released.
///
/// The readers assume the schema's types: `bigint` (8 bytes, big-endian), `text` and `bytea` (their bytes). A
/// column of another type is a programming error here, not something a client can cause.
final class PostgresRows {
    private let result: OpaquePointer

    init(_ result: OpaquePointer) {
        self.result = result
    }

    deinit { LibPQ.api.clear(result) }

    /// The number of rows.
    var count: Int { Int(LibPQ.api.ntuples(result)) }

    /// The number of rows the statement changed (`INSERT`, `UPDATE`, `DELETE`), 0 for others.
    var affected: Int { Int(LibPQ.text(LibPQ.api.cmdTuples(result))) ?? 0 }

    func isNull(_ row: Int, _ column: Int) -> Bool {
        LibPQ.api.getisnull(result, Int32(row), Int32(column)) != 0
    }

    /// A `bigint` column; 0 for NULL.
    func int64(_ row: Int, _ column: Int) -> Int64 {
        guard !isNull(row, column), LibPQ.api.getlength(result, Int32(row), Int32(column)) == 8,
            let value = LibPQ.api.getvalue(result, Int32(row), Int32(column))
        else { return 0 }
        return UnsafeRawPointer(value).loadUnaligned(as: Int64.self).bigEndian
    }

    /// A `bigint` column holding a `UInt64`'s bits; 0 for NULL.
    func uint64(_ row: Int, _ column: Int) -> UInt64 { UInt64(bitPattern: int64(row, column)) }

    /// A `bigint` column as an `Int`, nil for NULL.
    func optionalInt(_ row: Int, _ column: Int) -> Int? {
        isNull(row, column) ? nil : Int(int64(row, column))
    }

    /// A `bigint` column as a `UInt64`, nil for NULL.
    func optionalUInt64(_ row: Int, _ column: Int) -> UInt64? {
        isNull(row, column) ? nil : uint64(row, column)
    }

    /// A `text` column, or a `bytea` one holding UTF-8; nil for NULL.
    func text(_ row: Int, _ column: Int) -> String? {
        guard !isNull(row, column) else { return nil }
        return String(decoding: rawBytes(row, column), as: UTF8.self)
    }

    /// A `bytea` column, empty for NULL.
    func bytes(_ row: Int, _ column: Int) -> [UInt8] {
        guard !isNull(row, column) else { return [] }
        return Array(rawBytes(row, column))
    }

    private func rawBytes(_ row: Int, _ column: Int) -> UnsafeRawBufferPointer {
        let length = Int(LibPQ.api.getlength(result, Int32(row), Int32(column)))
        guard let value = LibPQ.api.getvalue(result, Int32(row), Int32(column)) else {
            return UnsafeRawBufferPointer(start: nil, count: 0)
        }
        return UnsafeRawBufferPointer(start: value, count: length)
    }
}
