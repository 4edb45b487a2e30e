import ListDomain
import Testing

@testable import ListServer

/// `PUT` and `DELETE /items/<id>/image` on request values, with the real codecs and a store the test holds: what is
/// stored, what `GET` then serves (decoded and compared pixel by pixel), and every refusal.
@Suite("Router: uploads")
struct RouterUploadTests {
    let store = MemoryListStore()
    let router: Router
    let codecs: ImageCodecs

    init() throws {
        router = RouterFixture.router(store: store)
        codecs = try ImageCodecs()
    }

    /// A 200x100 image, red on the left half and blue on the right, as `format`.
    func halves(_ format: ImageFormat) throws -> [UInt8] {
        var pixels: [UInt8] = []
        for _ in 0..<100 {
            for x in 0..<200 { pixels += x < 100 ? [220, 30, 30] : [30, 30, 220] }
        }
        return try codecs.encode(RGBImage(width: 200, height: 100, pixels: pixels), as: format)
    }

    /// A 200x100 PNG of three upright stripes: red (50 pixels), green (the middle 100), blue (50).
    func stripes() throws -> [UInt8] {
        var pixels: [UInt8] = []
        for _ in 0..<100 {
            for x in 0..<200 { pixels += x < 50 ? [220, 30, 30] : x < 150 ? [30, 200, 30] : [30, 30, 220] }
        }
        return try codecs.encode(RGBImage(width: 200, height: 100, pixels: pixels), as: .png)
    }

    func put(
        _ target: String, _ bytes: [UInt8], type: String? = "image/png", headers: HTTPHeaders = [:]
    ) async -> HTTPResponse {
        var fields = headers
        if let type { fields.add("Content-Type", type) }
        return await answer(target, method: .put, headers: fields, body: bytes)
    }

    func get(_ target: String, headers: HTTPHeaders = [:]) async -> HTTPResponse {
        await answer(target, headers: headers)
    }

    /// Answers `method target`, at once or deferred.
    func answer(
        _ target: String, method: HTTPMethod = .get, headers: HTTPHeaders = [:], body: [UInt8] = []
    ) async -> HTTPResponse {
        await router.answer(HTTPRequest(method: method, target: target, headers: headers, body: body))
    }

