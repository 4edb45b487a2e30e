/// The photo drawn as a JPEG encoder's 4:2:0 planes (``YCbCrImage``).
///
/// Luma a pixel at a time: its layer's light for the row, the column's falloff, and three texture samples weighted
/// by the layer (``PhotoScene``). Chroma a sample per 2×2 pixels: the layer's colour at the block's top-left pixel
/// (a photo's colour changes slowly; its detail is in the light). Past an odd width or height the planes repeat the
/// last column or row, as libjpeg extends the edges.
extension ImageRenderer {
    /// Whether ``renderPlanes(_:into:)`` draws `spec` as it is served: a generated image without blur (blur is
    /// applied to RGB pixels; an upload is decoded pixels).
    public static func drawsPlanes(_ spec: ImageSpec) -> Bool {
        spec.blur == 0 && spec.upload == nil
    }

    /// `spec`'s image as 4:2:0 planes (its blur, if any, left out).
    public static func renderPlanes(_ spec: ImageSpec) -> YCbCrImage {
        var planes: [UInt8] = []
        renderPlanes(spec, into: &planes)
        return YCbCrImage(width: spec.width, height: spec.height, planes: planes)
    }

    /// Draws `spec`'s image (its blur left out) into `planes`, which become its ``YCbCrImage`` planes; storage of
    /// the right size is drawn over as it is, every byte of it.
    public static func renderPlanes(_ spec: ImageSpec, into planes: inout [UInt8]) {
        let (width, height) = (spec.width, spec.height)
        let count = YCbCrImage.byteCount(width: width, height: height)
        if planes.count != count {
            planes = [UInt8](repeating: 0, count: count)
        }
        let scene = PhotoScene(spec)
        let lumaWidth = YCbCrImage.lumaSide(width)
        let lumaHeight = YCbCrImage.lumaSide(height)
        var span = planes.mutableSpan
        var sum = 0
        // The tables and the falloff taken once for the image, not at each run of a row (their retains and releases
        // were 4 % of a 600×400 photo's planes, `perf`).
        let tables = (PhotoTextures.smooth, PhotoTextures.detail, PhotoTextures.grain)
        let textures = (tables.0.span, tables.1.span, tables.2.span)
        let falloff = scene.columnFalloff.span
        for y in 0..<height {
            sum += drawLuma(scene, row: y, textures: textures, falloff: falloff, into: &span, at: y * lumaWidth)
        }
        // The texture's mean over this photo's window of the tiles is not quite 0 (a small photo sees a few of the
        // smooth texture's 64-pixel features), clipping moves it too, and so does the plate: the photo's luma is
        // shifted so that the whole image's is the colour's, which the layout alone only comes near. A shift of up to
        // two levels is left: a pass over every pixel for it would cost a 600×400 photo a quarter more (where the
        // texture's window mean is within about 2 levels anyway).
        let layout = textLayout(spec)
        var area = width * height
        if let layout {
            let plate = plate(layout)
            for y in plate.y {
                for x in plate.x { sum -= Int(span[y * lumaWidth + x]) }
            }
            area -= plate.x.count * plate.y.count
        }
        let shift = (scene.targetLuma * width * height - sum - (layout.map(textLumaSum) ?? 0)) / max(1, area)
        if abs(shift) > 2 {
            for y in 0..<height {
                shiftLuma(&span, at: y * lumaWidth, count: width, by: shift)
            }
        }
        if let layout { drawText(layout, into: &span, lumaWidth: lumaWidth) }
        for y in 0..<height where lumaWidth > width {
            span[y * lumaWidth + width] = span[y * lumaWidth + width - 1]
        }
        if lumaHeight > height {
            for x in 0..<lumaWidth { span[height * lumaWidth + x] = span[(height - 1) * lumaWidth + x] }
        }
        drawChroma(scene, spec, plate: layout.map(plate), into: &span, lumaWidth: lumaWidth, lumaHeight: lumaHeight)
    }

    /// Row `y` of the luma plane, `scene.width` samples from `start`, as runs of one layer.
    ///
    /// Each run is drawn in pieces of up to 256 columns, in a loop the compiler vectorises (per pixel, with the
    /// layer looked up in the loop, a 600×400 photo took 1.6 ms; the budget is a fraction of its 0.7 ms encode).
    /// Returns the sum of the row's samples.
    private static func drawLuma(
        _ scene: PhotoScene, row y: Int, textures: (Span<Int16>, Span<Int16>, Span<Int16>), falloff: Span<Int16>,
        into span: inout MutableSpan<UInt8>, at start: Int
    ) -> Int {
        let light = scene.rowLuma(y)
        var sum = 0
        scene.forEachRun(row: y) { columns, layer in
            sum += drawRun(
                scene, row: y, columns: columns, layer: layer, light: light[layer], textures: textures,
                falloff: falloff, into: &span, at: start)
        }
        return sum
    }

