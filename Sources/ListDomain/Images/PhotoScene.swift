/// The landscape an item's generated photo shows: a sky, far hills, near hills and the ground, each a layer with its
/// own light, colour and texture, under light that falls off towards the edges, with grain over all.
///
/// Laid out from the item's id and colour alone (so the image is the same in every dataset whose item has that
/// colour), in integer arithmetic: every machine draws the same pixels. Positions are fractions of the image, so
/// one item's photo shows the same landscape at every size; textures are sampled a pixel per pixel, so a larger
/// photo has more detail, as a camera's does.
///
/// The layers' light and colour are offsets from the item's colour, shifted so that the layout's mean (``mean``)
/// is that colour: the colour a list shows before the photo arrives is the photo's average.
struct PhotoScene {
    let width: Int
    let height: Int
    /// The first row of hill layer `k + 1` in column `x` at `ridges[k * width + x]` (k 0: far hills, 1: near hills,
    /// 2: the ground), never above the row of the layer behind it.
    let ridges: [Int]
    /// Each layer's luma before the row's gradient and the falloff (sky, far, near, ground).
    private(set) var luma: SIMD4<Int>
    /// How each layer's luma changes from the top row to the bottom one.
    let slope: SIMD4<Int>
    /// Each layer's chroma, Cb and Cr (128 is grey).
    private(set) var cb: SIMD4<Int>
    private(set) var cr: SIMD4<Int>
    /// The weight of the smooth and the detail texture in each layer, and the grain's, in 1/128 of a table's value.
    let smoothWeight: SIMD4<Int>
    let detailWeight: SIMD4<Int>
    let grainWeight: Int
    /// Where this photo starts sampling each texture (x, y).
    let smoothOrigin: (x: Int, y: Int)
    let detailOrigin: (x: Int, y: Int)
    let grainOrigin: (x: Int, y: Int)
    /// The luma of the item's colour: the mean the photo's luma is brought to.
    let targetLuma: Int
    /// The most the three texture weights of a layer add up to: 171 × 127 fits the 16 bits a pixel is drawn in.
    static let maximumWeight = 171
    /// The light lost at the edges, and in each column.
    let falloffDepth: Int
    let columnFalloff: [Int16]
    /// Where the skylines cross each row: the columns `x` of row `y` whose layer is not column `x - 1`'s, at
    /// `crossings[crossingStarts[y]..<crossingStarts[y + 1]]`, in order (a column once per skyline crossing there).
    /// A row's runs of one layer follow from them without a look at each pixel.
    private let crossings: [Int32]
    private let crossingStarts: [Int32]

    /// The scene of `spec`'s photo.
    init(_ spec: ImageSpec) {
        self.init(id: spec.id, color: spec.color, width: spec.width, height: spec.height)
    }

