/// The same image drawn straight into a JPEG encoder's 4:2:0 planes (``YCbCrImage``), for JPEGs without blur.
///
/// TurboJPEG spends about a quarter of a 600x400 encode turning RGB into luma and chroma and averaging the chroma
/// down (Benchmarks/images). The generated image is made of runs of one colour (a background per row, the digits'
/// squares), so its planes can be written directly: each run's samples computed once and stored as runs, with
/// libjpeg's exact arithmetic (``YCbCrImage/Sample``, ``YCbCrImage/downsampled(_:column:)``): the planes TurboJPEG
/// makes of ``render(_:into:)``'s pixels, sample for sample (a test holds them to it), so the JPEG is the same picture
/// (and the same file when both sides are multiples of 16: past the edge TurboJPEG pads planes and pixels
/// differently).
extension ImageRenderer {
    /// Whether ``renderPlanes(_:into:)`` draws `spec`: a generated image without blur (blur mixes colours across
    /// runs; an upload is decoded pixels, not runs).
    public static func drawsPlanes(_ spec: ImageSpec) -> Bool {
        spec.blur == 0 && spec.upload == nil
    }

    /// `spec`'s image as 4:2:0 planes.
    public static func renderPlanes(_ spec: ImageSpec) -> YCbCrImage {
        var planes: [UInt8] = []
        renderPlanes(spec, into: &planes)
        return YCbCrImage(width: spec.width, height: spec.height, planes: planes)
    }

    /// Draws `spec`'s image into `planes`, which become its ``YCbCrImage`` planes; storage of the right size is
    /// drawn over as it is, every byte of it, as ``render(_:into:)`` does.
    public static func renderPlanes(_ spec: ImageSpec, into planes: inout [UInt8]) {
        precondition(drawsPlanes(spec), "planes are drawn without blur only")
        let width = spec.width
        let height = spec.height
        let count = YCbCrImage.byteCount(width: width, height: height)
        if planes.count != count {
            planes = [UInt8](repeating: 0, count: count)
        }
        let lumaWidth = YCbCrImage.lumaSide(width)
        let chromaWidth = lumaWidth / 2
        let chromaHeight = YCbCrImage.lumaSide(height) / 2
        let cbStart = lumaWidth * chromaHeight * 2
        let crStart = cbStart + chromaWidth * chromaHeight
        let text = TextRuns(spec)
        func sample(_ color: Color) -> YCbCrImage.Sample {
            YCbCrImage.Sample(spec.grayscale ? gray(color) : color)
        }
        let ink = sample(textColor(on: spec.color))
        var span = planes.mutableSpan
        // Rows below the last one (an odd height's padding row) repeat it, as libjpeg extends the bottom edge.
        for row in 0..<(2 * chromaHeight) {
            let source = min(row, height - 1)
            let paper = sample(background(spec.color, row: source, of: height)).y
            drawLuma(
                &span, at: row * lumaWidth, width: width, lumaWidth: lumaWidth, paper: paper, ink: ink.y,
                runs: text.runs(row: source))
        }
        var bytes = span.mutableBytes
        for pair in 0..<chromaHeight {
            let rows = (2 * pair, min(2 * pair + 1, height - 1))
            let paper = (
                sample(background(spec.color, row: rows.0, of: height)),
                sample(background(spec.color, row: rows.1, of: height))
            )
            let chroma = ChromaRow(
                width: width, runs: (text.runs(row: rows.0), text.runs(row: rows.1)), paper: paper, ink: ink,
                offsets: (cbStart + pair * chromaWidth, crStart + pair * chromaWidth), chromaWidth: chromaWidth)
            chroma.draw(into: &bytes)
        }
    }

    /// One row of the luma plane: paper, the inked runs, and an odd width's padding column repeating the last.
    private static func drawLuma(
        _ span: inout MutableSpan<UInt8>, at start: Int, width: Int, lumaWidth: Int, paper: Int, ink: Int,
        runs: [Range<Int>]
    ) {
        fill(&span, at: start, count: lumaWidth, repeating: UInt8(paper))
        for run in runs {
            fill(&span, at: start + run.lowerBound, count: run.count, repeating: UInt8(ink))
        }
        if lumaWidth > width, let last = runs.last, last.upperBound >= width {
            span[start + width] = UInt8(ink)
        }
    }

