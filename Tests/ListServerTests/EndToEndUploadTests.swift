import Foundation
import ListDomain
import Testing

@testable import ListServer

/// Uploads over real sockets to a real server on a real file: the upload limit at the head, and an upload that
/// outlives the server.
@Suite("End to end: uploads")
struct EndToEndUploadTests {
    /// A PNG of noise (so it does not compress): `width`x`height` pixels, about 3 bytes each.
    static func noisePNG(width: Int, height: Int) throws -> [UInt8] {
        var generator = SplitMix64(seed: 7)
        let pixels = (0..<width * height * 3).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        return try ImageCodecs().encode(RGBImage(width: width, height: height, pixels: pixels), as: .png)
    }

    /// `PUT target` with `bytes` on a fresh connection.
    static func put(port: Int, _ target: String, _ bytes: [UInt8], type: String = "image/png") async throws
        -> RawHTTPConnection.Response
    {
        try await offPool {
            let connection = try RawHTTPConnection(port: port)
            try connection.write(
                "PUT \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: \(type)\r\n"
                    + "Content-Length: \(bytes.count)\r\n\r\n")
            try connection.write(bytes: bytes)
            return try connection.readResponse()
        }
    }

    @Test("a 1 MiB upload passes the 64 KiB JSON limit, survives a restart byte for byte; one over its limit is 413")
    func uploadOutlivesTheServer() async throws {
        let file = try Self.noisePNG(width: 640, height: 560)
        #expect(file.count > 1 << 20)
        try await withTemporaryFolder { folder in
            let path = folder + "/listserver.sqlite"
            let configure: @Sendable (inout Settings) -> Void = {
                $0.dataPath = path
                $0.imageLatencyMinMs = 0
                $0.imageLatencyMaxMs = 0
                $0.limits.maxUploadBytes = 2 << 20
            }
            try await withServer(configure: configure) { app throws in
                let stored = try await Self.put(port: app.port, "/items/3/image", file)
                #expect(stored.status == 201)
                // One byte over the limit: refused from the head, before the body is read.
                let refused = try await offPool {
                    let connection = try RawHTTPConnection(port: app.port)
                    try connection.write(
                        "PUT /items/4/image HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: image/png\r\n"
                            + "Content-Length: \((2 << 20) + 1)\r\n\r\n")
                    return try connection.readResponse()
                }
                #expect(refused.status == 413)
                // A JSON write of 1 MiB is still held to http.max_body_bytes.
                let label = String(repeating: "x", count: 1 << 20)
                let json = try await send(port: app.port, "POST", "/items", json: "{\"label\":\"\(label)\"}")
                #expect(json.status == 413)
            }
            try await withServer(configure: configure) { app in
                let served = try await fetch(port: app.port, "/items/3/image")
                #expect(served.status == 200)
                #expect(served.body == file)
                #expect(served.header("Content-Type") == "image/png")
                let item = try await fetch(port: app.port, "/items/3").jsonObject()
                #expect(item["width"] as? Int == 640 && item["height"] as? Int == 560)
                let thumbnail = try await fetch(port: app.port, "/items/3/image.jpg?w=64")
                let decoded = try ImageCodecs().decode(thumbnail.body, as: .jpeg)
                #expect(decoded.width == 64 && decoded.height == 56)
            }
        }
    }
}