    /// The scene of item `id`'s photo in `color` at `width`×`height`; its mean is taken at `meanGrid`×`meanGrid`
    /// points (``mean(grid:)``; a render of fewer pixels than 32×32 may ask for fewer, as the placeholders do).
    init(id: UInt64, color: UInt32, width: Int, height: Int, meanGrid: Int = 32) {
        self.width = width
        self.height = height
        let key = SplitMix64.mix(id &* SplitMix64.gamma ^ UInt64(color))
        /// The `index`th draw from `range`.
        func draw(_ index: UInt64, _ range: ClosedRange<Int>) -> Int {
            range.lowerBound + Int(SplitMix64.mix(key &+ index) >> 20 % UInt64(range.count))
        }
        // Through spans read without bounds checks (every index is in range by construction: a texture row and
        // its cell masked, a column below the width): with the arrays' checks and array literals for the
        // constants, the layout took 10 % of a 600×400 photo's planes (`perf`, `ListBenchmarks --only
        // renderPlanes`).
        var ridges = [Int](repeating: 0, count: 3 * width)
        do {
            let texture = PhotoTextures.smooth  // A local owner for the span (a global's access ends at once).
            let smooth = texture.span
            var skylines = ridges.mutableSpan
            for layer in 0..<3 {
                // A row of the smooth texture, stretched to the width, is the skyline; each layer lower and
                // flatter.
                let (basePercent, amplitudePercent, divisor) =
                    layer == 0 ? (38, 18, 3) : layer == 1 ? (55, 12, 5) : (72, 6, 8)
                let base = basePercent * height / 100 + (draw(10 + UInt64(layer), 0...100) - 50) * height / 1000
                let amplitude = amplitudePercent * height * (50 + draw(20 + UInt64(layer), 0...100)) / 10_000
                let row = draw(30 + UInt64(layer), 0...255) * PhotoTextures.pitch
                let start = draw(40 + UInt64(layer), 0...255) * 256
                // The width spans about 170 cells (1/256 each), whatever it is. Column x is at
                // `start + x * span / width`, stepped to without a division a column (three a column were most of
                // the layout's time).
                let span = 2 * 65_536 / divisor
                let (whole, part) = span.quotientAndRemainder(dividingBy: max(width, 1))
                var offset = 0  // x * span / width
                var remainder = 0  // x * span % width
                for x in 0..<width {
                    if x > 0 {
                        offset += whole
                        remainder += part
                        if remainder >= width {
                            remainder -= width
                            offset += 1
                        }
                    }
                    let position = start + offset
                    let cell = position >> 8
                    let fraction = position & 255
                    let left = Int(smooth[unchecked: row + (cell & PhotoTextures.mask)])
                    let right = Int(smooth[unchecked: row + ((cell + 1) & PhotoTextures.mask)])
                    let sample = (left * (256 - fraction) + right * fraction) >> 8
                    var ridge = base - amplitude * sample / 127
                    if layer > 0 { ridge = max(ridge, skylines[unchecked: (layer - 1) * width + x]) }
                    skylines[unchecked: layer * width + x] = ridge
                }
            }
        }
        self.ridges = ridges
        // Contrast in 1/64: full for a colour with room on both sides of every channel, less for one near black,
        // white or a pure hue, whose pixels would otherwise be clipped (and their mean no longer the colour).
        let channels = ImageRenderer.components(color)
        let room = [channels.red, channels.green, channels.blue].map { min(Int($0), 255 - Int($0)) }.min()!
        let contrast = min(64, max(16, room))
        luma = SIMD4(50, 20, -10, -30) &* contrast / 64
        slope = SIMD4(-30, 0, 0, 20) &* contrast / 64
        cb = SIMD4(15, 8, 0, -5) &* contrast / 64
        cr = SIMD4(-8, -4, 0, 5) &* contrast / 64
        // How textured this photo is: the spread of sizes a real set of photos has.
        // Texture averages out, so it is cut less: by half at most.
        let grain = min(64, max(32, room))
        let texture = (13 + draw(51, 0...18)) * grain
        smoothWeight = SIMD4(12, 9, 16, 20) &* texture / 640
        detailWeight = SIMD4(2, 9, 20, 30) &* texture / 640
        grainWeight = draw(50, 1...16) * grain / 64
        assert((smoothWeight &+ detailWeight).max() + grainWeight <= Self.maximumWeight)
        smoothOrigin = (draw(60, 0...255), draw(61, 0...255))
        detailOrigin = (draw(62, 0...255), draw(63, 0...255))
        grainOrigin = (draw(64, 0...255), draw(65, 0...255))
        falloffDepth = 20 * contrast / 64
        columnFalloff = (0..<width).map { [falloffDepth] in Int16(Self.falloff($0, of: width, depth: falloffDepth)) }
        (crossings, crossingStarts) = Self.crossings(of: ridges, width: width, height: height)
        // Shift the layers so that the layout's mean is the item's colour.
        let target = YCbCrImage.Sample(ImageRenderer.components(color))
        targetLuma = target.y
        let mean = self.mean(grid: meanGrid)
        luma &+= SIMD4(repeating: target.y - mean.y)
        cb &+= SIMD4(repeating: target.cb - mean.cb)
        cr &+= SIMD4(repeating: target.cr - mean.cr)
    }

    /// The light lost at `position` of `length`: none in the middle, `depth` levels at the edges, quadratically.
    static func falloff(_ position: Int, of length: Int, depth: Int) -> Int {
        let offset = 2 * position + 1 - length
        return -depth * offset * offset / max(1, length * length)
    }

    /// Which layer pixel (`x`, `y`) shows: 0 the sky, 1 far hills, 2 near hills, 3 the ground.
    func layer(x: Int, y: Int) -> Int {
        (y >= ridges[x] ? 1 : 0) + (y >= ridges[width + x] ? 1 : 0) + (y >= ridges[2 * width + x] ? 1 : 0)
    }

    /// Calls `body` with each run of columns of row `y` that shows one layer, left to right, and the layer.
    @inline(__always)
    func forEachRun(row y: Int, _ body: (_ columns: Range<Int>, _ layer: Int) -> Void) {
        var start = 0
        var layer = self.layer(x: 0, y: y)
        for index in Int(crossingStarts[y])..<Int(crossingStarts[y + 1]) {
            let column = Int(crossings[index])
            if column > start {
                body(start..<column, layer)
                start = column
            }
            layer = self.layer(x: column, y: y)
        }
        body(start..<width, layer)
    }