    /// Expects a problem of `type` with `status`; returns its detail.
    @discardableResult
    func expectProblem(
        _ response: HTTPResponse, _ status: Int, _ type: String, sourceLocation: SourceLocation = #_sourceLocation
    ) -> String {
        #expect(response.status == status, sourceLocation: sourceLocation)
        #expect(
            response.jsonObject?["type"] as? String == "urn:listserver:problem:" + type, sourceLocation: sourceLocation)
        return response.jsonObject?["detail"] as? String ?? ""
    }

    /// Whether a pixel is close to a colour (lossy formats move colours a little).
    func near(_ pixel: (red: UInt8, green: UInt8, blue: UInt8), _ color: (Int, Int, Int), by slack: Int = 24) -> Bool {
        abs(Int(pixel.red) - color.0) <= slack && abs(Int(pixel.green) - color.1) <= slack
            && abs(Int(pixel.blue) - color.2) <= slack
    }

    @Test("a first upload is 201 with Location and its ETag; GET serves the same bytes, same ETag, and 304 on it")
    func roundTrip() async throws {
        let file = try halves(.png)
        let stored = await put("/items/5/image", file)
        #expect(stored.status == 201)
        #expect(stored.headers["Location"] == "/items/5/image")
        let json = try #require(stored.jsonObject)
        #expect(json["content_type"] as? String == "image/png")
        #expect(json["width"] as? Int == 200 && json["height"] as? Int == 100)
        #expect(json["bytes"] as? Int == file.count)
        let tag = try #require(stored.headers["ETag"])

        let served = await get("/items/5/image")
        #expect(served.status == 200)
        #expect(served.body == file)
        #expect(served.headers["Content-Type"] == "image/png")
        #expect(served.headers["ETag"] == tag)
        #expect(served.headers["Content-Disposition"] == "inline; filename=\"5-200x100.png\"")
        #expect(await get("/items/5/image", headers: ["If-None-Match": tag]).status == 304)

        // The item now has the upload's size, and the feed says it changed.
        let item = router.respond("/items/5").jsonObject
        #expect(item?["width"] as? Int == 200 && item?["height"] as? Int == 100)
        let changes = await answer("/items/changes?since=0").jsonObject?["changes"] as? [[String: Any]]
        #expect(changes?.last?["kind"] as? String == "updated")
    }

    @Test("w and h cover and crop around the centre; one side keeps the shape; another format re-encodes")
    func scaled() async throws {
        _ = await put("/items/6/image", try stripes())
        // 200x100 into a square: the centre 100x100, all green; squeezed, the red and blue would show at the sides.
        let square = try codecs.decode((await get("/items/6/image.png?w=80&h=80")).body, as: .png)
        #expect(square.width == 80 && square.height == 80)
        for x in [1, 40, 78] { #expect(near(square.pixel(x: x, y: 40), (30, 200, 30)), "x \(x)") }
        // Only w: the upload's shape, 2:1, all three stripes.
        let narrow = await get("/items/6/image?w=50", headers: ["Accept": "image/webp"])
        #expect(narrow.headers["Content-Type"] == "image/png")  // its own format, not negotiated
        #expect(!narrow.vary.contains(.accept))
        let decoded = try codecs.decode(narrow.body, as: .png)
        #expect(decoded.width == 50 && decoded.height == 25)
        #expect(near(decoded.pixel(x: 5, y: 12), (220, 30, 30)))
        #expect(near(decoded.pixel(x: 25, y: 12), (30, 200, 30)))
        #expect(near(decoded.pixel(x: 45, y: 12), (30, 30, 220)))
        // JPEG, grayscale: every pixel grey.
        let gray = try codecs.decode((await get("/items/6/image.jpg?grayscale")).body, as: .jpeg)
        #expect(gray.width == 200 && gray.height == 100)
        let pixel = gray.pixel(x: 20, y: 50)
        #expect(abs(Int(pixel.red) - Int(pixel.blue)) <= 3 && abs(Int(pixel.red) - Int(pixel.green)) <= 3)
    }

    @Test("Picsum's /id/<id>/<w>/<h> serves the upload too, and /id/<id>/info its size")
    func picsum() async throws {
        _ = await put("/items/16/image", try stripes())
        let served = await get("/id/16/100/50.png")
        #expect(served.status == 200)
        let decoded = try codecs.decode(served.body, as: .png)
        #expect(decoded.width == 100 && decoded.height == 50)
        #expect(near(decoded.pixel(x: 10, y: 25), (220, 30, 30)))
        #expect(near(decoded.pixel(x: 50, y: 25), (30, 200, 30)))
        let info = router.respond("/id/16/info").jsonObject
        #expect(info?["width"] as? Int == 200 && info?["height"] as? Int == 100)
    }

    @Test("a replacement is 200 and GET serves the new file at once; DELETE returns to the generated image")
    func replaceAndRemove() async throws {
        let first = try halves(.png)
        let second = try halves(.webp)
        _ = await put("/items/7/image", first)
        #expect(await get("/items/7/image").body == first)  // now cached
        let replaced = await put("/items/7/image", second, type: "image/webp")
        #expect(replaced.status == 200)
        #expect(replaced.headers["Location"] == nil)
        let served = await get("/items/7/image")
        #expect(served.body == second)
        #expect(served.headers["Content-Type"] == "image/webp")
        #expect(store.imageCount == 1)

        let removed = await answer("/items/7/image", method: .delete)
        #expect(removed.status == 204)
        #expect(store.imageCount == 0)
        let generated = await get("/items/7/image.png?w=60&h=40")
        let item = try #require(RouterFixture.router().respond("/items/7").jsonObject)
        let spec = ImageSpec(id: 7, width: 60, height: 40, color: Item.rgb(of: item["color"] as? String ?? ""))
        #expect(try codecs.decode(generated.body, as: .png) == ImageRenderer.render(spec))
        let after = router.respond("/items/7").jsonObject
        #expect(after?["width"] as? Int == item["width"] as? Int && after?["height"] as? Int == item["height"] as? Int)
        // Nothing uploaded: still 204, and nothing written (no change in the feed).
        let before = await changeCount()
        #expect(await answer("/items/8/image", method: .delete).status == 204)
        #expect(await changeCount() == before)
    }

    func changeCount() async -> Int {
        let changes = await answer("/items/changes?since=0").jsonObject?["changes"] as? [[String: Any]]
        return changes?.count ?? -1
    }

    @Test("hostile bodies are refused cleanly and store nothing: truncated, bombs, wrong type, empty, not an image")
    func hostile() async throws {
        let jpeg = try halves(.jpeg)
        let truncated = await put("/items/9/image", Array(jpeg.prefix(jpeg.count * 2 / 3)), type: "image/jpeg")
        #expect(expectProblem(truncated, 400, "invalid-image").contains("does not decode"))
        // A PNG whose header declares 100,000 x 100,000 pixels (a few hundred bytes): refused from its header.
        let bomb = await put("/items/9/image", Self.pngDeclaring(width: 100_000, height: 100_000))
        #expect(expectProblem(bomb, 400, "invalid-image").contains("100000x100000"))
        let wide = await put("/items/9/image", Self.pngDeclaring(width: 5001, height: 10))
        #expect(expectProblem(wide, 400, "invalid-image").contains("5001x10"))
        let mislabelled = await put("/items/9/image", jpeg, type: "image/png")
        #expect(expectProblem(mislabelled, 415, "unsupported-media-type").contains("JPEG"))
        expectProblem(await put("/items/9/image", jpeg, type: nil), 415, "unsupported-media-type")
        let octets = await put("/items/9/image", jpeg, type: "application/octet-stream")
        expectProblem(octets, 415, "unsupported-media-type")
        expectProblem(await put("/items/9/image", []), 400, "invalid-image")
        expectProblem(await put("/items/9/image", Array("GIF89a not ours".utf8)), 400, "invalid-image")
        // A PNG with a damaged chunk (one byte of its pixels flipped): libspng checks the CRC.
        var damaged = try halves(.png)
        damaged[damaged.count - 20] ^= 0xFF
        expectProblem(await put("/items/9/image", damaged), 400, "invalid-image")
        #expect(store.imageCount == 0)
        #expect(await get("/items/9/image").headers["Content-Type"] == "image/jpeg")  // still the generated one
    }

    @Test("If-Match takes the image's ETag in any format; If-None-Match: * uploads once; both 412 otherwise")
    func conditions() async throws {
        let file = try halves(.png)
        // No upload yet: If-Match: * fails, If-None-Match: * passes; the generated image's WebP tag matches.
        expectProblem(await put("/items/10/image", file, headers: ["If-Match": "*"]), 412, "precondition-failed")
        let generatedTag = try #require(await get("/items/10/image.webp").headers["ETag"])
        let first = await put("/items/10/image", file, headers: ["If-Match": generatedTag])
        #expect(first.status == 201)
        let tag = try #require(first.headers["ETag"])
        let again = await put("/items/10/image", file, headers: ["If-None-Match": "*"])
        #expect(expectProblem(again, 412, "precondition-failed").contains("has an upload"))
        #expect(again.headers["ETag"] == tag)
        expectProblem(
            await put("/items/10/image", file, headers: ["If-Match": generatedTag]), 412, "precondition-failed")
        #expect(await put("/items/10/image", file, headers: ["If-Match": tag]).status == 200)
        #expect(await put("/items/11/image", file, headers: ["If-None-Match": "*"]).status == 201)
        let stale = await answer("/items/10/image", method: .delete, headers: ["If-Match": generatedTag])
        expectProblem(stale, 412, "precondition-failed")
        #expect(await answer("/items/10/image", method: .delete, headers: ["If-Match": tag]).status == 204)
    }

    @Test("Idempotency-Key: a retry gets the first answer; the same key with another file is 422")
    func idempotency() async throws {
        let file = try halves(.png)
        let key: HTTPHeaders = ["Idempotency-Key": "upload-1"]
        let first = await put("/items/12/image", file, headers: key)
        let retry = await put("/items/12/image", file, headers: key)
        #expect(first.status == 201 && retry.status == 201)
        #expect(retry.headers["Idempotent-Replayed"] == "true")
        #expect(retry.headers["ETag"] == first.headers["ETag"])
        #expect(retry.body == first.body)
        expectProblem(
            await put("/items/12/image", try halves(.webp), type: "image/webp", headers: key), 422,
            "idempotency-key-reused")
        let changes = await answer("/items/changes?since=0").jsonObject?["changes"] as? [[String: Any]]
        #expect(changes?.count == 1)
    }

    @Test("uploads are per dataset; a reset, a dataset drop and deleting the item remove them")
    func lifecycle() async throws {
        let file = try halves(.png)
        let dataset: HTTPHeaders = ["X-Dataset": "ui-test-7"]
        #expect(await put("/items/13/image", file, headers: dataset).status == 201)
        #expect(await get("/items/13/image", headers: dataset).body == file)
        #expect(await get("/items/13/image").headers["Content-Type"] == "image/jpeg")
        // What an <img> asks for: the dataset in the query.
        #expect(await get("/items/13/image?dataset=ui-test-7").body == file)
        #expect(await get("/items/13/image.png?dataset=ui-test-7", headers: ["X-Dataset": "other"]).status == 400)
        #expect(await answer("/admin/datasets/ui-test-7", method: .delete).status == 204)
        #expect(await get("/items/13/image", headers: dataset).headers["Content-Type"] == "image/jpeg")
        #expect(store.imageCount == 0)

        _ = await put("/items/14/image", file)
        #expect(await answer("/items/14", method: .delete).status == 204)
        #expect(store.imageCount == 0)
        expectProblem(await put("/items/14/image", file), 404, "not-found")

        _ = await put("/items/15/image", file)
        let reset = await answer(
            "/admin/reset", method: .post, headers: ["Content-Type": "application/json"], body: Array("{}".utf8))
        #expect(reset.status == 200)
        #expect(store.imageCount == 0)
        #expect(await get("/items/15/image").headers["Content-Type"] == "image/jpeg")
    }

    /// A PNG signature and an IHDR chunk declaring `width`×`height`, then a tiny IDAT and IEND: what a
    /// decompression bomb's header looks like.
    static func pngDeclaring(width: UInt32, height: UInt32) -> [UInt8] {
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            let body = Array(type.utf8) + data
            return bigEndian(UInt32(data.count)) + body + bigEndian(crc32(body))
        }
        let header = bigEndian(width) + bigEndian(height) + [8, 2, 0, 0, 0]
        let idat: [UInt8] = [0x78, 0x9C, 0x63, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01]
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", header) + chunk("IDAT", idat)
            + chunk("IEND", [])
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}

extension Item {
    /// The colour `"#rrggbb"` as 0xRRGGBB.
    static func rgb(of color: String) -> UInt32 {
        Item(id: 0, label: "", author: "", width: 1, height: 1, color: color, blurHash: nil, likes: 0).rgb
    }
}
