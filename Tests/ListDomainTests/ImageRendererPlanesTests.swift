import Testing

@testable import ListDomain

/// ``ImageRenderer/renderPlanes(_:)`` against the planes libjpeg would make of ``ImageRenderer/render(_:)``'s pixels,
/// worked out here pixel by pixel.
@Suite("ImageRenderer planes")
struct ImageRendererPlanesTests {
    @Test("planes drawn from runs equal the pixel-by-pixel conversion, at odd and even sizes, grey or not")
    func planesMatchThePixels() {
        var generator = SplitMix64(seed: 16)
        var specs = [
            ImageSpec(id: 42, width: 600, height: 400, color: 0x3F7A59),
            ImageSpec(id: 7, width: 301, height: 199, color: 0xF4A261),
            ImageSpec(id: 123_456, width: 10, height: 10, color: 0x11048B),  // no digits: background only
            ImageSpec(id: 8, width: 1, height: 1, color: 0xFFFFFF),
            ImageSpec(id: 90, width: 33, height: 17, color: 0x000000, grayscale: true),
        ]
        for _ in 0..<60 {
            let width = Int(generator.next() % 257) + 1
            let height = Int(generator.next() % 193) + 1
            specs.append(
                ImageSpec(
                    id: generator.next() % 100_000, width: width, height: height,
                    color: UInt32(truncatingIfNeeded: generator.next()) & 0xFF_FFFF,
                    grayscale: generator.next() % 4 == 0))
        }
        for spec in specs {
            let expected = Self.reference(ImageRenderer.render(spec))
            let drawn = ImageRenderer.renderPlanes(spec)
            #expect(drawn == expected, "\(spec.id) at \(spec.width)x\(spec.height), grayscale \(spec.grayscale)")
        }
    }

    @Test("storage of another size is replaced, storage of the right size drawn over completely")
    func reusedStorage() {
        let spec = ImageSpec(id: 5, width: 64, height: 48, color: 0x3F7A59)
        var planes = [UInt8](repeating: 0xAB, count: YCbCrImage.byteCount(width: 64, height: 48))
        ImageRenderer.renderPlanes(spec, into: &planes)
        #expect(planes == ImageRenderer.renderPlanes(spec).planes)
        var wrong = [UInt8](repeating: 0xAB, count: 7)
        ImageRenderer.renderPlanes(spec, into: &wrong)
        #expect(wrong == planes)
    }

    @Test("blur is drawn as RGB only")
    func blurIsNotDrawnAsPlanes() {
        #expect(!ImageRenderer.drawsPlanes(ImageSpec(id: 1, width: 8, height: 8, color: 0, blur: 3)))
        #expect(ImageRenderer.drawsPlanes(ImageSpec(id: 1, width: 8, height: 8, color: 0, grayscale: true)))
    }

    /// libjpeg's conversion (`jccolor.c`) of every pixel, then its 2×2 averaging (`jcsample.c`), with the right and
    /// bottom edges repeated out to even sides, written as plainly as possible.
    static func reference(_ image: RGBImage) -> YCbCrImage {
        let lumaWidth = (image.width + 1) & ~1
        let lumaHeight = (image.height + 1) & ~1
        func sample(_ x: Int, _ y: Int) -> (y: Int, cb: Int, cr: Int) {
            let pixel = image.pixel(x: min(x, image.width - 1), y: min(y, image.height - 1))
            let (r, g, b) = (Double(pixel.red), Double(pixel.green), Double(pixel.blue))
            // FIX(x) = x * 65536 rounded, as jccolor.c builds its tables.
            func fix(_ value: Double) -> Int { Int((value * 65536).rounded()) }
            let luma = fix(0.29900) * Int(r) + fix(0.58700) * Int(g) + fix(0.11400) * Int(b) + (1 << 15)
            let blue = -fix(0.16874) * Int(r) - fix(0.33126) * Int(g) + fix(0.5) * Int(b) + (128 << 16) + (1 << 15) - 1
            let red = fix(0.5) * Int(r) - fix(0.41869) * Int(g) - fix(0.08131) * Int(b) + (128 << 16) + (1 << 15) - 1
            return (luma >> 16, blue >> 16, red >> 16)
        }
        var planes: [UInt8] = []
        for y in 0..<lumaHeight {
            for x in 0..<lumaWidth { planes.append(UInt8(sample(x, y).y)) }
        }
        for channel in 0..<2 {
            for row in 0..<(lumaHeight / 2) {
                for column in 0..<(lumaWidth / 2) {
                    var sum = 0
                    for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                        let value = sample(2 * column + dx, 2 * row + dy)
                        sum += channel == 0 ? value.cb : value.cr
                    }
                    planes.append(UInt8((sum + (column % 2 == 0 ? 1 : 2)) / 4))
                }
            }
        }
        return YCbCrImage(width: image.width, height: image.height, planes: planes)
    }
}
