import Foundation
import Testing

@testable import ListDomain

/// The placeholders items carry: Wolt's BlurHash format, and the table that keeps the generated photos' hashes.
@Suite("BlurHash and the photos' placeholders")
struct BlurHashTests {
    @Test("a solid colour comes back exactly as the DC, with AC components near zero")
    func solidColour() {
        let pixels = [UInt8]((0..<(8 * 8)).map { _ -> [UInt8] in [0x3F, 0x7A, 0x59] }.joined())
        let hash = BlurHash.encode(rgb: pixels, width: 8, height: 8)
        #expect(hash.count == 28)
        let decoded = BlurHashDecoding(hash)
        #expect(decoded.components == (4, 3))
        #expect(decoded.averageColor == (0x3F, 0x7A, 0x59))
        // Wolt's basis is cos(π·i·x/w) over x = 0..<w, not centred on the pixels, so even a flat image has AC
        // factors of 2/8 of its mean, a channel's largest 0.049 here (the green's), and no more.
        #expect(decoded.maximum < 0.06)
    }

    @Test("a left-to-right ramp has a strong horizontal component and only the flat image's vertical ones")
    func ramp() {
        let width = 16
        var pixels: [UInt8] = []
        for _ in 0..<16 {
            for x in 0..<width { pixels += [UInt8(x * 16), UInt8(x * 16), UInt8(x * 16)] }
        }
        let decoded = BlurHashDecoding(BlurHash.encode(rgb: pixels, width: width, height: 16))
        // Component (1, 0) is cos(πx/w), +1 on the left where the ramp is dark, -1 on the right where it is light:
        // its factor is negative.
        #expect(decoded.ac[0].red < -0.1)
        // Components (0, 1) and (0, 2): nothing changes down the image, so only the basis's offset shows.
        #expect(abs(decoded.ac[3].red) < abs(decoded.ac[0].red) / 3)
        #expect(abs(decoded.ac[7].red) < abs(decoded.ac[0].red) / 3)
    }

    @Test("a large image is boxed to 32x32 first, and hashes like its boxes")
    func largeImage() {
        let (width, height) = (640, 480)
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width where x < width / 2 {
                let at = 3 * (y * width + x)
                (pixels[at], pixels[at + 1], pixels[at + 2]) = (200, 40, 40)
            }
        }
        let boxed = BlurHash.encode(RGBImage(width: width, height: height, pixels: pixels))
        var small = [UInt8](repeating: 0, count: 32 * 32 * 3)
        for y in 0..<32 {
            for x in 0..<16 {
                let at = 3 * (y * 32 + x)
                (small[at], small[at + 1], small[at + 2]) = (200, 40, 40)
            }
        }
        #expect(boxed == BlurHash.encode(rgb: small, width: 32, height: 32))
    }

    @Test("a generated photo's placeholder decodes to the item's colour, within a few levels, for 100 items")
    func placeholderAverages() {
        let catalog = Catalog(seed: 42, count: 100)
        var worst = 0
        for id in UInt64(0)..<100 {
            let color = catalog.generatedColor(of: id)
            let hash = PhotoPlaceholders.compute(id: id, color: color)
            let average = BlurHashDecoding(hash).averageColor
            let expected = ImageRenderer.components(color)
            let distance = max(
                abs(Int(average.0) - Int(expected.red)), abs(Int(average.1) - Int(expected.green)),
                abs(Int(average.2) - Int(expected.blue)))
            worst = max(worst, distance)
        }
        // The DC is the linear mean, a little lighter than the sRGB mean the layout is shifted to (Jensen).
        #expect(worst <= 16, "worst channel \(worst) levels off")
    }

    @Test("the table computes a hash once; a page is filled in order, either way; it never grows past its sets")
    func table() {
        let table = PhotoPlaceholders(capacity: 16)  // four sets of four
        let page = (0..<12).map { (UInt64($0), UInt32(0x3F7A59)) }
        var first = [UInt8](repeating: 0, count: 12 * 28)
        table.fill(&first, count: 12) { page[$0] }
        #expect(table.computedCount == 12)
        var again = [UInt8](repeating: 0, count: 12 * 28)
        table.fill(&again, count: 12) { page[11 - $0] }
        #expect(table.computedCount == 12, "all kept")
        for index in 0..<12 {
            #expect(first[(index * 28)..<(index * 28 + 28)] == again[((11 - index) * 28)..<((11 - index) * 28 + 28)])
            let expected = PhotoPlaceholders.compute(id: UInt64(index), color: 0x3F7A59)
            #expect(String(decoding: first[(index * 28)..<(index * 28 + 28)], as: UTF8.self) == expected)
        }
        // Four colours of one id fit in its set; a fifth pushes out the oldest.
        for color: UInt32 in [1, 2, 3, 4] { _ = table.placeholder(id: 100, color: color) }
        #expect(table.computedCount == 16)
        for color: UInt32 in [1, 2, 3, 4] { _ = table.placeholder(id: 100, color: color) }
        #expect(table.computedCount == 16)
        _ = table.placeholder(id: 100, color: 5)
        _ = table.placeholder(id: 100, color: 1)
        #expect(table.computedCount == 18, "colour 1 was the oldest")
    }

    @Test("the hash depends on the colour and the id, not the seed, and is 28 characters of base 83")
    func identity() {
        let hash = PhotoPlaceholders.compute(id: 7, color: 0x3F7A59)
        #expect(hash.count == 28 && hash.utf8.allSatisfy { BlurHash.digits.contains($0) })
        #expect(PhotoPlaceholders.compute(id: 7, color: 0x3F7A5A) != hash)
        #expect(PhotoPlaceholders.compute(id: 8, color: 0x3F7A59) != hash)
        #expect(PhotoPlaceholders.shared.placeholder(id: 7, color: 0x3F7A59) == hash)
    }
}

/// A BlurHash read back as Wolt's decoder reads it: the size, the DC as sRGB bytes, the AC components.
struct BlurHashDecoding {
    let components: (Int, Int)
    let averageColor: (UInt8, UInt8, UInt8)
    /// The largest AC value the hash can hold.
    let maximum: Double
    let ac: [(red: Double, green: Double, blue: Double)]

    init(_ hash: String) {
        let digits = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz#$%*+,-.:;=?@[]^_{|}~")
        let characters = Array(hash)
        func decode(_ range: Range<Int>) -> Int {
            characters[range].reduce(0) { $0 * 83 + digits.firstIndex(of: $1)! }
        }
        let size = decode(0..<1)
        components = (size % 9 + 1, size / 9 + 1)
        let maximum = Double(decode(1..<2) + 1) / 166
        self.maximum = maximum
        let dc = decode(2..<6)
        averageColor = (UInt8(dc >> 16), UInt8((dc >> 8) & 255), UInt8(dc & 255))
        ac = stride(from: 6, to: characters.count, by: 2).map { start in
            let value = decode(start..<(start + 2))
            func channel(_ quantised: Int) -> Double {
                let unit = Double(quantised - 9) / 9
                return (unit < 0 ? -1 : 1) * unit * unit * maximum
            }
            return (channel(value / (19 * 19)), channel((value / 19) % 19), channel(value % 19))
        }
    }
}
