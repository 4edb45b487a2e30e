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
    /// column sums down the image, reading memory in order. A mean is a multiplication by the window's
    /// ``WindowMean`` reciprocal, not a division (an integer division per byte was most of a 5000x5000 blur:
    /// 2.1 s of the 4.5 s a blurred PNG of that size took, `perf record`).
    static func boxBlur(_ pixels: inout [UInt8], width: Int, height: Int, radius: Int) {
        guard radius > 0, width > 0, height > 0 else { return }
        let mean = WindowMean(window: 2 * radius + 1)
        var scratch = [UInt8](repeating: 0, count: pixels.count)
        var sums = [UInt32](repeating: 0, count: width * 3)
        for _ in 0..<3 {
            var target = scratch.mutableSpan
            blurRows(pixels.span, into: &target, width: width, height: height, radius: radius, mean: mean)
            var back = pixels.mutableSpan
            var columnSums = sums.mutableSpan
            blurColumns(
                scratch.span, into: &back, sums: &columnSums, width: width, height: height, radius: radius,
                mean: mean)
        }
    }

    /// One horizontal pass: each pixel becomes the mean of the `2 * radius + 1` pixels around it in its row.
    private static func blurRows(
        _ source: Span<UInt8>, into target: inout MutableSpan<UInt8>, width: Int, height: Int, radius: Int,
        mean: WindowMean
    ) {
        let rowBytes = width * 3
        for row in 0..<height {
            let bytes = row * rowBytes..<(row + 1) * rowBytes
            var out = target.extracting(bytes)
            blurRow(source.extracting(bytes), into: &out, width: width, radius: radius, mean: mean)
        }
    }

    /// One row of the horizontal pass, the three channels sliding together. Only the pixels within `radius` of
    /// an end clamp their window; the rest (nearly all of a large image) read it directly.
    private static func blurRow(
        _ source: Span<UInt8>, into target: inout MutableSpan<UInt8>, width: Int, radius: Int, mean: WindowMean
    ) {
        precondition(source.count == width * 3 && target.count == width * 3)
        let last = width - 1
        var red: UInt32 = 0
        var green: UInt32 = 0
        var blue: UInt32 = 0
        for x in -radius...radius {
            let at = min(max(x, 0), last) &* 3
            red &+= UInt32(source[at])
            green &+= UInt32(source[at &+ 1])
            blue &+= UInt32(source[at &+ 2])
        }
        /// Writes pixel `x` and slides the window past it: the pixel at `entering` comes in, the one at `leaving`
        /// goes out.
        @inline(__always)
        func advance(_ x: Int, entering: Int, leaving: Int) {
            let out = x &* 3
            target[out] = mean(red)
            target[out &+ 1] = mean(green)
            target[out &+ 2] = mean(blue)
            let enter = entering &* 3
            let leave = leaving &* 3
            red = red &+ UInt32(source[enter]) &- UInt32(source[leave])
            green = green &+ UInt32(source[enter &+ 1]) &- UInt32(source[leave &+ 1])
            blue = blue &+ UInt32(source[enter &+ 2]) &- UInt32(source[leave &+ 2])
        }
        // Pixels whose window reaches past neither end: radius ..< width - radius - 1.
        let inner = min(radius, width)..<max(min(radius, width), width &- radius &- 1)
        for x in 0..<inner.lowerBound {
            advance(x, entering: min(x &+ radius &+ 1, last), leaving: max(x &- radius, 0))
        }
        for x in inner {
            advance(x, entering: x &+ radius &+ 1, leaving: x &- radius)
        }
        for x in inner.upperBound..<width {
            advance(x, entering: min(x &+ radius &+ 1, last), leaving: max(x &- radius, 0))
        }
    }

    /// One vertical pass: each pixel becomes the mean of the `2 * radius + 1` pixels around it in its column.
    /// `sums` (one per byte of a row) is the pass's scratch.
    private static func blurColumns(
        _ source: Span<UInt8>, into target: inout MutableSpan<UInt8>, sums: inout MutableSpan<UInt32>, width: Int,
        height: Int, radius: Int, mean: WindowMean
    ) {
        let rowBytes = width * 3
        func row(_ y: Int) -> Range<Int> {
            let start = min(max(y, 0), height - 1) * rowBytes
            return start..<start + rowBytes
        }
        for byte in 0..<rowBytes { sums[byte] = 0 }
        for y in -radius...radius {
            addRow(source.extracting(row(y)), to: &sums)
        }
        for y in 0..<height {
            var out = target.extracting(y * rowBytes..<(y + 1) * rowBytes)
            slideRow(
                into: &out, sums: &sums, entering: source.extracting(row(y + radius + 1)),
                leaving: source.extracting(row(y - radius)), mean: mean)
        }
    }

    /// Adds a row's bytes to the column sums.
    private static func addRow(_ row: Span<UInt8>, to sums: inout MutableSpan<UInt32>) {
        precondition(row.count == sums.count)
        for byte in 0..<sums.count { sums[byte] &+= UInt32(row[byte]) }
    }

    /// Writes one row of means and slides the column sums down a row. The spans are all one row long, checked
    /// once, so the loop has no check of its own left and runs as vector instructions (sums of 32 bits: a
    /// window's at most 255 x 4,095).
    private static func slideRow(
        into out: inout MutableSpan<UInt8>, sums: inout MutableSpan<UInt32>, entering: Span<UInt8>,
        leaving: Span<UInt8>, mean: WindowMean
    ) {
        let count = sums.count
        precondition(out.count == count && entering.count == count && leaving.count == count)
        for byte in 0..<count {
            let sum = sums[byte]
            out[byte] = mean(sum)
            sums[byte] = sum &+ UInt32(entering[byte]) &- UInt32(leaving[byte])
        }
    }
}

/// The rounded mean of a window of bytes from their sum, `(sum + window / 2) / window`, as a multiplication by a
/// 32-bit fixed-point reciprocal and a shift.
///
/// Exact for every sum of `window` bytes: with `m = ceil(2^32 / window)`, `floor(n * m / 2^32) == n / window`
/// whenever `n * window < 2^32`, and `n < 256 * window` here, so windows up to 4,095 qualify (a blur's is at most
/// 381: strength 10 at 5000 pixels). A test holds it to the division for every sum of several windows.
struct WindowMean {
    private let half: UInt32
    private let reciprocal: UInt64

    init(window: Int) {
        precondition((1...4095).contains(window), "a blur window of \(window) pixels")
        half = UInt32(window / 2)
        reciprocal = UInt64(((1 << 32) + window - 1) / window)
    }

    /// The mean of `window` bytes whose sum is `sum` (32 bits hold a window's: at most 255 x 4,095), rounded half
    /// up. The running sums wrap as they add and take away, and are exact again once both are done.
    @inline(__always)
    func callAsFunction(_ sum: UInt32) -> UInt8 {
        UInt8(truncatingIfNeeded: (UInt64(sum &+ half) &* reciprocal) >> 32)
    }
}
