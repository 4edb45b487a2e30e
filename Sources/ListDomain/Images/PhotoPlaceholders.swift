import Synchronization

/// The BlurHash of every generated photo (``BlurHash``), computed from a 16×16 render of its layout and kept: a page
/// of items carries one for each, and must not draw a photo for each.
///
/// A generated photo is laid out from the item's id and colour alone (``PhotoScene``), and its positions are
/// fractions of the image, so one hash serves every dataset, size and seed whose item has that id and colour. The
/// hash is that of the layout without texture or the id's plate, which a 4×3 blur cannot show; its mean is the
/// item's colour, as the photo's is.
///
/// The table never grows: `capacity` hashes (a power of two; 44 bytes each, 2.9 MB for the shared one's 65,536) in
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

    private struct Table {
        /// Each entry's id, and its colour with ``present`` set once it holds a hash; a set's entries newest first.
        var ids: [UInt64]
        var colors: [UInt32]
        /// Each entry's hash, ``hashBytes`` at `entry * hashBytes`.
        var hashes: [UInt8]
        var computed = 0

        /// The entry of set `set` that holds (`id`, `color`), if one does.
        func entry(_ set: Int, _ id: UInt64, _ color: UInt32) -> Int? {
            let key = color | PhotoPlaceholders.present
            for entry in (set * ways)..<(set * ways + ways) where ids[entry] == id && colors[entry] == key {
                return entry
            }
            return nil
        }

        /// Keeps `hash` for (`id`, `color`) first in set `set`, the others a place down (the last one out).
        mutating func insert(_ set: Int, _ id: UInt64, _ color: UInt32, _ hash: [UInt8]) {
            guard entry(set, id, color) == nil else { return }
            let first = set * ways
            let width = PhotoPlaceholders.hashBytes
            for entry in stride(from: first + ways - 1, to: first, by: -1) {
                ids[entry] = ids[entry - 1]
                colors[entry] = colors[entry - 1]
                hashes.withUnsafeMutableBufferPointer { bytes in
                    let base = bytes.baseAddress!
                    (base + entry * width).update(from: base + (entry - 1) * width, count: width)
                }
            }
            ids[first] = id
            colors[first] = color | PhotoPlaceholders.present
            hashes.replaceSubrange((first * width)..<(first * width + width), with: hash)
        }
    }

    private static let present: UInt32 = 1 << 31

    private let table: Mutex<Table>
    private let setMask: Int

    /// A table of `capacity` hashes (rounded up to a power of two, at least a set).
    public init(capacity: Int) {
        let entries = 1 << (Int.bitWidth - (max(Self.ways, capacity) - 1).leadingZeroBitCount)
        setMask = entries / Self.ways - 1
        table = Mutex(
            Table(
                ids: [UInt64](repeating: 0, count: entries), colors: [UInt32](repeating: 0, count: entries),
                hashes: [UInt8](repeating: 0, count: entries * Self.hashBytes)))
    }

    /// How many hashes were computed so far (misses).
    public var computedCount: Int { table.withLock { $0.computed } }

    /// The placeholder of item `id`'s generated photo in `color` (0xRRGGBB).
    public func placeholder(id: UInt64, color: UInt32) -> String {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.hashBytes) { buffer in
            fill(buffer, count: 1) { _ in (id, color) }
            return String(decoding: buffer, as: UTF8.self)
        }
    }

    /// Writes the placeholders of `count` photos into `buffer`, ``hashBytes`` each in order, photo `k` being that of
    /// item `photo(k).id` in colour `photo(k).color` (0xRRGGBB). `photo` is called twice for a photo the table misses.
    public func fill(
        _ buffer: UnsafeMutableBufferPointer<UInt8>, count: Int, photo: (Int) -> (id: UInt64, color: UInt32)
    ) {
        precondition(buffer.count >= count * Self.hashBytes, "room for \(count) hashes")
        let width = Self.hashBytes
        var missed: [Int] = []
        table.withLock { table in
            table.hashes.withUnsafeBufferPointer { hashes in
                for index in 0..<count {
                    let (id, color) = photo(index)
                    if let entry = table.entry(set(id), id, color & 0xFF_FFFF) {
                        (buffer.baseAddress! + index * width).initialize(
                            from: hashes.baseAddress! + entry * width, count: width)
                    } else {
                        missed.append(index)
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
            hash.withUnsafeBufferPointer { source in
                (buffer.baseAddress! + index * width).initialize(from: source.baseAddress!, count: width)
            }
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
    /// The pixel's RGB, as ``YCbCrImage/rgb(into:)`` converts it (libjpeg's fixed point), luma and chroma clamped to
    /// bytes first, as the planes hold them.
    var rgb: ImageRenderer.Color {
        let luma = Int32(clamping: min(255, max(0, y)))
        let blue = Int32(min(255, max(0, cb))) &- 128
        let red = Int32(min(255, max(0, cr))) &- 128
        return (
            UInt8(clamping: luma &+ (91_881 &* red &+ 32_768) &>> 16),
            UInt8(clamping: luma &+ (-22_554 &* blue &- 46_802 &* red &+ 32_768) &>> 16),
            UInt8(clamping: luma &+ (116_130 &* blue &+ 32_768) &>> 16)
        )
    }
}
