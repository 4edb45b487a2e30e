/// Lorem Picsum's `?grayscale` and `?blur=1..10`, on RGB pixels, in integer arithmetic, through spans (no
/// pointers: ListDomain is no room for C).
extension ImageRenderer {
    /// Every pixel as its luma (ITU-R BT.601 weights in 8-bit fixed point), in all three channels.
    static func turnGray(_ pixels: inout [UInt8]) {
        var span = pixels.mutableSpan
        var offset = 0
        while offset + 2 < span.count {
            let luma = (77 * Int(span[offset]) + 150 * Int(span[offset + 1]) + 29 * Int(span[offset + 2]) + 128) >> 8
            let value = UInt8(min(255, luma))
            span[offset] = value
            span[offset + 1] = value
            span[offset + 2] = value
            offset += 3
        }
    }

    /// The box radius for `spec`'s blur: the strength, times one per 256 pixels of the shorter side, so a blur
    /// looks alike at every size.
    static func blurRadius(_ spec: ImageSpec) -> Int {
        spec.blur * max(1, min(spec.width, spec.height) / 256)
    }

    /// Three passes of a box blur of `radius` across and down (close to a Gaussian), edges extended.
    ///
    /// Each pass keeps running sums, so its cost does not grow with the radius; the vertical pass slides a row of
    /// column sums down the image, reading memory in order.
    static func boxBlur(_ pixels: inout [UInt8], width: Int, height: Int, radius: Int) {
        guard radius > 0, width > 0, height > 0 else { return }
        var scratch = [UInt8](repeating: 0, count: pixels.count)
        for _ in 0..<3 {
            var target = scratch.mutableSpan
            blurRows(pixels.span, into: &target, width: width, height: height, radius: radius)
            var back = pixels.mutableSpan
            blurColumns(scratch.span, into: &back, width: width, height: height, radius: radius)
        }
    }

    /// One horizontal pass: each pixel becomes the mean of the `2 * radius + 1` pixels around it in its row.
    private static func blurRows(
        _ source: Span<UInt8>, into target: inout MutableSpan<UInt8>, width: Int, height: Int, radius: Int
    ) {
        let window = 2 * radius + 1
        for row in 0..<height {
            let start = row * width * 3
            for channel in 0..<3 {
                func value(_ x: Int) -> Int { Int(source[start + min(max(x, 0), width - 1) * 3 + channel]) }
                var sum = 0
                for x in -radius...radius { sum += value(x) }
                for x in 0..<width {
                    target[start + x * 3 + channel] = UInt8((sum + window / 2) / window)
                    sum += value(x + radius + 1) - value(x - radius)
                }
            }
        }
    }

    /// One vertical pass: each pixel becomes the mean of the `2 * radius + 1` pixels around it in its column.
    private static func blurColumns(
        _ source: Span<UInt8>, into target: inout MutableSpan<UInt8>, width: Int, height: Int, radius: Int
    ) {
        let rowBytes = width * 3
        let window = 2 * radius + 1
        func rowStart(_ y: Int) -> Int { min(max(y, 0), height - 1) * rowBytes }
        var sums = [Int](repeating: 0, count: rowBytes)
        for y in -radius...radius {
            let start = rowStart(y)
            for byte in 0..<rowBytes { sums[byte] += Int(source[start + byte]) }
        }
        for y in 0..<height {
            let out = y * rowBytes
            let entering = rowStart(y + radius + 1)
            let leaving = rowStart(y - radius)
            for byte in 0..<rowBytes {
                target[out + byte] = UInt8((sums[byte] + window / 2) / window)
                sums[byte] += Int(source[entering + byte]) - Int(source[leaving + byte])
            }
        }
    }
}
