/// The three noise textures every generated photo samples: 256×256 values in -127...127 each, tiling seamlessly,
/// made once from fixed seeds in integer arithmetic (the same values on every machine), each row held twice
/// (``pitch``).
///
/// A photo's texture is what gives JPEG the work a real photo does (about 31 KB for 600×400 rather than 14 KB for a
/// gradient): ``smooth`` for clouds and the lie of the land (features of 8–64 pixels), ``detail`` for rock and
/// grass (2–8 pixels), ``grain`` for sensor noise (one pixel). Sampling a table per pixel costs a load; computing
/// fractal noise per pixel cost octaves of interpolation each (the render budget is a fraction of the encode).
enum PhotoTextures {
    /// One side of each texture, a power of two (indices wrap with `& mask`).
    static let side = 256
    static let mask = side - 1
    /// The distance between rows in a table: each row is held twice, one copy after the other, so that `side`
    /// values from any column of a row are contiguous (value (x, y) at `y * pitch + x` and `y * pitch + side + x`).
    static let pitch = 2 * side

    /// Value noise of periods 64, 32, 16 and 8 pixels, weighted 8:4:2:1.
    static let smooth = doubled(valueNoise(seed: 0x5EED_0001, octaves: [(64, 8), (32, 4), (16, 2), (8, 1)]))
    /// Value noise of periods 8, 4 and 2 pixels, weighted 4:2:1.
    static let detail = doubled(valueNoise(seed: 0x5EED_0002, octaves: [(8, 4), (4, 2), (2, 1)]))
    /// White noise.
    static let grain: [Int16] = {
        var generator = SplitMix64(seed: 0x5EED_0003)
        return doubled(centred((0..<(side * side)).map { _ in Int(generator.next() % 2001) - 1000 }))
    }()

    /// Octaves of value noise on the 256×256 torus: a lattice of random values every `period` pixels, eased
    /// between (smoothstep, in 1/256 steps), summed with their weights, then centred and scaled to ±127.
    private static func valueNoise(seed: UInt64, octaves: [(period: Int, weight: Int)]) -> [Int16] {
        var sum = [Int](repeating: 0, count: side * side)
        for (octave, (period, weight)) in octaves.enumerated() {
            let cells = side / period
            var generator = SplitMix64(seed: seed &+ UInt64(octave) &* 0x1_0000)
            let lattice = (0..<(cells * cells)).map { _ in Int(generator.next() % 2001) - 1000 }
            // The eased fraction (0...256) of each pixel's position within its cell.
            let ease = (0..<period).map { step -> Int in
                let t = step * 256 / period
                return t * t * (768 - 2 * t) / 65_536
            }
            for y in 0..<side {
                let (row0, row1) = (y / period, (y / period + 1) % cells)
                let ty = ease[y % period]
                for x in 0..<side {
                    let (column0, column1) = (x / period, (x / period + 1) % cells)
                    let tx = ease[x % period]
                    let top = lattice[row0 * cells + column0] * (256 - tx) + lattice[row0 * cells + column1] * tx
                    let bottom = lattice[row1 * cells + column0] * (256 - tx) + lattice[row1 * cells + column1] * tx
                    sum[y * side + x] += weight * ((top * (256 - ty) + bottom * ty) >> 16)
                }
            }
        }
        return centred(sum)
    }

    /// The rows of a `side`×`side` table each held twice (``pitch``).
    private static func doubled(_ table: [Int16]) -> [Int16] {
        (0..<side).flatMap { row in
            let values = table[(row * side)..<((row + 1) * side)]
            return Array(values) + values
        }
    }

    /// `values` less their mean, scaled so the largest magnitude is 127, each held in 16 bits: the lanes a photo
    /// is drawn in, so the drawing loads them as they are (from bytes it widened each, 10 % of the loop).
    private static func centred(_ values: [Int]) -> [Int16] {
        let mean = values.reduce(0, +) / values.count
        let largest = max(1, values.map { abs($0 - mean) }.max() ?? 1)
        return values.map { Int16(($0 - mean) * 127 / largest) }
    }
}
