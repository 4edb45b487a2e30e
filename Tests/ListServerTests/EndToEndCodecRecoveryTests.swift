import Foundation
import ListDomain
import Testing

@testable import ListServer

/// A codec error must not poison the worker that met it: junk uploaded as an image (a UI test that checks "a broken
/// file shows an error") once left that worker's TurboJPEG handle failed, and every later JPEG it decoded or encoded
/// failed with it ("Unsupported marker type 0x3c") until a restart.
@Suite("End to end: codec errors leave the image workers healthy")
struct EndToEndCodecRecoveryTests {
    /// A real JPEG of `width`x`height` pixels of a gradient.
    static func jpeg(width: Int = 64, height: Int = 48) throws -> [UInt8] {
        var pixels: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width { pixels += [UInt8(x * 4 % 256), UInt8(y * 5 % 256), 128] }
        }
        return try ImageCodecs().encode(RGBImage(width: width, height: height, pixels: pixels), as: .jpeg)
    }

    /// A JPEG whose frame header (SOF0) declares `width`x`height`.
    static func withFrameSize(_ file: [UInt8], width: UInt16, height: UInt16) -> [UInt8] {
        var bytes = file
        for index in 0..<(bytes.count - 9) where bytes[index] == 0xFF && bytes[index + 1] == 0xC0 {
            bytes[index + 5] = UInt8(height >> 8)
            bytes[index + 6] = UInt8(height & 0xFF)
            bytes[index + 7] = UInt8(width >> 8)
            bytes[index + 8] = UInt8(width & 0xFF)
            break
        }
        return bytes
    }

    /// Every kind of junk a client can upload: magic bytes then HTML, truncated files, bad markers, another format's
    /// bytes under a JPEG type, nothing at all, and frames that declare absurd sizes.
    static func junk() throws -> [(name: String, bytes: [UInt8], type: String)] {
        let good = try jpeg()
        let png = try ImageCodecs().encode(
            RGBImage(width: 8, height: 8, pixels: [UInt8](repeating: 9, count: 192)), as: .png)
        var badMarker = good
        badMarker[2...3] = [0xFF, 0x3C]  // "<" as a marker code
        var corruptScan = good
        for index in stride(from: good.count / 2, to: good.count - 2, by: 7) { corruptScan[index] = 0xFF }
        return [
            (
                "magic then HTML", [0xFF, 0xD8, 0xFF] + Array("<html><body>not a photo</body></html>".utf8),
                "image/jpeg"
            ),
            ("magic alone", [0xFF, 0xD8, 0xFF], "image/jpeg"),
            ("truncated in the header", Array(good.prefix(40)), "image/jpeg"),
            ("truncated in the scan", Array(good.prefix(good.count * 2 / 3)), "image/jpeg"),
            ("a bad marker", badMarker, "image/jpeg"),
            ("a corrupt scan", corruptScan, "image/jpeg"),
            ("PNG bytes as JPEG", png, "image/jpeg"),
            ("JPEG bytes as PNG", good, "image/png"),
            ("JPEG bytes as WebP", good, "image/webp"),
            ("empty", [], "image/jpeg"),
            ("a frame of 65535x65535", withFrameSize(good, width: 65_535, height: 65_535), "image/jpeg"),
            ("a frame of 0x0", withFrameSize(good, width: 0, height: 0), "image/jpeg"),
            (
                "PNG magic then junk", [0x89] + Array("PNG\r\n\u{1A}\n".utf8) + Array(repeating: 0x41, count: 100),
                "image/png"
            ),
            (
                "RIFF then junk", Array("RIFF\u{10}\0\0\0WEBPVP8 ".utf8) + Array(repeating: 0x42, count: 40),
                "image/webp"
            ),
        ]
    }

    @Test(
        "one worker takes every kind of junk, answers each 400 or 415, then still does every valid JPEG, PNG and WebP job"
    )
    func junkThenValid() async throws {
        let configure: @Sendable (inout Settings) -> Void = {
            $0.imageWorkers = 1  // every job on the worker the junk went to
            $0.imageLatencyMinMs = 0
            $0.imageLatencyMaxMs = 0
        }
        let good = try Self.jpeg()
        try await withServer(configure: configure) { app in
            // A stored JPEG first, to be resized after the junk.
            #expect(
                try await EndToEndUploadTests.put(port: app.port, "/items/2/image", good, type: "image/jpeg").status
                    == 201)
            for round in 0..<2 {
                for (index, junk) in try Self.junk().enumerated() {
                    let response = try await EndToEndUploadTests.put(
                        port: app.port, "/items/\(100 + index)/image", junk.bytes, type: junk.type)
                    // 415 when the bytes are another format than the type says, 400 when they are no image at all.
                    #expect([400, 415].contains(response.status), "round \(round), \(junk.name): \(response.text)")
                    #expect(response.header("Content-Type") == "application/problem+json", "\(junk.name)")
                }
            }
            // A valid upload of each format is stored.
            #expect(
                try await EndToEndUploadTests.put(port: app.port, "/items/3/image", good, type: "image/jpeg").status
                    == 201)
            let png = try EndToEndUploadTests.noisePNG(width: 20, height: 10)
            #expect(try await EndToEndUploadTests.put(port: app.port, "/items/4/image", png).status == 201)
            // The stored JPEG resized and converted: decoded and encoded again by the same worker.
            for (target, format) in [
                ("/items/2/image.jpg?w=32", ImageFormat.jpeg), ("/items/2/image.png?w=16", .png),
                ("/items/2/image.webp?w=16", .webp), ("/items/3/image.jpg?w=10", .jpeg), ("/items/4/image.jpg", .jpeg),
                ("/items/7/image.jpg?w=40", .jpeg), ("/items/8/image.png?w=40", .png),
                ("/items/9/image.webp?w=40", .webp),
            ] {
                let response = try await fetch(port: app.port, target)
                #expect(response.status == 200, "\(target): \(response.text.prefix(200))")
                #expect(try ImageCodecs().decode(response.body, as: format).width > 0, "\(target)")
            }
        }
    }
}