    /// Adds `shift` to `count` luma samples from `start`, clipped to 0...255: a saturating add or subtract of
    /// bytes, which the compiler vectorises (through `Int16` and a clamp it stayed a byte at a time).
    private static func shiftLuma(_ span: inout MutableSpan<UInt8>, at start: Int, count: Int, by shift: Int) {
        var row = span.extracting(start..<(start + count))
        let amount = UInt8(clamping: abs(shift))
        if shift > 0 {
            let ceiling = 255 - amount
            for index in row.indices {
                let value = row[index]
                row[index] = value > ceiling ? 255 : value &+ amount
            }
        } else {
            for index in row.indices {
                let value = row[index]
                row[index] = value < amount ? 0 : value &- amount
            }
        }
    }

    /// Columns `columns` of row `y`, all of layer `layer` whose light in this row is `light`; returns the sum of
    /// their samples.
    private static func drawRun(
        _ scene: PhotoScene, row y: Int, columns: Range<Int>, layer: Int, light: Int,
        textures tables: (Span<Int16>, Span<Int16>, Span<Int16>), falloff: Span<Int16>,
        into span: inout MutableSpan<UInt8>, at start: Int
    ) -> Int {
        let side = PhotoTextures.side
        let mask = PhotoTextures.mask
        let pitch = PhotoTextures.pitch
        let rows = (
            ((y + scene.smoothOrigin.y) & mask) * pitch, ((y + scene.detailOrigin.y) & mask) * pitch,
            ((y + scene.grainOrigin.y) & mask) * pitch
        )
        // 16-bit lanes, eight to a vector.
        let weights = (
            Int16(scene.smoothWeight[layer]), Int16(scene.detailWeight[layer]), Int16(scene.grainWeight)
        )
        let light = Int16(clamping: light)
        var sum = 0
        var x = columns.lowerBound
        while x < columns.upperBound {
            // Where each texture is read from: up to `side` columns from there are in its row, which holds the
            // texture's row twice (``PhotoTextures/pitch``), so a piece is cut at most every 256 columns, not
            // wherever one of the three textures wraps (about nine pieces a run of a 600-pixel row, each ending in
            // a scalar loop over its last few pixels).
            let at = (
                (x + scene.smoothOrigin.x) & mask, (x + scene.detailOrigin.x) & mask, (x + scene.grainOrigin.x) & mask
            )
            let count = min(columns.upperBound - x, side)
            let smooth = tables.0.extracting((rows.0 + at.0)..<(rows.0 + at.0 + count))
            let detail = tables.1.extracting((rows.1 + at.1)..<(rows.1 + at.1 + count))
            let grain = tables.2.extracting((rows.2 + at.2)..<(rows.2 + at.2 + count))
            let fall = falloff.extracting(x..<(x + count))
            var out = span.extracting((start + x)..<(start + x + count))
            // Wrapping arithmetic (no overflow checks, which keep a loop from being vectorised): the texture sums
            // stay within ±22,000 (``PhotoScene/maximumWeight``), a segment's sum of samples within 65,280.
            var segmentSum: UInt16 = 0  // 16-bit lanes too: at most 256 × 255
            for index in 0..<count {
                let texture =
                    weights.0 &* smooth[index] &+ weights.1 &* detail[index] &+ weights.2 &* grain[index]
                let sample = UInt8(clamping: light &+ fall[index] &+ texture &>> 7)
                out[index] = sample
                segmentSum &+= UInt16(sample)
            }
            sum += Int(segmentSum)
            x += count
        }
        return sum
    }

    /// The sum of the plate's luma, digits included.
    private static func textLumaSum(_ layout: (scale: Int, x: Int, y: Int, digits: [Int])) -> Int {
        let plate = plate(layout)
        var inked = 0
        for digit in layout.digits {
            for row in 0..<BitmapFont.glyphHeight {
                for column in 0..<BitmapFont.glyphWidth where BitmapFont.isSet(digit: digit, column: column, row: row) {
                    inked += 1
                }
            }
        }
        let inkedPixels = inked * layout.scale * layout.scale
        return plate.x.count * plate.y.count * Int(plateLuma) + inkedPixels * (Int(inkLuma) - Int(plateLuma))
    }

    /// The id's plate and digits on the luma plane.
    private static func drawText(
        _ layout: (scale: Int, x: Int, y: Int, digits: [Int]), into span: inout MutableSpan<UInt8>, lumaWidth: Int
    ) {
        let plate = plate(layout)
        for y in plate.y {
            for x in plate.x { span[y * lumaWidth + x] = plateLuma }
        }
        for (index, digit) in layout.digits.enumerated() {
            for row in 0..<BitmapFont.glyphHeight {
                for column in 0..<BitmapFont.glyphWidth where BitmapFont.isSet(digit: digit, column: column, row: row) {
                    let left = layout.x + (index * BitmapFont.advance + column) * layout.scale
                    let top = layout.y + row * layout.scale
                    for y in top..<(top + layout.scale) {
                        for x in left..<(left + layout.scale) { span[y * lumaWidth + x] = inkLuma }
                    }
                }
            }
        }
    }

