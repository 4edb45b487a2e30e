import Synchronization

/// The BlurHash of every generated photo (``BlurHash``), computed from a 16×16 render of its layout and kept: a page
/// of items carries one for each, and must not draw a photo for each.
///
/// A generated photo is laid out from the item's id and colour alone (``PhotoScene``), and its positions are
/// fractions of the image, so one hash serves every dataset, size and seed whose item has that id and colour. The
/// hash is that of the layout without texture or the id's plate, which a 4×3 blur cannot show; its mean is the
/// item's colour, as the photo's is.
///
/// The table never grows: `capacity` hashes (a power of two; 40 bytes each, 2.6 MB for the shared one's 65,536) in
/// sets of four, the set chosen by the id alone, so a list's ids, which run on, fill one set each before any
/// shares one (a 10,000-item catalog holds in a quarter of the shared table), and four datasets of different seeds
/// (different colours for one id) fit beside each other. The newest of a full set replaces its oldest. It is one lock,
/// taken once for a whole page's items (``fill(_:count:photo:)``); the hashes it misses, a few microseconds each, are
/// computed outside it.
public final class PhotoPlaceholders: Sendable {
    /// The table every list shares.
    public static let shared = PhotoPlaceholders(capacity: 1 << 16)

    /// The bytes of one hash.
    public static let hashBytes = BlurHash.length
    /// Hashes in a set.
    static let ways = 4

    /// The entries, each one record of ``recordBytes`` (its id, its colour with ``present`` set once it holds a
    /// hash, the hash), a set's four side by side, newest first: a hit reads one or two cache lines, where three
    /// arrays (ids, colours, hashes) cost three misses an item on a page of a large table (perf: 2.6 % of a page's
    /// CPU).
    private struct Table {
        var records: [UInt8]
        var computed = 0

        /// The record of set `set` that holds (`id`, `color`), if one does.
        func entry(_ set: Int, _ id: UInt64, _ color: UInt32) -> Int? {
            let key = color | PhotoPlaceholders.present
            let bytes = records.span.bytes
            for entry in (set * ways)..<(set * ways + ways) {
                let at = entry * PhotoPlaceholders.recordBytes
                if bytes.unsafeLoadUnaligned(fromByteOffset: at, as: UInt64.self) == id,
                    bytes.unsafeLoadUnaligned(fromByteOffset: at + 8, as: UInt32.self) == key
                {
                    return entry
                }
            }
            return nil
        }

        /// Keeps `hash` for (`id`, `color`) first in set `set`, the others a place down (the last one out).
        mutating func insert(_ set: Int, _ id: UInt64, _ color: UInt32, _ hash: [UInt8]) {
            guard entry(set, id, color) == nil else { return }
            let size = PhotoPlaceholders.recordBytes
            let first = set * ways * size
            var records = self.records.mutableSpan
            for index in stride(from: first + ways * size - 1, through: first + size, by: -1) {
                records[index] = records[index - size]
            }
            var bytes = records.mutableBytes
            bytes.storeBytes(of: id, toByteOffset: first, as: UInt64.self)
            bytes.storeBytes(of: color | PhotoPlaceholders.present, toByteOffset: first + 8, as: UInt32.self)
            for index in 0..<PhotoPlaceholders.hashBytes { records[first + 12 + index] = hash[index] }
        }
    }

    /// A record: the id (8 bytes), the colour (4), the hash (28).
    static let recordBytes = 40
    private static let present: UInt32 = 1 << 31

    private let table: Mutex<Table>
    private let setMask: Int

    /// A table of `capacity` hashes (rounded up to a power of two, at least a set).
    public init(capacity: Int) {
        let entries = 1 << (Int.bitWidth - (max(Self.ways, capacity) - 1).leadingZeroBitCount)
        setMask = entries / Self.ways - 1
        table = Mutex(Table(records: [UInt8](repeating: 0, count: entries * Self.recordBytes)))
    }

    /// How many hashes were computed so far (misses).
    public var computedCount: Int { table.withLock { $0.computed } }

    /// The placeholder of item `id`'s generated photo in `color` (0xRRGGBB).
    public func placeholder(id: UInt64, color: UInt32) -> String {
        var hash: [UInt8] = []
        fill(&hash, count: 1) { _ in (id, color) }
        return String(decoding: hash, as: UTF8.self)
    }