    /// Sets `count` bytes from `start` to `value` (a loop the compiler turns into vector stores: 240 KB in about
    /// 2 µs, against 11 µs for eight-byte stores through a raw span).
    static func fill(_ span: inout MutableSpan<UInt8>, at start: Int, count: Int, repeating value: UInt8) {
        for index in start..<(start + count) {
            span[index] = value
        }
    }

    /// The grey `turnGray` makes of `color`, as a colour.
    static func gray(_ color: Color) -> Color {
        let luma = (77 * Int(color.red) + 150 * Int(color.green) + 29 * Int(color.blue) + 128) >> 8
        let value = UInt8(min(255, luma))
        return (value, value, value)
    }

    /// Sets `count` bytes from `start` to `value`, a byte at a time (which the compiler vectorises).
    static func fill(_ bytes: inout MutableRawSpan, at start: Int, count: Int, repeating value: UInt8) {
        for offset in start..<(start + count) {
            bytes.storeBytes(of: value, toByteOffset: offset, as: UInt8.self)
        }
    }

    /// Sets `count` bytes from `start` to the bytes of `pattern` (little-endian, a pattern whose period divides 8),
    /// eight at a time.
    static func fill(_ bytes: inout MutableRawSpan, at start: Int, count: Int, pattern: UInt64) {
        let end = start + count
        var offset = start
        while offset + 8 <= end {
            bytes.storeBytes(of: pattern, toByteOffset: offset, as: UInt64.self)
            offset += 8
        }
        var rest = pattern
        while offset < end {
            bytes.storeBytes(of: UInt8(truncatingIfNeeded: rest), toByteOffset: offset, as: UInt8.self)
            rest >>= 8
            offset += 1
        }
    }
}

/// Where the digits' squares lie in each row: runs of inked columns, the same for every row of one font row.
struct TextRuns {
    private let top: Int
    private let scale: Int
    /// The runs of each font row, left to right, neighbours merged.
    private let byFontRow: [[Range<Int>]]

    init(_ spec: ImageSpec) {
        guard let layout = ImageRenderer.textLayout(spec) else {
            (top, scale, byFontRow) = (0, 1, [])
            return
        }
        (top, scale) = (layout.y, layout.scale)
        byFontRow = (0..<BitmapFont.glyphHeight).map { fontRow in
            var runs: [Range<Int>] = []
            for (index, digit) in layout.digits.enumerated() {
                for column in 0..<BitmapFont.glyphWidth
                where BitmapFont.isSet(digit: digit, column: column, row: fontRow) {
                    let left = layout.x + (index * BitmapFont.advance + column) * layout.scale
                    if let last = runs.last, last.upperBound == left {
                        runs[runs.count - 1] = last.lowerBound..<(left + layout.scale)
                    } else {
                        runs.append(left..<(left + layout.scale))
                    }
                }
            }
            return runs
        }
    }

    /// The inked columns of image row `row`.
    func runs(row: Int) -> [Range<Int>] {
        guard row >= top else { return [] }
        let fontRow = (row - top) / scale
        return fontRow < byFontRow.count ? byFontRow[fontRow] : []
    }
}

/// One row of both chroma planes: the samples of two image rows averaged 2×2.
private struct ChromaRow {
    let width: Int
    /// The inked runs of the upper and the lower image row.
    let runs: ([Range<Int>], [Range<Int>])
    let paper: (YCbCrImage.Sample, YCbCrImage.Sample)
    let ink: YCbCrImage.Sample
    /// Where this row starts in the Cb and in the Cr plane.
    let offsets: (Int, Int)
    let chromaWidth: Int