    /// Both chroma planes: each block's layer colour, grey on the plate and in a grey image.
    private static func drawChroma(
        _ scene: PhotoScene, _ spec: ImageSpec, plate: (x: Range<Int>, y: Range<Int>)?,
        into span: inout MutableSpan<UInt8>, lumaWidth: Int, lumaHeight: Int
    ) {
        let chromaWidth = lumaWidth / 2
        let chromaHeight = lumaHeight / 2
        let cbStart = lumaWidth * lumaHeight
        let crStart = cbStart + chromaWidth * chromaHeight
        let cb = SIMD4<UInt8>(clamping: scene.cb)
        let cr = SIMD4<UInt8>(clamping: scene.cr)
        for row in 0..<chromaHeight {
            let y = min(2 * row, spec.height - 1)
            let rows = (cbStart + row * chromaWidth, crStart + row * chromaWidth)
            if spec.grayscale {
                fill(&span, at: rows.0, count: chromaWidth, repeating: 128)
                fill(&span, at: rows.1, count: chromaWidth, repeating: 128)
                continue
            }
            // Block `c` takes the layer of pixel `2c`: a run of pixels `a..<b` gives blocks `(a+1)/2..<(b+1)/2`.
            scene.forEachRun(row: y) { columns, layer in
                let blocks = (columns.lowerBound + 1) / 2..<min(chromaWidth, (columns.upperBound + 1) / 2)
                guard !blocks.isEmpty else { return }
                fill(&span, at: rows.0 + blocks.lowerBound, count: blocks.count, repeating: cb[layer])
                fill(&span, at: rows.1 + blocks.lowerBound, count: blocks.count, repeating: cr[layer])
            }
            if let plate, plate.y.contains(y) {
                let blocks = (plate.x.lowerBound + 1) / 2..<(plate.x.upperBound + 1) / 2
                fill(&span, at: rows.0 + blocks.lowerBound, count: blocks.count, repeating: 128)
                fill(&span, at: rows.1 + blocks.lowerBound, count: blocks.count, repeating: 128)
            }
        }
    }

    /// Sets `count` samples from `start` to `value` (a loop the compiler turns into vector stores).
    private static func fill(_ span: inout MutableSpan<UInt8>, at start: Int, count: Int, repeating value: UInt8) {
        for index in start..<(start + count) {
            span[index] = value
        }
    }
}

extension YCbCrImage {
    /// The planes' RGB pixels with libjpeg's colour conversion (`jdcolor.c`: the JFIF equations in 16-bit fixed
    /// point with its rounding), each chroma sample standing for its 2×2 pixels (nearest neighbour, where a JPEG
    /// decoder smooths chroma between samples), into `pixels` (which become `width * height * 3` bytes).
    func rgb(into pixels: inout [UInt8]) {
        let count = width * height * 3
        if pixels.count != count {
            pixels = [UInt8](repeating: 0, count: count)
        }
        let cbStart = lumaWidth * lumaHeight
        let crStart = cbStart + chromaWidth * chromaHeight
        let source = planes.span
        var target = pixels.mutableSpan
        // Each chroma pair's three offsets once, then its two pixels; wrapping arithmetic on 32 bits (the products
        // stay under 2^24), without overflow checks.
        for y in 0..<height {
            let chromaRow = (y / 2) * chromaWidth
            let lumaRow = source.extracting((y * lumaWidth)..<(y * lumaWidth + width))
            var out = target.extracting((y * width * 3)..<((y + 1) * width * 3))
            for x in 0..<width {
                let blue = Int32(source[cbStart + chromaRow + x / 2]) &- 128
                let red = Int32(source[crStart + chromaRow + x / 2]) &- 128
                let pixel = Self.rgb(luma: Int32(lumaRow[x]), blue: blue, red: red)
                out[3 * x] = pixel.red
                out[3 * x + 1] = pixel.green
                out[3 * x + 2] = pixel.blue
            }
        }
    }

    /// One pixel's RGB as libjpeg converts it (`jdcolor.c`, 16-bit fixed point with its rounding) from its luma and
    /// its chroma less 128 (`blue` Cb − 128, `red` Cr − 128); wrapping arithmetic on 32 bits (the products stay
    /// under 2^24), without overflow checks.
    @inline(__always)
    static func rgb(luma: Int32, blue: Int32, red: Int32) -> ImageRenderer.Color {
        (
            UInt8(clamping: luma &+ (91_881 &* red &+ 32_768) &>> 16),
            UInt8(clamping: luma &+ (-22_554 &* blue &- 46_802 &* red &+ 32_768) &>> 16),
            UInt8(clamping: luma &+ (116_130 &* blue &+ 32_768) &>> 16)
        )
    }
}
