import ListDomain

extension ListBenchmarks {
    /// Drawing a photo list's row image, 600x400 (the encode is the codec's: Benchmarks/images measures it).
    static func imageBenchmarks(_ harness: inout Harness) {
        harness.measure("ImageRenderer.render, 600x400 (720,000 bytes of RGB)", iterations: 2_000) { count in
            var checksum: UInt64 = 0
            for index in 0..<count {
                let spec = ImageSpec(id: UInt64(index % 10_000), width: 600, height: 400, color: 0x3F7A59)
                checksum &+= UInt64(ImageRenderer.render(spec).pixels[360_000])
            }
            return checksum
        }
        measureReusedFrame(
            &harness, "ImageRenderer.render into a reused frame, 600x400 (as an image worker draws)", probe: 360_000
        ) { spec, frame in ImageRenderer.render(spec, into: &frame) }
        measureReusedFrame(
            &harness, "ImageRenderer.renderPlanes into a reused frame, 600x400 (4:2:0 planes, as JPEGs are drawn)",
            probe: 180_000
        ) { spec, frame in ImageRenderer.renderPlanes(spec, into: &frame) }
        harness.measure(
            "PhotoPlaceholders: one BlurHash computed (a miss: a 32x32 layout and its encode)", iterations: 5_000
        ) { count in
            let table = PhotoPlaceholders(capacity: 1)
            var checksum: UInt64 = 0
            for index in 0..<count {
                checksum &+= UInt64(table.placeholder(id: UInt64(index), color: 0x3F7A59).utf8.last!)
            }
            return checksum
        }
        harness.measure("PhotoPlaceholders: a page of 20 hashes, all kept (one lock, 20 copies)", iterations: 200_000) {
            count in
            let table = PhotoPlaceholders(capacity: 1 << 16)
            var buffer = [UInt8](repeating: 0, count: 20 * PhotoPlaceholders.hashBytes)
            var checksum: UInt64 = 0
            for index in 0..<count {
                let first = UInt64(index % 50) * 20
                table.fill(&buffer, count: 20) { (first + UInt64($0), 0x3F7A59) }
                checksum &+= UInt64(buffer[27])
            }
            return checksum
        }
    }

    /// Drawing 600x400 images of changing ids into one frame, as an image worker does; `probe` is a byte read back.
    private static func measureReusedFrame(
        _ harness: inout Harness, _ name: String, probe: Int, draw: (ImageSpec, inout [UInt8]) -> Void
    ) {
        harness.measure(name, iterations: 2_000) { count in
            var checksum: UInt64 = 0
            var frame: [UInt8] = []
            for index in 0..<count {
                draw(ImageSpec(id: UInt64(index % 10_000), width: 600, height: 400, color: 0x3F7A59), &frame)
                checksum &+= UInt64(frame[probe])
            }
            return checksum
        }
    }
}
