import Testing

@testable import ListDomain

@Suite("ImageRenderer")
struct ImageRendererTests {
    /// A mid-grey-green item colour, dark enough for white digits.
    static let color: UInt32 = 0x3F7A59

    @Test func theSameSpecDrawsTheSamePixels() {
        let spec = ImageSpec(id: 42, width: 120, height: 80, color: Self.color)
        let first = ImageRenderer.render(spec)
        #expect(first == ImageRenderer.render(spec))
        #expect(first.width == 120 && first.height == 80 && first.pixels.count == 120 * 80 * 3)
        #expect(first != ImageRenderer.render(ImageSpec(id: 43, width: 120, height: 80, color: Self.color)))
    }

    /// The mean of each channel over the whole image.
    static func mean(_ image: RGBImage) -> [Double] {
        var sums = [0, 0, 0]
        for (index, byte) in image.pixels.enumerated() { sums[index % 3] += Int(byte) }
        return sums.map { Double($0) / Double(image.width * image.height) }
    }

    /// The luma of a pixel (BT.601).
    static func luma(_ image: RGBImage, x: Int, y: Int) -> Double {
        let pixel = image.pixel(x: x, y: y)
        return 0.299 * Double(pixel.red) + 0.587 * Double(pixel.green) + 0.114 * Double(pixel.blue)
    }

    @Test("the photo's average is the item's colour, so the colour is its placeholder, at every size")
    func theAverageIsTheItemsColour() {
        // Within 6 levels a channel (a thumbnail's grey plate and its few chroma samples cost up to 5); black, white
        // and pure hues within 12, their texture clipped at 0 or 255.
        let colours: [(UInt32, Double)] = [
            (0x3F7A59, 6), (0xF4A261, 6), (0x11048B, 6), (0x808080, 6), (0xC0392B, 6), (0x000000, 12),
            (0xFFFFFF, 12), (0xFF0000, 12), (0x0000FF, 12),
        ]
        for (color, tolerance) in colours {
            for (width, height) in [(600, 400), (150, 100), (60, 60)] {
                for id: UInt64 in 0..<4 {
                    let image = ImageRenderer.render(ImageSpec(id: id, width: width, height: height, color: color))
                    let target = [Double(color >> 16), Double(color >> 8 & 0xFF), Double(color & 0xFF)]
                    let mean = Self.mean(image)
                    let worst = (0..<3).map { abs(mean[$0] - target[$0]) }.max()!
                    #expect(worst <= tolerance, "\(String(color, radix: 16)) \(width)x\(height) id \(id): \(mean)")
                }
            }
        }
    }

    @Test("a landscape: a lighter sky above darker ground, textured like a photo, not flat")
    func aTexturedLandscape() {
        let image = ImageRenderer.render(ImageSpec(id: 3, width: 600, height: 400, color: Self.color))
        func rowsLuma(_ rows: Range<Int>) -> Double {
            var sum = 0.0
            for y in rows { for x in stride(from: 0, to: 600, by: 3) { sum += Self.luma(image, x: x, y: y) } }
            return sum / Double(rows.count * 200)
        }
        #expect(rowsLuma(0..<40) > rowsLuma(360..<400) + 20)
        // Neighbouring pixels differ as in a photo: grain and detail, not runs of one colour.
        var differences = 0
        for y in stride(from: 300, to: 340, by: 1) {
            for x in 100..<500 where Self.luma(image, x: x, y: y) != Self.luma(image, x: x + 1, y: y) {
                differences += 1
            }
        }
        #expect(differences > 40 * 400 * 8 / 10)
    }

    @Test("the id is drawn small in the bottom-left corner: white digits on a dark plate")
    func theIdIsOnAPlate() throws {
        let spec = ImageSpec(id: 7, width: 600, height: 400, color: Self.color)
        let image = ImageRenderer.render(spec)
        let layout = try #require(ImageRenderer.textLayout(spec))
        // A font pixel is a hundredth of the shorter side: 4 pixels; the digit's top 3 font pixels from the bottom.
        #expect(layout.scale == 4)
        #expect(layout.x == 12 && layout.y == 400 - 12 - 28)
        let ink = (ImageRenderer.inkLuma, ImageRenderer.inkLuma, ImageRenderer.inkLuma)
        let plate = (ImageRenderer.plateLuma, ImageRenderer.plateLuma, ImageRenderer.plateLuma)
        // The top row of a 7 is solid; its bottom row has only the second column set.
        for column in 0..<5 {
            #expect(image.pixel(x: layout.x + column * 4 + 2, y: layout.y + 2) == ink)
        }
        #expect(image.pixel(x: layout.x + 1 * 4 + 2, y: layout.y + 6 * 4 + 2) == ink)
        #expect(image.pixel(x: layout.x + 4 * 4 + 2, y: layout.y + 6 * 4 + 2) == plate)
        #expect(image.pixel(x: layout.x - 2, y: layout.y - 2) == plate)
    }