    func draw(into bytes: inout MutableRawSpan) {
        // The background: one value for even columns and one for odd (the rounding bias differs).
        let cb = 2 * paper.0.cb + 2 * paper.1.cb
        let cr = 2 * paper.0.cr + 2 * paper.1.cr
        ImageRenderer.fill(&bytes, at: offsets.0, count: chromaWidth, pattern: Self.alternating(cb))
        ImageRenderer.fill(&bytes, at: offsets.1, count: chromaWidth, pattern: Self.alternating(cr))
        if runs.0 == runs.1 {
            for run in runs.0 {
                // Columns whose four pixels are all ink hold the ink's value (4v plus a bias of 1 or 2, over 4).
                // All ink: both pixels inside the run (past the right edge, the last pixel counts twice).
                let first = (run.lowerBound + 1) / 2
                let last = run.upperBound >= width ? (width + 1) / 2 : run.upperBound / 2  // exclusive
                if last > first {
                    ImageRenderer.fill(&bytes, at: offsets.0 + first, count: last - first, repeating: UInt8(ink.cb))
                    ImageRenderer.fill(&bytes, at: offsets.1 + first, count: last - first, repeating: UInt8(ink.cr))
                }
                // The one or two columns at the run's ends: one pixel of ink and one of paper in each row (the pixel
                // beside a run is never ink: neighbouring runs are merged).
                let cb = 2 * ink.cb + paper.0.cb + paper.1.cb
                let cr = 2 * ink.cr + paper.0.cr + paper.1.cr
                if run.lowerBound / 2 < first { store(column: run.lowerBound / 2, cb: cb, cr: cr, into: &bytes) }
                if (run.upperBound - 1) / 2 >= last {
                    store(column: (run.upperBound - 1) / 2, cb: cb, cr: cr, into: &bytes)
                }
            }
        } else {
            // Rows on two sides of a font row's edge: every column that touches ink in either, from its four
            // pixels, left to right (so each row's runs are looked through once).
            let touched = (runs.0 + runs.1).map { ($0.lowerBound / 2)...(($0.upperBound - 1) / 2) }
            var upper = InkCursor(runs: runs.0)
            var lower = InkCursor(runs: runs.1)
            var next = 0
            for range in touched.sorted(by: { $0.lowerBound < $1.lowerBound }) where range.upperBound >= next {
                for column in max(range.lowerBound, next)...range.upperBound {
                    drawExactly(column, upper: &upper, lower: &lower, into: &bytes)
                }
                next = range.upperBound + 1
            }
        }
    }

    /// Column `column` of both planes from its four pixels (a column past the right edge repeats the last one).
    /// Columns must come left to right.
    private func drawExactly(
        _ column: Int, upper: inout InkCursor, lower: inout InkCursor, into bytes: inout MutableRawSpan
    ) {
        let left = (upper.isInked(2 * column) ? ink : paper.0, lower.isInked(2 * column) ? ink : paper.1)
        let x = min(2 * column + 1, width - 1)
        let right = (upper.isInked(x) ? ink : paper.0, lower.isInked(x) ? ink : paper.1)
        let cb = left.0.cb + left.1.cb + right.0.cb + right.1.cb
        let cr = left.0.cr + left.1.cr + right.0.cr + right.1.cr
        store(column: column, cb: cb, cr: cr, into: &bytes)
    }

    /// Column `column` of both planes from the sums of its four samples.
    private func store(column: Int, cb: Int, cr: Int, into bytes: inout MutableRawSpan) {
        bytes.storeBytes(
            of: YCbCrImage.downsampled(cb, column: column), toByteOffset: offsets.0 + column, as: UInt8.self)
        bytes.storeBytes(
            of: YCbCrImage.downsampled(cr, column: column), toByteOffset: offsets.1 + column, as: UInt8.self)
    }

    /// Eight bytes of chroma from column 0: the sum's value for an even column, then for an odd one, four times.
    private static func alternating(_ sum: Int) -> UInt64 {
        let pair =
            UInt64(YCbCrImage.downsampled(sum, column: 0)) | UInt64(YCbCrImage.downsampled(sum, column: 1)) << 8
        return pair &* 0x0001_0001_0001_0001
    }
}

/// Whether pixels of one row are inked, asked left to right: walks the row's runs once.
private struct InkCursor {
    let runs: [Range<Int>]
    var index = 0

    mutating func isInked(_ x: Int) -> Bool {
        while index < runs.count, runs[index].upperBound <= x { index += 1 }
        return index < runs.count && runs[index].contains(x)
    }
}
