/// Pieces of text packed eight bytes to a word, so that writing one into a `MutableRawSpan` is a store a word (one
/// for a word of the vocabulary) instead of an append a byte: what the page path writes a message's text with
/// (``ChatText/write(seed:conversation:message:into:at:)``).
///
/// Every write stores whole words and then moves on by the piece's length only, so it needs up to 7 bytes of room
/// past the piece: ``slack``. The bytes past the end are overwritten by the next write or left unused.
struct PackedText: Sendable {
    /// Piece `p`: its first eight bytes, where the rest start in ``rest``, and its length. One record a piece, so a
    /// piece of up to eight bytes (every word of the vocabulary) is one load and one store; three arrays (lengths,
    /// starts, words) were three loads and bounds checks a word.
    private struct Entry: Sendable {
        let first: UInt64
        let rest: Int32
        let length: Int32
    }

    private let entries: [Entry]
    /// The bytes of the pieces past their first eight, eight to a word, byte `k` of a word at bits `8k ..< 8k + 8`.
    private let rest: [UInt64]

    /// Bytes past a piece that a write may store into.
    static let slack = 7

    init(_ pieces: [[UInt8]]) {
        var entries: [Entry] = []
        var rest: [UInt64] = []
        for piece in pieces {
            let words = stride(from: 0, to: max(piece.count, 1), by: 8).map { chunk in
                piece[chunk..<min(chunk + 8, piece.count)].enumerated().reduce(UInt64(0)) { word, next in
                    word | UInt64(next.element) << (8 * next.offset)
                }
            }
            entries.append(Entry(first: words[0], rest: Int32(rest.count), length: Int32(piece.count)))
            rest += words.dropFirst()
        }
        self.entries = entries
        self.rest = rest
    }

    /// The length of the longest piece of `pieces` (their indexes).
    func longest(_ pieces: Range<Int>) -> Int {
        pieces.map { Int(entries[$0].length) }.max() ?? 0
    }

    /// Writes piece `piece` into `bytes` at `offset`; returns the offset past it. Traps without ``slack`` bytes of
    /// room past the piece.
    @inline(__always)
    func write(_ piece: Int, into bytes: inout MutableRawSpan, at offset: Int) -> Int {
        let entry = entries[piece]
        bytes.storeBytes(of: entry.first.littleEndian, toByteOffset: offset, as: UInt64.self)
        let end = offset + Int(entry.length)
        if entry.length > 8 {
            var at = offset + 8
            var word = Int(entry.rest)
            while at < end {
                bytes.storeBytes(of: rest[word].littleEndian, toByteOffset: at, as: UInt64.self)
                at += 8
                word += 1
            }
        }
        return end
    }
}
