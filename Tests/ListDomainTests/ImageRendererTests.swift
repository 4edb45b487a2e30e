import Testing

@testable import ListDomain

/// A pixel's red, green and blue as integers.
private func channels(_ image: RGBImage, x: Int, y: Int) -> [Int] {
    let pixel = image.pixel(x: x, y: y)
    return [Int(pixel.red), Int(pixel.green), Int(pixel.blue)]
}

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

    @Test func theBackgroundRunsFromLighterAtTheTopToDarkerAtTheBottom() {
        let image = ImageRenderer.render(ImageSpec(id: 1, width: 200, height: 101, color: Self.color))
        let base = [0x3F, 0x7A, 0x59]
        let towardsWhite: [Int] = base.map { $0 + (255 - $0) / 4 }
        let towardsBlack: [Int] = base.map { $0 - $0 / 4 }
        // The middle row is the colour itself; the top a quarter of the way to white, the bottom to black.
        #expect(channels(image, x: 0, y: 50) == base)
        #expect(channels(image, x: 0, y: 0) == towardsWhite)
        #expect(channels(image, x: 0, y: 100) == towardsBlack)
        // Every pixel of a row has the row's colour where no digit is drawn (the left edge is clear of text).
        for y in 0..<101 {
            #expect(image.pixel(x: 0, y: y) == image.pixel(x: 3, y: y))
        }
    }

    @Test func theIdIsDrawnLargeAndCentredInTheTextColour() throws {
        let spec = ImageSpec(id: 7, width: 300, height: 200, color: Self.color)
        let image = ImageRenderer.render(spec)
        let layout = try #require(ImageRenderer.textLayout(spec))
        // "7" is 5 font columns wide: three quarters of 300 over 5 is 45, half of 200 over 7 is 14.
        #expect(layout.scale == 14)
        #expect(layout.x == (300 - 5 * 14) / 2 && layout.y == (200 - 7 * 14) / 2)
        let white: (UInt8, UInt8, UInt8) = (255, 255, 255)
        // The top row of a 7 is solid; its bottom row has only the second column set.
        for column in 0..<5 {
            #expect(image.pixel(x: layout.x + column * 14 + 7, y: layout.y + 7) == white)
        }
        #expect(image.pixel(x: layout.x + 1 * 14 + 7, y: layout.y + 6 * 14 + 7) == white)
        #expect(image.pixel(x: layout.x + 4 * 14 + 7, y: layout.y + 6 * 14 + 7) != white)
    }

    @Test func lightColoursGetDarkDigitsAndDarkColoursWhiteOnes() {
        #expect(ImageRenderer.textColor(on: 0xF4A261) == (0x1A, 0x1A, 0x1A))
        #expect(ImageRenderer.textColor(on: 0x11048B) == (0xFF, 0xFF, 0xFF))
    }

    @Test func anImageTooSmallForTheDigitsIsJustTheBackground() {
        let spec = ImageSpec(id: 123_456, width: 10, height: 10, color: Self.color)
        #expect(ImageRenderer.textLayout(spec) == nil)
        let image = ImageRenderer.render(spec)
        #expect(image.pixel(x: 5, y: 5) == ImageRenderer.background(Self.color, row: 5, of: 10))
    }

    @Test func grayscaleMakesTheChannelsEqualWithTheLumaOfEachPixel() {
        let colour = ImageRenderer.render(ImageSpec(id: 9, width: 64, height: 48, color: 0xF4A261))
        let gray = ImageRenderer.render(ImageSpec(id: 9, width: 64, height: 48, color: 0xF4A261, grayscale: true))
        for (x, y) in [(0, 0), (32, 24), (63, 47), (10, 40)] {
            let rgb = channels(colour, x: x, y: y)
            let weighted: Int = 77 * rgb[0] + 150 * rgb[1] + 29 * rgb[2] + 128
            let luma = weighted >> 8
            #expect(channels(gray, x: x, y: y) == [luma, luma, luma])
        }
    }

    @Test func blurSoftensTheDigitsEdgesButLeavesAFlatAreaAlone() throws {
        let sharp = ImageRenderer.render(ImageSpec(id: 1, width: 256, height: 256, color: Self.color))
        let soft = ImageRenderer.render(ImageSpec(id: 1, width: 256, height: 256, color: Self.color, blur: 5))
        #expect(soft != sharp)
        // Far from the digit the gradient changes by at most a step per row: blurring it changes little.
        let before = channels(sharp, x: 5, y: 128)
        let after = channels(soft, x: 5, y: 128)
        #expect(zip(before, after).allSatisfy { abs($0 - $1) <= 2 })
        // At the digit's edge a sharp image jumps from background to white; a blurred one passes through between.
        let layout = try #require(
            ImageRenderer.textLayout(ImageSpec(id: 1, width: 256, height: 256, color: Self.color)))
        let edge = soft.pixel(x: layout.x + 2 * layout.scale, y: layout.y + 3 * layout.scale).red
        #expect(edge > 0x3F && edge < 255)
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
        let item = Item(id: 1, label: "x", author: "y", width: 1, height: 1, color: "#F4a261", likes: 0)
        #expect(item.rgb == 0xF4A261)
    }
}