    /// Writes the placeholders of `count` photos into `output` (made ``hashBytes`` × `count` long, its storage kept
    /// when it is that long already), as ``fill(_:count:photo:)-(MutableSpan<UInt8>,_,_)`` does.
    public func fill(_ output: inout [UInt8], count: Int, photo: (Int) -> (id: UInt64, color: UInt32)) {
        if output.count != count * Self.hashBytes { output = [UInt8](repeating: 0, count: count * Self.hashBytes) }
        var span = output.mutableSpan
        fill(&span, count: count, photo: photo)
    }

    /// Writes the placeholders of `count` photos into `output` (at least ``hashBytes`` × `count` long), ``hashBytes``
    /// each in order, photo `k` being that of item `photo(k).id` in colour `photo(k).color` (0xRRGGBB). `photo` is
    /// called twice for a photo the table misses.
    ///
    /// A span, so the page path fills scratch of its own on the stack: an array made for each page was an
    /// allocation and its zeroing a page (callgrind: some 200 instructions).
    public func fill(_ output: inout MutableSpan<UInt8>, count: Int, photo: (Int) -> (id: UInt64, color: UInt32)) {
        let width = Self.hashBytes
        precondition(output.count >= count * width, "room for \(count) hashes")
        var missed: [Int] = []
        table.withLock { table in
            // Each hash in one copy: byte by byte through spans, with a bounds check each, it took 3,300
            // instructions a page of 20 (callgrind, Benchmarks/load/counters.sh), against 1,000 so.
            output.withUnsafeMutableBytes { out in
                table.records.withUnsafeBytes { records in
                    for index in 0..<count {
                        let (id, color) = photo(index)
                        guard let entry = table.entry(set(id), id, color & 0xFF_FFFF) else {
                            missed.append(index)
                            continue
                        }
                        let from = records.baseAddress! + entry * Self.recordBytes + 12
                        (out.baseAddress! + index * width).copyMemory(from: from, byteCount: width)
                    }
                }
            }
        }
        guard !missed.isEmpty else { return }
        var computed: [(id: UInt64, color: UInt32, hash: [UInt8])] = []
        computed.reserveCapacity(missed.count)
        for index in missed {
            let (id, color) = photo(index)
            let hash = Array(Self.compute(id: id, color: color & 0xFF_FFFF).utf8)
            precondition(hash.count == width, "a BlurHash of 4×3 components has \(width) characters")
            for offset in 0..<width { output[index * width + offset] = hash[offset] }
            computed.append((id, color & 0xFF_FFFF, hash))
        }
        table.withLock { table in
            for (id, color, hash) in computed { table.insert(set(id), id, color, hash) }
            table.computed += computed.count
        }
    }

    private func set(_ id: UInt64) -> Int { Int(truncatingIfNeeded: id) & setMask }

    /// The side of the render a hash is computed from: a 4×3 blur needs no more.
    static let renderSide = 16

    /// The hash of item `id`'s photo in `color`, computed: the layout of its scene at 16×16, in RGB.
    static func compute(id: UInt64, color: UInt32) -> String {
        let side = renderSide
        let scene = PhotoScene(id: id, color: color, width: side, height: side, meanGrid: side)
        var rgb = [UInt8](repeating: 0, count: side * side * 3)
        for (index, sample) in scene.layout(grid: side).enumerated() {
            let pixel = sample.rgb
            (rgb[3 * index], rgb[3 * index + 1], rgb[3 * index + 2]) = (pixel.red, pixel.green, pixel.blue)
        }
        return BlurHash.encode(rgb: rgb, width: side, height: side)
    }
}

extension YCbCrImage.Sample {
    /// The pixel's RGB, as ``YCbCrImage/rgb(into:)`` converts it (``YCbCrImage/rgb(luma:blue:red:)``), luma and
    /// chroma clamped to bytes first, as the planes hold them.
    var rgb: ImageRenderer.Color {
        YCbCrImage.rgb(
            luma: Int32(min(255, max(0, y))), blue: Int32(min(255, max(0, cb))) &- 128,
            red: Int32(min(255, max(0, cr))) &- 128)
    }
}