    @Test func anImageTooSmallForThePlateIsJustThePhoto() {
        let spec = ImageSpec(id: 123_456, width: 30, height: 10, color: Self.color)
        #expect(ImageRenderer.textLayout(spec) == nil)
        let image = ImageRenderer.render(spec)
        #expect(image.pixels.count == 30 * 10 * 3)
        // No grey pixel at all: neither plate nor ink (the photo's pixels have the item's green tint).
        for y in 0..<10 {
            for x in 0..<30 {
                let pixel = image.pixel(x: x, y: y)
                #expect(!(pixel.red == pixel.green && pixel.green == pixel.blue), "\(x),\(y)")
            }
        }
        #expect(ImageRenderer.textLayout(ImageSpec(id: 1, width: 30, height: 30, color: Self.color)) != nil)
    }

    @Test("the same landscape at every size: the sky, the hills and the ground lie in the same places")
    func theSameLandscapeAtEverySize() {
        let small = PhotoScene(id: 5, color: Self.color, width: 60, height: 40)
        let large = PhotoScene(id: 5, color: Self.color, width: 1200, height: 800)
        var same = 0
        var layers = Set<Int>()
        for y in 0..<40 {
            for x in 0..<60 {
                let layer = small.layer(x: x, y: y)
                layers.insert(layer)
                if layer == large.layer(x: 20 * x + 10, y: 20 * y + 10) { same += 1 }
            }
        }
        #expect(layers == [0, 1, 2, 3])
        #expect(same >= 2400 * 9 / 10, "\(same) of 2400")
    }

    @Test func grayscaleMakesTheChannelsEqual() {
        let colour = ImageRenderer.render(ImageSpec(id: 9, width: 64, height: 48, color: 0xF4A261))
        let gray = ImageRenderer.render(ImageSpec(id: 9, width: 64, height: 48, color: 0xF4A261, grayscale: true))
        #expect(colour != gray)
        for (x, y) in [(0, 0), (32, 24), (63, 47), (10, 40)] {
            let pixel = gray.pixel(x: x, y: y)
            #expect(pixel.red == pixel.green && pixel.green == pixel.blue)
            #expect(abs(Double(pixel.red) - Self.luma(colour, x: x, y: y)) <= 3)
        }
    }

    @Test func blurSmoothsTheGrainAndTheDigitsEdges() throws {
        let spec = ImageSpec(id: 1, width: 256, height: 256, color: Self.color)
        let sharp = ImageRenderer.render(spec)
        let soft = ImageRenderer.render(ImageSpec(id: 1, width: 256, height: 256, color: Self.color, blur: 5))
        func roughness(_ image: RGBImage) -> Double {
            var sum = 0.0
            for y in 0..<256 {
                for x in 0..<255 { sum += abs(Self.luma(image, x: x, y: y) - Self.luma(image, x: x + 1, y: y)) }
            }
            return sum
        }
        #expect(roughness(soft) < roughness(sharp) / 3)
        // At a digit's edge a sharp image jumps from the plate to white; a blurred one passes through between.
        let layout = try #require(ImageRenderer.textLayout(spec))
        let y = layout.y + layout.scale / 2
        let x = try #require((layout.x..<256).first { sharp.pixel(x: $0, y: y).red == ImageRenderer.inkLuma })
        let edge = soft.pixel(x: x, y: y).red
        #expect(edge > ImageRenderer.plateLuma + 20 && edge < ImageRenderer.inkLuma - 20)
    }

    @Test("the extreme shapes draw: one pixel, one row, one column, two columns")
    func extremeShapes() {
        for (width, height) in [(1, 1), (1, 5000), (5000, 1), (2, 5000), (5000, 3), (3, 3)] {
            let spec = ImageSpec(id: 77, width: width, height: height, color: Self.color)
            #expect(ImageRenderer.renderPlanes(spec).planes.count == YCbCrImage.byteCount(width: width, height: height))
            #expect(ImageRenderer.render(spec).pixels.count == width * height * 3)
        }
    }

    @Test func anOwnSizeOverTheLimitsShrinksKeepingItsShape() {
        #expect(ImageSpec.fitted(width: 1600, height: 1200) == (1600, 1200))
        #expect(ImageSpec.fitted(width: 6000, height: 4000) == (5000, 3333))
        #expect(ImageSpec.fitted(width: 4000, height: 6000) == (3333, 5000))
        let huge = ImageSpec.fitted(width: 100_000, height: 100_000)
        #expect(ImageSpec.allows(width: huge.width, height: huge.height) && huge.width == huge.height)
        #expect(ImageSpec.fitted(width: 100_000, height: 1) == (5000, 1))
        #expect(ImageSpec.proportional(300, side: 4000, other: 3000) == 225)
        #expect(ImageSpec.proportional(1, side: 6000, other: 1) == 1)
    }

    @Test func anItemsColourReadsAsRGB() {
        let item = Item(id: 1, label: "x", author: "y", width: 1, height: 1, color: "#F4a261", blurHash: nil, likes: 0)
        #expect(item.rgb == 0xF4A261)
    }
}
