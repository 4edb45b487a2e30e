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

    @Test("an image fetched in ranges, as a client resumes a download: generated and uploaded, byte for byte; 416 past")
    func rangesOverHTTP() async throws {
        let file = try Self.noisePNG(width: 64, height: 48)
        try await withServer(configure: {
            $0.imageLatencyMinMs = 0; $0.imageLatencyMaxMs = 0
        }) { app in
            #expect(try await Self.put(port: app.port, "/items/5/image", file).status == 201)
            for target in ["/items/5/image", "/items/6/image?w=200&h=150"] {
                let whole = try await fetch(port: app.port, target)
                #expect(whole.status == 200 && whole.header("Accept-Ranges") == "bytes")
                let etag = try #require(whole.header("ETag"))
                // 1,000 bytes at a time, each asked only while the image is still the one begun with.
                var assembled: [UInt8] = []
                while assembled.count < whole.body.count {
                    let part = try await fetch(
                        port: app.port, target,
                        headers: ["Range: bytes=\(assembled.count)-\(assembled.count + 999)", "If-Range: \(etag)"])
                    #expect(part.status == 206)
                    let last = min(assembled.count + 999, whole.body.count - 1)
                    #expect(part.header("Content-Range") == "bytes \(assembled.count)-\(last)/\(whole.body.count)")
                    #expect(part.header("Content-Length") == String(last - assembled.count + 1))
                    guard part.status == 206, !part.body.isEmpty else { break }
                    assembled += part.body
                }
                #expect(assembled == whole.body, "\(target)")
                if target == "/items/5/image" { #expect(assembled == file) }
                let past = try await fetch(port: app.port, target, headers: ["Range: bytes=\(whole.body.count)-"])
                #expect(past.status == 416 && past.header("Content-Range") == "bytes */\(whole.body.count)")
            }
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

    @Test("large uploads take the budget byte by byte: heads that send nothing hold nothing, sent bytes do")
    func uploadBudget() async throws {
        let configure: @Sendable (inout Settings) -> Void = {
            $0.limits.maxUploadBytes = 100_000
            $0.limits.maxBodyBytes = 1_000
        }
        let head = "PUT /items/1/image HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: image/png\r\n"
        /// The status a new connection gets for an upload head of `length` bytes followed by `body`.
        @Sendable func status(port: Int, length: Int, body: String = "") async throws -> Int {
            try await offPool {
                let connection = try RawHTTPConnection(port: port)
                try connection.write(head + "Content-Length: \(length)\r\n\r\n" + body)
                let response = try connection.readResponse()
                if response.status == 503 {
                    #expect(response.header("Retry-After") == "1")
                    #expect(String(decoding: response.body, as: UTF8.self).contains("image-busy"))
                }
                return response.status
            }
        }
        try await withServer(configure: configure) { app throws in
            // Eight heads declaring the largest upload, sending nothing: they take nothing, so another large upload
            // still gets to the route (400: it is no image), however long they stay.
            let idle = try await offPool {
                try (0..<UploadBudget.uploadsInFlight).map { _ in
                    let connection = try RawHTTPConnection(port: app.port)
                    try connection.write(head + "Content-Length: 100000\r\n\r\n")
                    return connection
                }
            }
            try await Task.sleep(for: .milliseconds(100))
            #expect(try await status(port: app.port, length: 5_000, body: String(repeating: "x", count: 5_000)) == 400)
            // Eight that send all but 1,000 bytes of it: now the budget is held, by the bytes that came. (All but
            // one byte left 8 bytes spare: once in a full local run the budget was never full, most likely because
            // the eighth found no room while the server had yet to see the probe above close, and got a 503.)
            let holding = try await offPool {
                try (0..<UploadBudget.uploadsInFlight).map { _ in
                    let connection = try RawHTTPConnection(port: app.port)
                    try connection.write(
                        head + "Content-Length: 100000\r\n\r\n" + String(repeating: "y", count: 99_000))
                    return connection
                }
            }
            // 8 x 99,000 held: 8,000 bytes left, which an upload of 9,000 does not fit.
            try await waitUntil("the budget is full") {
                try await status(port: app.port, length: 9_000, body: String(repeating: "x", count: 9_000))
            } isDone: {
                $0 == 503
            }
            // A small upload (within http.max_body_bytes) does not count: it gets to the route.
            #expect(try await status(port: app.port, length: 5, body: "hello") == 400)
            // One leaves: what it took comes back, and a new upload's bytes are taken.
            holding[0].shutDown()
            try await waitUntil("a reservation is returned") {
                try await status(port: app.port, length: 5_000, body: String(repeating: "x", count: 5_000))
            } isDone: {
                $0 == 400
            }  // not an image: the route answered
            withExtendedLifetime((idle, holding)) {}
        }
    }
}
