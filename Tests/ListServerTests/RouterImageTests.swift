import ListDomain
import Testing

@testable import ListServer

/// An encoder that is always busy, as a full worker queue is.
private struct BusyEncoder: ImageEncoding {
    nonisolated(nonsending) func encode(_ spec: ImageSpec, as format: ImageFormat, from source: [UInt8]?)
        async throws(ImageFailure) -> EncodedImage
    {
        throw .busy
    }

    nonisolated(nonsending) func inspectUpload(_ bytes: [UInt8], as format: ImageFormat) async throws(UploadRejection)
        -> ImageUpload
    {
        throw .busy
    }
}

/// `GET /items/<id>/image…` on router values, with the real codecs behind it; images are decoded and compared with
/// what ``ImageRenderer`` draws for the same spec.
@Suite("Router: images")
struct RouterImageTests {
    let router = RouterFixture.router()
    let codecs: ImageCodecs

    init() throws {
        codecs = try ImageCodecs()
    }

    /// The answer to `GET target`: deferred for a miss, at once for a cached image.
    func image(_ target: String, headers: HTTPHeaders = [:]) async -> HTTPResponse {
        await router.answer(HTTPRequest(method: .get, target: target, headers: headers))
    }

    /// The item of the fixture's catalog (seed 42).
    func item(_ id: UInt64) -> Item { Catalog(seed: 42, count: 10_000).item(id)! }