    /// The crossings of the skylines `ridges` with the rows: for each skyline and each pair of neighbouring columns,
    /// the rows between their two heights get the right column (counted first, then placed, then each row's put
    /// in order: a handful each).
    ///
    /// Through spans read and written without bounds checks (the rows are clamped to the height, the places
    /// counted first): with the arrays' checks this was 9 % of a 600×400 photo's planes (`perf`).
    private static func crossings(of ridges: [Int], width: Int, height: Int) -> ([Int32], [Int32]) {
        let ridges = ridges.span
        /// The rows whose layer differs between columns `x - 1` and `x` of skyline `skyline`.
        func rows(_ skyline: Int, _ x: Int) -> Range<Int> {
            let (left, right) = (ridges[unchecked: skyline * width + x - 1], ridges[unchecked: skyline * width + x])
            let top = max(0, min(left, right))
            return top..<max(top, min(height, max(left, right)))
        }
        var starts = [Int32](repeating: 0, count: height + 1)
        do {
            var counts = starts.mutableSpan
            for skyline in 0..<3 {
                for x in 1..<max(1, width) {
                    for y in rows(skyline, x) { counts[unchecked: y + 1] &+= 1 }
                }
            }
            for y in 0..<height { counts[unchecked: y + 1] &+= counts[unchecked: y] }
        }
        var crossings = [Int32](repeating: 0, count: Int(starts[height]))
        do {
            var columns = crossings.mutableSpan
            var next = starts
            var places = next.mutableSpan
            for skyline in 0..<3 {
                for x in 1..<max(1, width) {
                    for y in rows(skyline, x) {
                        columns[unchecked: Int(places[unchecked: y])] = Int32(x)
                        places[unchecked: y] &+= 1
                    }
                }
            }
            let bounds = starts.span
            for y in 0..<height {
                // Insertion sort: three runs in order, of a few columns each.
                let range = Int(bounds[unchecked: y])..<Int(bounds[unchecked: y + 1])
                for index in range.dropFirst() {
                    let value = columns[unchecked: index]
                    var place = index
                    while place > range.lowerBound, columns[unchecked: place - 1] > value {
                        columns[unchecked: place] = columns[unchecked: place - 1]
                        place -= 1
                    }
                    columns[unchecked: place] = value
                }
            }
        }
        return (crossings, starts)
    }

    /// Each layer's luma in row `y` before texture and the column's falloff.
    func rowLuma(_ y: Int) -> SIMD4<Int> {
        luma &+ slope &* y / max(1, height - 1) &+ SIMD4(repeating: Self.falloff(y, of: height, depth: falloffDepth))
    }

    /// The layout's luma and chroma (no texture, which averages out) at `grid`×`grid` points spread evenly over the
    /// image, each the sample at its pixel: what a small render of the photo shows.
    func layout(grid: Int) -> [YCbCrImage.Sample] {
        var samples: [YCbCrImage.Sample] = []
        samples.reserveCapacity(grid * grid)
        forEachLayoutSample(grid: grid) { samples.append($0) }
        return samples
    }

    /// Calls `body` with each sample of ``layout(grid:)``, row by row.
    @inline(__always)
    private func forEachLayoutSample(grid: Int, _ body: (YCbCrImage.Sample) -> Void) {
        // Column `c` is `(2c + 1) * width / (2 * grid)`: stepped to, not divided for at each of the grid's points.
        let divisor = max(1, 2 * grid)
        let first = width.quotientAndRemainder(dividingBy: divisor)
        let step = (2 * width).quotientAndRemainder(dividingBy: divisor)
        for row in 0..<grid {
            let y = (2 * row + 1) * height / divisor
            let luma = rowLuma(y)
            var (x, remainder) = first
            for _ in 0..<grid {
                let layer = layer(x: x, y: y)
                body(YCbCrImage.Sample(y: luma[layer] + Int(columnFalloff[x]), cb: cb[layer], cr: cr[layer]))
                x += step.quotient
                remainder += step.remainder
                if remainder >= divisor {
                    remainder -= divisor
                    x += 1
                }
            }
        }
    }

    /// The mean of ``layout(grid:)`` at `grid`×`grid` points (summed as they are made: an array of them first was
    /// 6 % of a 600×400 photo's planes, `perf`).
    func mean(grid: Int = 32) -> YCbCrImage.Sample {
        let count = grid * grid
        var sum = SIMD3<Int>()
        forEachLayoutSample(grid: grid) { sum &+= SIMD3($0.y, $0.cb, $0.cr) }
        // Rounded to the nearest (the sums of offsets may be negative, and `/` truncates towards 0).
        func mean(_ total: Int) -> Int {
            let (numerator, denominator) = (2 * total + count, 2 * count)
            return numerator >= 0 ? numerator / denominator : -((denominator - 1 - numerator) / denominator)
        }
        return YCbCrImage.Sample(y: mean(sum.x), cb: mean(sum.y), cr: mean(sum.z))
    }
}
