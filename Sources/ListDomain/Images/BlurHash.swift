// libc's math (`cos`, `pow`) only, as LatencyDistribution.swift has it: ListDomain imports no Foundation.
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A BlurHash (<https://blurha.sh>, Wolt's format): an image's few lowest cosine components, in 28 ASCII characters
/// for the 4×3 components items carry, that a client decodes into a blurred placeholder before the photo arrives.
///
/// Written by hand rather than through a library: the format is a page of arithmetic (no Debian package ships an
/// encoder), and the encode runs on every upload and every generated photo's small render, so it is written for
/// that size: the basis separable (a row's four horizontal sums, then the three vertical ones), the sRGB-to-linear
/// curve a table. The results are those of Wolt's C encoder (`encode.c`), which a test checks against the Python
/// package's encoder and decoder.
public enum BlurHash {
    /// Horizontal and vertical components of every hash ListServer makes.
    public static let componentsX = 4
    public static let componentsY = 3
    /// The length of such a hash: the size flag, the largest AC value, the DC (4) and two a component.
    public static let length = 2 + 4 + 2 * (componentsX * componentsY - 1)

    /// The hash of `width`×`height` pixels, three bytes each (red, green, blue) row after row.
    public static func encode(rgb pixels: [UInt8], width: Int, height: Int) -> String {
        precondition(width > 0 && height > 0 && pixels.count == width * height * 3, "not an RGB image")
        // The placeholders' 16×16 renders use the tables made once (computing them cost more than the sums).
        let cosX = width == 16 ? basis16.x : basis(componentsX, over: width)
        let cosY = height == 16 ? basis16.y : basis(componentsY, over: height)
        var factors = [SIMD4<Float>](repeating: .zero, count: componentsX * componentsY)
        let linear = linearTable.span
        let pixels = pixels.span
        for y in 0..<height {
            // The row's four horizontal sums (``componentsX``), then each added to the vertical components.
            var row = (SIMD4<Float>.zero, SIMD4<Float>.zero, SIMD4<Float>.zero, SIMD4<Float>.zero)
            for x in 0..<width {
                let at = 3 * (y * width + x)
                let pixel = SIMD4(
                    linear[Int(pixels[at])], linear[Int(pixels[at + 1])], linear[Int(pixels[at + 2])], 0)
                row.0 += pixel
                row.1 += cosX[width + x] * pixel
                row.2 += cosX[2 * width + x] * pixel
                row.3 += cosX[3 * width + x] * pixel
            }
            for j in 0..<componentsY {
                let weight = cosY[j * height + y]
                factors[j * componentsX] += weight * row.0
                factors[j * componentsX + 1] += weight * row.1
                factors[j * componentsX + 2] += weight * row.2
                factors[j * componentsX + 3] += weight * row.3
            }
        }
        let scale = 1 / Float(width * height)
        for index in factors.indices { factors[index] *= (index == 0 ? 1 : 2) * scale }
        return encode(factors)
    }

    /// The hash of `image`, from its pixels averaged into at most 32×32 boxes (an upload's whole file is decoded to
    /// be checked; the boxes keep its hash a few milliseconds whatever its size).
    public static func encode(_ image: RGBImage) -> String {
        let side = 32
        guard image.width > side || image.height > side else {
            return encode(rgb: image.pixels, width: image.width, height: image.height)
        }
        let width = min(side, image.width)
        let height = min(side, image.height)
        var sums = [UInt32](repeating: 0, count: width * height * 3)
        var counts = [UInt32](repeating: 0, count: width * height)
        let pixels = image.pixels.span
        for y in 0..<image.height {
            let row = y * height / image.height * width
            for x in 0..<image.width {
                let box = row + x * width / image.width
                let at = 3 * (y * image.width + x)
                sums[3 * box] &+= UInt32(pixels[at])
                sums[3 * box + 1] &+= UInt32(pixels[at + 1])
                sums[3 * box + 2] &+= UInt32(pixels[at + 2])
                counts[box] &+= 1
            }
        }
        let averaged = sums.indices.map { index in
            let count = max(1, counts[index / 3])
            return UInt8((sums[index] + count / 2) / count)
        }
        return encode(rgb: averaged, width: width, height: height)
    }

    /// The hash of the components `factors` (linear RGB, the DC first, then row by row).
    static func encode(_ factors: [SIMD4<Float>]) -> String {
        var hash: [UInt8] = []
        hash.reserveCapacity(length)
        append((componentsX - 1) + (componentsY - 1) * 9, digits: 1, to: &hash)
        let largest = factors.dropFirst().reduce(Float(0)) { max($0, abs($1.x), abs($1.y), abs($1.z)) }
        let quantisedLargest = Int(max(0, min(82, (largest * 166 - 0.5).rounded(.down))))
        let maximum = Float(quantisedLargest + 1) / 166
        append(quantisedLargest, digits: 1, to: &hash)
        let dc = factors[0]
        append(sRGB(dc.x) << 16 | sRGB(dc.y) << 8 | sRGB(dc.z), digits: 4, to: &hash)
        for ac in factors.dropFirst() {
            func quantise(_ value: Float) -> Int {
                let root = (abs(value / maximum)).squareRoot() * (value < 0 ? -1 : 1)
                return Int(max(0, min(18, (root * 9 + 9.5).rounded(.down))))
            }
            append(quantise(ac.x) * 19 * 19 + quantise(ac.y) * 19 + quantise(ac.z), digits: 2, to: &hash)
        }
        return String(decoding: hash, as: UTF8.self)
    }

    /// The 83 digits, in their order.
    static let digits = Array(
        "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz#$%*+,-.:;=?@[]^_{|}~".utf8)

    private static func append(_ value: Int, digits count: Int, to hash: inout [UInt8]) {
        var divisor = 1
        for _ in 1..<max(1, count) { divisor *= 83 }
        for _ in 0..<count {
            hash.append(digits[(value / divisor) % 83])
            divisor /= 83
        }
    }

    /// `cos(π·i·x / n)` for `i` in `0..<components`, at `i * n + x`.
    private static func basis(_ components: Int, over n: Int) -> [Float] {
        (0..<(components * n)).map { index in
            Float(cos(Double.pi * Double(index / n) * Double(index % n) / Double(n)))
        }
    }

    private static let basis16 = (x: basis(componentsX, over: 16), y: basis(componentsY, over: 16))

    /// sRGB's transfer curve undone, for each byte value.
    static let linearTable: [Float] = (0..<256).map { value in
        let v = Float(value) / 255
        return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
    }

    /// A linear value back in sRGB's bytes, rounded.
    static func sRGB(_ value: Float) -> Int {
        let v = max(0, min(1, value))
        return Int(v <= 0.003_130_8 ? v * 12.92 * 255 + 0.5 : (1.055 * pow(v, 1 / 2.4) - 0.055) * 255 + 0.5)
    }
}