    /// The mean absolute difference per channel between two images of the same size.
    func meanDifference(_ a: RGBImage, _ b: RGBImage) -> Double {
        let total = zip(a.pixels, b.pixels).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }
        return Double(total) / Double(a.pixels.count)
    }

    @Test("a PNG decodes to exactly the pixels drawn for the item: its colour, its id, the size asked for")
    func pngIsExact() async throws {
        let response = await image("/items/42/image.png?w=90&h=60")
        #expect(response.status == 200)
        #expect(response.headers["Content-Type"] == "image/png")
        #expect(response.headers["Content-Disposition"] == #"inline; filename="42-90x60.png""#)
        #expect(!response.vary.contains(.accept))
        let decoded = try codecs.decode(response.body, as: .png)
        let drawn = ImageRenderer.render(ImageSpec(id: 42, width: 90, height: 60, color: item(42).rgb))
        #expect(decoded == drawn)
    }

    @Test("JPEG (the default) and WebP decode close to the drawn pixels, at the size asked for")
    func lossyFormatsAreClose() async throws {
        let drawn = ImageRenderer.render(ImageSpec(id: 7, width: 120, height: 80, color: item(7).rgb))
        let requests: [(String, ImageFormat)] = [
            ("/items/7/image?w=120&h=80", .jpeg), ("/items/7/image.webp?w=120&h=80", .webp),
        ]
        for (target, format) in requests {
            let response = await image(target)
            #expect(response.status == 200)
            #expect(response.headers["Content-Type"] == MediaType.image(format))
            let decoded = try codecs.decode(response.body, as: format)
            #expect(decoded.width == 120 && decoded.height == 80)
            #expect(meanDifference(decoded, drawn) < 6, "\(format)")
        }
    }

    @Test("a JPEG is TurboJPEG's encode of the drawn planes, and decodes to the drawn RGB pixels within JPEG's loss")
    func jpegIsTheEncodeOfThePlanes() async throws {
        for (id, width, height, grayscale) in [
            (7, 160, 96, false), (7, 120, 80, false), (42, 601, 401, false), (9, 33, 17, true),
        ] {
            let target = "/items/\(id)/image?w=\(width)&h=\(height)" + (grayscale ? "&grayscale" : "")
            let spec = ImageSpec(
                id: UInt64(id), width: width, height: height, color: item(UInt64(id)).rgb, grayscale: grayscale)
            let response = await image(target)
            #expect(response.status == 200)
            #expect(response.body == (try codecs.encodeJPEG(ImageRenderer.renderPlanes(spec))), "\(target)")
            let served = try codecs.decode(response.body, as: .jpeg)
            #expect(meanDifference(served, ImageRenderer.render(spec)) < 6, "\(target)")
        }
    }

    /// Whether a JPEG file's frame is progressive (SOF2, `FF C2`) rather than baseline (SOF0, `FF C0`).
    static func isProgressive(_ jpeg: [UInt8]) -> Bool? {
        for index in jpeg.indices.dropLast() where jpeg[index] == 0xFF {
            if jpeg[index + 1] == 0xC2 { return true }
            if jpeg[index + 1] == 0xC0 { return false }
        }
        return nil
    }

    @Test(
        "?progressive serves a progressive JPEG of the same pixels, with its own ETag; =0 and the default are baseline")
    func progressive() async throws {
        let baseline = await image("/items/7/image?w=320&h=200")
        let progressive = await image("/items/7/image?w=320&h=200&progressive")
        let off = await image("/items/7/image?w=320&h=200&progressive=0")
        #expect(baseline.status == 200 && progressive.status == 200 && off.status == 200)
        #expect(Self.isProgressive(baseline.body) == false && Self.isProgressive(off.body) == false)
        #expect(Self.isProgressive(progressive.body) == true)
        #expect(
            progressive.headers["ETag"] != baseline.headers["ETag"] && off.headers["ETag"] == baseline.headers["ETag"])
        // The same coefficients in another order: the very same pixels decoded.
        #expect(try codecs.decode(progressive.body, as: .jpeg) == (try codecs.decode(baseline.body, as: .jpeg)))
        // PNG has no such thing: the same file and tag either way.
        let png = await image("/items/7/image.png?w=32&h=20")
        let pngAsked = await image("/items/7/image.png?w=32&h=20&progressive")
        #expect(png.body == pngAsked.body && png.headers["ETag"] == pngAsked.headers["ETag"])
        let bad = await image("/items/7/image?progressive=maybe")
        #expect(bad.status == 400 && bad.jsonObject?["parameter"] as? String == "progressive")
    }

    @Test("one codec makes baseline, progressive and baseline files in turn, each decoding without a warning")
    func baselineAfterProgressive() throws {
        // The decoder stops on any warning (TJFLAG_STOPONWARNING): a damaged file throws, as a handle that had made a
        // progressive file once made its next baseline ones ("bad Huffman code").
        let spec = ImageSpec(id: 3, width: 96, height: 64, color: 0x3F7A59)
        let planes = ImageRenderer.renderPlanes(spec)
        for progressive in [false, true, false, true, false] {
            let file = try codecs.encodeJPEG(planes, progressive: progressive)
            #expect(Self.isProgressive(file) == progressive)
            let decoded = try codecs.decode(file, as: .jpeg)
            #expect(decoded.width == 96 && decoded.height == 64)
            let fromRGB = try codecs.encode(ImageRenderer.render(spec), as: .jpeg, progressive: progressive)
            #expect(try codecs.decode(fromRGB, as: .jpeg).width == 96)
        }
    }

    @Test("with image.progressive on, an upload is served as stored with the ETag its PUT gave, and If-Match takes it")
    func progressiveSettingLeavesUploadsAlone() async throws {
        var service = ServiceOptions()
        service.imageProgressive = true
        let router = RouterFixture.router(service: service)
        func answer(_ target: String, method: HTTPMethod = .get, headers: HTTPHeaders = [:], body: [UInt8] = [])
            async -> HTTPResponse
        {
            await router.answer(HTTPRequest(method: method, target: target, headers: headers, body: body))
        }
        let file = try codecs.encode(
            ImageRenderer.render(ImageSpec(id: 1, width: 80, height: 60, color: 0x808080)), as: .jpeg)
        #expect(Self.isProgressive(file) == false)
        let stored = await answer("/items/9/image", method: .put, headers: ["Content-Type": "image/jpeg"], body: file)
        #expect(stored.status == 201)
        let served = await answer("/items/9/image")
        #expect(served.body == file && served.headers["ETag"] == stored.headers["ETag"])
        #expect(Self.isProgressive((await answer("/items/9/image?progressive")).body) == true)
        // A generated image, served progressive: If-Match with the tag a plain GET gave is a match.
        let generated = await answer("/items/10/image")
        #expect(Self.isProgressive(generated.body) == true)
        let tag = try #require(generated.headers["ETag"])
        let replaced = await answer(
            "/items/10/image", method: .put, headers: ["Content-Type": "image/jpeg", "If-Match": tag], body: file)
        #expect(replaced.status == 201)
    }

    @Test("image.progressive makes JPEGs progressive by default, Picsum's too; ?progressive=0 still asks for baseline")
    func progressiveByDefault() async throws {
        var service = ServiceOptions()
        service.imageProgressive = true
        let router = RouterFixture.router(service: service)
        func fetch(_ target: String) async -> HTTPResponse {
            await router.answer(HTTPRequest(method: .get, target: target))
        }
        #expect(Self.isProgressive(await fetch("/items/7/image?w=64&h=40").body) == true)
        #expect(Self.isProgressive(await fetch("/id/7/64/40").body) == true)
        #expect(Self.isProgressive(await fetch("/items/7/image?w=64&h=40&progressive=0").body) == false)
    }

    @Test("without a size the image has the item's own; one side alone keeps the item's shape")
    func sizes() async throws {
        let own = item(42)  // 1600x1200
        let whole = await image("/items/42/image.png")
        let dimensions = try #require(codecs.dimensions(of: whole.body, as: .png))
        #expect(dimensions.width == own.width && dimensions.height == own.height)
        let narrow = await image("/items/42/image.png?w=300")
        #expect(codecs.dimensions(of: narrow.body, as: .png)?.height == 300 * own.height / own.width)
        let short = await image("/items/42/image.png?h=60")
        #expect(codecs.dimensions(of: short.body, as: .png)?.width == 60 * own.width / own.height)
    }

    @Test("grayscale turns every pixel grey; blur changes the pixels; both are part of the ETag")
    func effects() async throws {
        let plain = await image("/items/3/image.png?w=64&h=64")
        let gray = await image("/items/3/image.png?w=64&h=64&grayscale")
        let pixels = try codecs.decode(gray.body, as: .png).pixels
        var allGray = true
        for offset in stride(from: 0, to: pixels.count, by: 3) {
            let red = pixels[offset]
            allGray = allGray && red == pixels[offset + 1] && red == pixels[offset + 2]
        }
        #expect(allGray)
        let blurred = await image("/items/3/image.png?w=64&h=64&blur")
        #expect(blurred.body != plain.body)
        #expect(blurred.headers["Content-Disposition"] == #"inline; filename="3-64x64-blur_5.png""#)
        #expect(gray.headers["Content-Disposition"] == #"inline; filename="3-64x64-grayscale.png""#)
        let explicitlyFive = await image("/items/3/image.png?w=64&h=64&blur=5")
        #expect(explicitlyFive.body == blurred.body)
        let tags = Set([plain, gray, blurred].compactMap { $0.headers["ETag"] })
        #expect(tags.count == 3)
    }

    @Test("Accept chooses among JPEG, WebP and PNG, with Vary: Accept; an extension or format= overrides it")
    func negotiation() async throws {
        let cases: [(String?, String)] = [
            (nil, "image/jpeg"), ("*/*", "image/jpeg"), ("image/webp,image/*,*/*;q=0.8", "image/webp"),
            ("image/png", "image/png"), ("image/jpeg;q=0.5, image/png", "image/png"),
            ("image/webp;q=0, image/*", "image/jpeg"), ("text/html", "image/jpeg"),
            ("image/png;q=0.9, image/webp;q=0.9, image/jpeg;q=0.1", "image/webp"),
        ]
        for (accept, expected) in cases {
            let headers: HTTPHeaders = accept.map { ["Accept": $0] } ?? [:]
            let response = await image("/items/5/image?w=20&h=20", headers: headers)
            #expect(response.headers["Content-Type"] == expected, "Accept: \(accept ?? "none")")
            #expect(response.vary.contains(.accept))
        }
        let byFormat = await image("/items/5/image?w=20&h=20&format=png", headers: ["Accept": "image/webp"])
        #expect(byFormat.headers["Content-Type"] == "image/png" && !byFormat.vary.contains(.accept))
        let byExtension = await image("/items/5/image.jpeg?w=20&h=20&format=png")
        #expect(byExtension.headers["Content-Type"] == "image/jpeg")
    }

    @Test("a miss then a hit with the same bytes; If-None-Match gets a 304 without a body")
    func cachingAndRevalidation() async throws {
        let miss = await image("/items/9/image?w=40&h=30")
        #expect(miss.headers["X-Cache"] == "MISS")
        let timing = try #require(miss.headers["Server-Timing"])
        #expect(timing.hasPrefix("store;dur=0, encode;dur="))
        // A cached image is answered at once, without a task.
        let hit = router.respond("/items/9/image?w=40&h=30")
        #expect(hit.headers["X-Cache"] == "HIT" && hit.body == miss.body && hit.headers["Server-Timing"] == nil)
        let tag = try #require(hit.headers["ETag"])
        let revalidated = await image("/items/9/image?w=40&h=30", headers: ["If-None-Match": tag])
        #expect(revalidated.status == 304 && revalidated.body.isEmpty && revalidated.headers["ETag"] == tag)
        let otherFormat = await image("/items/9/image.png?w=40&h=30", headers: ["If-None-Match": tag])
        #expect(otherFormat.status == 200)
        let fresh = await image("/items/9/image?w=40&h=30", headers: ["Cache-Control": "no-cache"])
        #expect(fresh.headers["X-Cache"] == "MISS")
    }

    @Test("a GET's Range gets 206 with those bytes of the image and Content-Range; HEAD and a stale If-Range the whole")
    func ranges() async throws {
        let whole = await image("/items/3/image?w=120&h=80")
        #expect(whole.status == 200 && whole.headers["Accept-Ranges"] == "bytes")
        let length = whole.body.count
        let etag = try #require(whole.headers["ETag"])
        for (field, part) in [
            ("bytes=0-99", 0..<100), ("bytes=100-", 100..<length), ("bytes=-10", length - 10..<length),
        ] {
            let response = await image("/items/3/image?w=120&h=80", headers: ["Range": field])
            #expect(response.status == 206, "\(field)")
            #expect(response.body == Array(whole.body[part]), "\(field)")
            #expect(response.headers["Content-Range"] == "bytes \(part.lowerBound)-\(part.upperBound - 1)/\(length)")
            #expect(response.headers["ETag"] == etag && response.headers["Content-Type"] == "image/jpeg")
        }
        // With the image's tag in If-Range the range applies; with another, the whole image.
        let current = await image("/items/3/image?w=120&h=80", headers: ["Range": "bytes=0-9", "If-Range": etag])
        #expect(current.status == 206 && current.body.count == 10)
        let stale = await image(
            "/items/3/image?w=120&h=80", headers: ["Range": "bytes=0-9", "If-Range": "\"v0-0000000000000000\""])
        #expect(stale.status == 200 && stale.body == whole.body && stale.headers["Content-Range"] == nil)
        // Several ranges: the whole image (RFC 9110 lets a server ignore them).
        let several = await image("/items/3/image?w=120&h=80", headers: ["Range": "bytes=0-1,5-6"])
        #expect(several.status == 200 && several.body == whole.body)
        // A HEAD ignores Range: its headers are the whole image's GET's.
        let head = await router.answer(
            HTTPRequest(method: .head, target: "/items/3/image?w=120&h=80", headers: ["Range": "bytes=0-9"]))
        #expect(head.status == 200 && head.headers["Content-Range"] == nil)
        // If-None-Match is judged first: a match is 304 whatever the range.
        let notModified = await image(
            "/items/3/image?w=120&h=80", headers: ["Range": "bytes=0-9", "If-None-Match": etag])
        #expect(notModified.status == 304 && notModified.body.isEmpty)
    }

    @Test("a Range past the image's end is 416 range-not-satisfiable with the image's length; Picsum's images too")
    func unsatisfiable() async throws {
        let whole = await image("/items/4/image.png?w=30&h=20")
        let response = await image("/items/4/image.png?w=30&h=20", headers: ["Range": "bytes=\(whole.body.count)-"])
        #expect(response.status == 416)
        #expect(response.headers["Content-Range"] == "bytes */\(whole.body.count)")
        #expect(response.headers["Content-Type"] == MediaType.problemJSON)
        let problem = try #require(response.jsonObject)
        #expect(problem["type"] as? String == "urn:listserver:problem:range-not-satisfiable")
        #expect(problem["status"] as? Int == 416)
        let picsum = await image("/id/4/30/20.png", headers: ["Range": "bytes=0-3"])
        #expect(picsum.status == 206 && picsum.body == Array(whole.body[0..<4]))
        #expect(picsum.headers["Picsum-ID"] == "4")
    }

    @Test("bad parameters are 400 naming the parameter; unknown extensions, ids past the end and deleted items 404")
    func refusals() async throws {
        let bad: [(String, String)] = [
            ("w=0", "w"), ("w=5001", "w"), ("h=abc", "h"), ("w=1&w=2", "w"), ("blur=11", "blur"),
            ("blur=-1", "blur"), ("format=gif", "format"), ("grayscale=maybe", "grayscale"),
            ("format=png&format=png", "format"),
        ]
        for (query, parameter) in bad {
            let response = router.respond("/items/1/image?" + query)
            #expect(response.status == 400, "\(query)")
            #expect(response.jsonObject?["parameter"] as? String == parameter, "\(query)")
            #expect(response.headers["Content-Type"] == MediaType.problemJSON)
        }
        // w=5000 on a portrait item: its height would be over 5000.
        let portrait = try #require((0..<200).first { item($0).height > item($0).width })
        let tooTall = router.respond("/items/\(portrait)/image?w=5000")
        #expect(tooTall.status == 400 && tooTall.jsonObject?["parameter"] as? String == "w")
        #expect(router.respond("/items/1/image.gif").status == 404)
        #expect(router.respond("/items/10000/image").status == 404)
        #expect(router.respond("/items/1x/image").status == 400)
        #expect(await router.write(.delete, "/items/12").status == 204)
        #expect(router.respond("/items/12/image").status == 404)
    }

    @Test("a written colour is the new average colour; items say where their image is")
    func writtenItems() async throws {
        let before = await image("/items/20/image.png?w=30&h=30")
        #expect(await router.write(.patch, "/items/20", json: ##"{"color":"#102030"}"##).status == 200)
        let after = await image("/items/20/image.png?w=30&h=30")
        #expect(after.headers["ETag"] != before.headers["ETag"])
        let drawn = ImageRenderer.render(ImageSpec(id: 20, width: 30, height: 30, color: 0x102030))
        let decoded = try codecs.decode(after.body, as: .png)
        #expect(decoded == drawn)
        // The photo averages the written colour.
        var sums = [0, 0, 0]
        for (index, byte) in decoded.pixels.enumerated() { sums[index % 3] += Int(byte) }
        for (sum, channel) in zip(sums, [0x10, 0x20, 0x30]) { #expect(abs(sum / 900 - channel) <= 4, "\(sums)") }
        let item = router.respond("/items/20")
        #expect(item.jsonObject?["image_url"] as? String == "/items/20/image")
        let created = await router.write(.post, "/items", json: #"{"label":"photo"}"#)
        #expect(created.jsonObject?["image_url"] as? String == "/items/10000/image")
        let refused = router.respond(
            "/items", method: .post, headers: ["Content-Type": "application/json"],
            body: Array(#"{"label":"x","image_url":"/elsewhere"}"#.utf8))
        #expect(refused.status == 400)
        #expect((refused.jsonObject?["detail"] as? String)?.contains("image_url") == true)
    }

    @Test("when the workers are busy the answer is 503 image-busy with Retry-After")
    func busy() async throws {
        let catalog = Catalog(seed: 42, count: 100)
        let store = SlowStore(catalog: catalog, latency: .none, clock: ImmediateClock())
        let images = ImageCache(encoder: BusyEncoder(), latency: .none, capacityBytes: 1000, clock: ImmediateClock())
        let router = Router(
            catalog: catalog, cache: DetailCache(store: store, capacity: 10), images: images,
            paging: RouterFixture.defaultPaging)
        let response = await router.respondDeferred("/items/1/image")
        #expect(response.status == 503)
        #expect(response.headers["Retry-After"] == "1")
        #expect(response.jsonObject?["type"] as? String == "urn:listserver:problem:image-busy")
    }

    @Test("the workers refuse work past the queue limit instead of queueing it")
    func workersBound() async throws {
        let workers = try ImageWorkers(count: 1, queueLimit: 1)
        defer { workers.stop() }
        // Slow jobs: the first occupies the worker, the second waits, the third finds the queue full.
        let spec = ImageSpec(id: 1, width: 1000, height: 1000, color: 0x808080, blur: 3)
        let results = await withTaskGroup(of: Result<EncodedImage, ImageFailure>.self) { group in
            for _ in 0..<3 {
                group.addTask {
                    do throws(ImageFailure) {
                        return .success(try await workers.encode(spec, as: .png, from: nil))
                    } catch {
                        return .failure(error)
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.contains { if case .failure(.busy) = $0 { true } else { false } })
        #expect(results.contains { if case .success = $0 { true } else { false } })
    }
}
