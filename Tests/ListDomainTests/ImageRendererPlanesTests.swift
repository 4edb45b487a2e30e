import Testing

@testable import ListDomain

/// ``ImageRenderer/renderPlanes(_:)`` and the RGB pixels made of them.
@Suite("ImageRenderer planes")
struct ImageRendererPlanesTests {
    @Test("the RGB pixels are the planes converted as a JPEG decoder does, at odd and even sizes, grey or not")
    func pixelsAreThePlanesConverted() {
        var generator = SplitMix64(seed: 16)
        var specs = [
            ImageSpec(id: 42, width: 600, height: 400, color: 0x3F7A59),
            ImageSpec(id: 7, width: 301, height: 199, color: 0xF4A261),
            ImageSpec(id: 8, width: 1, height: 1, color: 0xFFFFFF),
            ImageSpec(id: 90, width: 33, height: 17, color: 0x000000, grayscale: true),
        ]
        for _ in 0..<30 {
            specs.append(
                ImageSpec(
                    id: generator.next() % 100_000, width: Int(generator.next() % 257) + 1,
                    height: Int(generator.next() % 193) + 1,
                    color: UInt32(truncatingIfNeeded: generator.next()) & 0xFF_FFFF,
                    grayscale: generator.next() % 4 == 0))
        }
        for spec in specs {
            let planes = ImageRenderer.renderPlanes(spec)
            let pixels = ImageRenderer.render(spec)
            #expect(pixels == Self.reference(planes), "\(spec.id) at \(spec.width)x\(spec.height)")
            // Past an odd side the planes repeat the last column and row.
            let lumaWidth = planes.lumaWidth
            if spec.width % 2 == 1 {
                #expect(planes.planes[lumaWidth - 1] == planes.planes[lumaWidth - 2])
            }
            if spec.height % 2 == 1 {
                #expect(
                    planes.planes[(planes.lumaHeight - 1) * lumaWidth] == planes.planes[(spec.height - 1) * lumaWidth])
            }
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

    /// The JFIF conversion (`jdcolor.c`) of every pixel from its luma and its block's chroma, in floating point,
    /// rounded: written as plainly as possible.
    static func reference(_ image: YCbCrImage) -> RGBImage {
        var pixels: [UInt8] = []
        let cbStart = image.lumaWidth * image.lumaHeight
        let crStart = cbStart + image.chromaWidth * image.chromaHeight
        for y in 0..<image.height {
            for x in 0..<image.width {
                let luma = Double(image.planes[y * image.lumaWidth + x])
                let chroma = (y / 2) * image.chromaWidth + x / 2
                let cb = Double(image.planes[cbStart + chroma]) - 128
                let cr = Double(image.planes[crStart + chroma]) - 128
                for value in [luma + 1.402 * cr, luma - 0.344136 * cb - 0.714136 * cr, luma + 1.772 * cb] {
                    pixels.append(UInt8(max(0, min(255, value.rounded()))))
                }
            }
        }
        return RGBImage(width: image.width, height: image.height, pixels: pixels)
    }
}

@Suite("Generated photos: the pixels are pinned")
struct PhotoPixelsPinnedTests {
    @Test("a digest of the planes of twelve photos of several sizes is pinned (new pixels need a new image revision)")
    func pinned() {
        // FNV-1a over the planes of ids 0..<4 at three sizes, one grey. A change here changes every generated image:
        // its tags must change too (the image revision), not only this number.
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for (width, height, grayscale) in [(600, 400, false), (257, 129, false), (1080, 1920, true)] {
            for id in 0..<4 as Range<UInt64> {
                let spec = ImageSpec(
                    id: id, width: width, height: height, color: 0x3F7A59 &+ UInt32(id) &* 0x10203, grayscale: grayscale
                )
                for byte in ImageRenderer.renderPlanes(spec).planes {
                    hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
                }
            }
        }
        #expect(hash == 0x0ea7_8596_d70c_bf4e, "digest \(String(hash, radix: 16))")
    }
}
