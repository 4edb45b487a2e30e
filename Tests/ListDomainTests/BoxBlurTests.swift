import Testing

@testable import ListDomain

/// The blur as its definition says, slowly: three passes, each pixel the rounded mean of the `2 * radius + 1`
/// pixels around it in its row, then in its column, edges extended.
private func referenceBlur(_ pixels: [UInt8], width: Int, height: Int, radius: Int) -> [UInt8] {
    var image = pixels
    let window = 2 * radius + 1
    func mean(_ sum: Int) -> UInt8 { UInt8((sum + window / 2) / window) }
    for _ in 0..<3 {
        var across = image
        for y in 0..<height {
            for x in 0..<width {
                for channel in 0..<3 {
                    let sum = (x - radius...x + radius).reduce(0) {
                        $0 + Int(image[(y * width + min(max($1, 0), width - 1)) * 3 + channel])
                    }
                    across[(y * width + x) * 3 + channel] = mean(sum)
                }
            }
        }
        for y in 0..<height {
            for x in 0..<width {
                for channel in 0..<3 {
                    let sum = (y - radius...y + radius).reduce(0) {
                        $0 + Int(across[(min(max($1, 0), height - 1) * width + x) * 3 + channel])
                    }
                    image[(y * width + x) * 3 + channel] = mean(sum)
                }
            }
        }
    }
    return image
}

@Suite("Box blur")
struct BoxBlurTests {
    @Test("a window's mean by reciprocal is the rounded division, for every sum of its bytes")
    func windowMeanIsTheDivision() {
        for window in [1, 2, 3, 5, 11, 31, 101, 381, 1023, 4095] {
            let mean = WindowMean(window: window)
            var mismatches = 0
            for sum in 0...(255 * window) where Int(mean(UInt32(sum))) != (sum + window / 2) / window {
                mismatches += 1
            }
            #expect(mismatches == 0, "window \(window)")
        }
    }

    @Test(
        "the running-sum blur gives the pixels of the definition",
        arguments: [(1, 1, 1), (7, 5, 1), (5, 7, 3), (16, 9, 2), (3, 20, 8), (13, 4, 30)])
    func blurMatchesTheDefinition(width: Int, height: Int, radius: Int) {
        var random = SplitMix64(seed: UInt64(width * 1000 + height * 10 + radius))
        let pixels = (0..<width * height * 3).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        var blurred = pixels
        ImageRenderer.boxBlur(&blurred, width: width, height: height, radius: radius)
        #expect(blurred == referenceBlur(pixels, width: width, height: height, radius: radius))
    }
}
