/// Pieces of text copied 32 bytes at a time, so that writing one into a `MutableRawSpan` is a load and a store a
/// 32 bytes instead of an append a byte: what the page path writes a message's text and author with
/// (``ChatText/write(seed:conversation:message:into:at:)``). Eight-byte words were a store and two bounds checks
/// each, and most of the text's time (`ChatText.write` in `ListBenchmarks`, Benchmarks/HISTORY.md).
///
/// Every write stores 64 bytes or more and then moves on by the piece's length only, so it needs up to 64 bytes of
/// room past the piece (an empty one): ``slack``. The bytes past the end are overwritten by the next write or left unused.
package struct PackedText: Sendable {
    /// Piece `p`: where its bytes start in ``bytes`` (the high 24 bits) and its length (the low 8). Four bytes a
    /// piece, and the pieces' bytes one after the other: the chat's tables fit a first-level cache (``byteCount``,
    /// `ChatTextTests`), where 32 bytes of their own a piece took 47 KB and the text some 15 % more in the server.
    private let entries: [UInt32]
    /// The bytes of the pieces one after the other, and ``slack`` zeros past the last, which its last load reads.
    private let bytes: [UInt8]

    /// Bytes past a piece that a write may store into.
    @inlinable package static var slack: Int { 2 * 32 }  // a constant, inlined: a `static let` is a call a read

    /// The pieces, each shorter than 256 bytes.
    package init(_ pieces: [[UInt8]]) {
        var entries: [UInt32] = []
        var bytes: [UInt8] = []
        for piece in pieces {
            precondition(piece.count < 256 && bytes.count < 1 << 24, "PackedText: a piece of 256 bytes or more")
            entries.append(UInt32(bytes.count) << 8 | UInt32(piece.count))
            bytes += piece
        }
        self.entries = entries
        self.bytes = bytes + [UInt8](repeating: 0, count: Self.slack)
    }

    /// The bytes the pieces take, with their records.
    package var byteCount: Int { entries.count * MemoryLayout<UInt32>.size + bytes.count }

    /// The length of the longest piece of `pieces` (their indexes).
    package func longest(_ pieces: Range<Int>) -> Int {
        pieces.map { Int(entries[$0] & 0xFF) }.max() ?? 0
    }

    /// Writes piece `piece` into `bytes` at `offset`; returns the offset past it. Traps without ``slack`` bytes of
    /// room past the piece.
    ///
    /// 64 bytes are copied whatever the piece's length, then any rest 32 at a time: a loop to the piece's end
    /// from the first 32 was a branch mispredicted for about a piece in four (a few words take one 32 or two, at
    /// random); a page of messages took 3 % less CPU so (`ListBenchmarks`).
    @inline(__always)
    package func write(_ piece: Int, into target: inout MutableRawSpan, at offset: Int) -> Int {
        let entry = entries[piece]
        let start = Int(entry >> 8)
        let length = Int(entry & 0xFF)
        let source = bytes.span.bytes
        let size = SIMD32<UInt8>.scalarCount
        let first = source.unsafeLoadUnaligned(fromByteOffset: start, as: SIMD32<UInt8>.self)
        let second = source.unsafeLoadUnaligned(fromByteOffset: start + size, as: SIMD32<UInt8>.self)
        target.storeBytes(of: first, toByteOffset: offset, as: SIMD32<UInt8>.self)
        target.storeBytes(of: second, toByteOffset: offset + size, as: SIMD32<UInt8>.self)
        var at = 2 * size
        while at < length {
            let chunk = source.unsafeLoadUnaligned(fromByteOffset: start + at, as: SIMD32<UInt8>.self)
            target.storeBytes(of: chunk, toByteOffset: offset + at, as: SIMD32<UInt8>.self)
            at += size
        }
        return offset + length
    }
}
