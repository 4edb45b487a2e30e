import ListDomain

/// `GET /items/<id>/image[.jpg|.png|.webp]`: the item's image (its upload if it has one, else the generated one),
/// through the image cache and the slow store.
extension Router {
    /// Validates the id and the parameters at once, then defers to the image cache.
    ///
    /// The format comes from the path's extension, else `?format=`, else the `Accept` field (see
    /// ``negotiatedImageFormat(_:)``), else JPEG. The response (at once for a cached image, deferred otherwise)
    /// carries `X-Cache`, on a miss `Server-Timing: store;dur=…, encode;dur=…`, a strong `ETag` (304 on a matching
    /// `If-None-Match`, after the lookup, as for details), `Content-Disposition: inline; filename="42-600x400.jpg"`
    /// (Picsum's pattern, with `-blur_<n>` and `-grayscale` when they apply), `Accept-Ranges: bytes`, and
    /// `Vary: Accept` when the format was negotiated. `Cache-Control: no-cache` (or `Pragma: no-cache`) encodes
    /// afresh. `range`, a GET's `Range` (``byteRange(_:)``), answers 206 with part of the image, or 416.
    ///
    /// - Parameters:
    ///   - rawID: The decoded id segment.
    ///   - fileExtension: The extension of the last segment (`png` of `image.png`), if it has one.
    /// - Throws: A ``Problem``: 400 for a bad id or parameter, 404 for an id past the end, a deleted item or an
    ///   extension that is no image format.
    func image(
        _ rawID: String, fileExtension: String?, target: RequestTarget, headers: HTTPHeaders,
        range: ByteRangeRequest? = nil
    ) throws(Problem) -> RouteOutcome {
        guard let images else {
            throw Problem(.notFound, detail: "images are not served by this server")
        }
        // The query, parsed once: the dataset is read from it here, the image parameters below (a query that does not
        // decode is their 400, after the id's, as before).
        let items = Result { () throws(Problem) in try ImageQuery.items(of: target) }
        let list = try Self.listName(headers, query: (try? items.get()) ?? [])
        let state = try readableState(of: list)
        let id = try itemID(rawID, in: state)
        guard let item = state.imageFields(of: id) else {
            throw Problem(.notFound, detail: "item \(id) was deleted")
        }
        let upload = state.written[id]?.image
        let query = try ImageQuery(items: items.get())
        var chosen = query.format
        if let fileExtension {
            guard let format = ImageFormat(fileExtension: fileExtension) else {
                throw Problem(
                    .notFound,
                    detail: "there is no image format \(Problem.quoted(fileExtension)); use image.jpg, image.png or "
                        + "image.webp")
            }
            chosen = format
        }
        // An upload is served in its own format unless another is asked for by name: no negotiation.
        let format = chosen ?? upload?.format ?? Self.negotiatedImageFormat(headers["Accept"])
        let size =
            if let upload { try query.size(ofWidth: upload.width, height: upload.height) } else {
                try query.size(ofWidth: item.width, height: item.height)
            }
        let spec = ImageSpec(
            id: id, width: size.width, height: size.height, color: item.color, grayscale: query.grayscale,
            blur: query.blur, upload: upload.map { ImageSpec.Upload(list: list, image: $0) },
            progressive: servesProgressive(format, asked: query.progressive, uploaded: upload != nil))
        return serveImage(
            spec, format: format, from: images, version: state.header.version, headers: headers,
            negotiated: chosen == nil && upload == nil, range: range)
    }

    /// Whether an image in `format` is served as a progressive JPEG: as `asked` (`?progressive`), else as
    /// ``SettingKey/imageProgressive`` says for a generated image; an upload is served as stored unless asked. Only
    /// JPEGs are ever progressive, so PNG and WebP keep one tag and one cache entry.
    func servesProgressive(_ format: ImageFormat, asked: Bool?, uploaded: Bool) -> Bool {
        format == .jpeg && (asked ?? (!uploaded && service.imageProgressive))
    }

    /// The `Range` of `request` that image routes honour: a GET's (RFC 9110 defines ranges for GET only; a HEAD
    /// answers as the whole body's GET would), and only a field of one byte range (``ByteRangeRequest``).
    static func byteRange(_ request: HTTPRequest) -> ByteRangeRequest? {
        request.method == .get ? ByteRangeRequest(request.headers) : nil
    }

    /// The answer for `spec` in `format` through `images`, the router's image cache: what `/items/<id>/image` and
    /// Picsum's `/id/…` routes share. `picsumID` adds Picsum's `Picsum-ID` field.
    func serveImage(
        _ spec: ImageSpec, format: ImageFormat, from images: ImageCache, version: UInt64, headers: HTTPHeaders,
        negotiated: Bool, range: ByteRangeRequest? = nil, picsumID: UInt64? = nil
    ) -> RouteOutcome {
        let tag = EntityTag(image: spec, format: format, version: version)
        let bypassCache = Self.requestsFreshDetail(headers)
        let condition = headers["If-None-Match"]
        // A cached image is answered at once, like a page: no task (the hit path of Benchmarks/images).
        if !bypassCache, let hit = images.readyHit(ImageKey(spec: spec, format: format)) {
            var response = Self.imageResponse(
                hit, spec: spec, format: format, tag: tag, ifNoneMatch: condition, negotiated: negotiated,
                range: range)
            if let picsumID { response.headers.add("Picsum-ID", String(picsumID)) }
            return .response(response)
        }
        let uploads = spec.upload == nil ? nil : writes.store
        return .deferred {
            let lookup: ImageLookup
            do throws(ImageFailure) {
                lookup = try await images.lookUp(
                    ImageKey(spec: spec, format: format), bypassCache: bypassCache, uploads: uploads)
            } catch {
                switch error {
                case .busy:
                    return Problem(
                        .imageBusy, detail: "every image worker is busy and the queue is full; retry shortly",
                        headers: ["Retry-After": "1"]
                    ).response()
                case .encodingFailed(let reason):
                    return Problem(.imageFailed, detail: "the image could not be encoded: \(reason)").response()
                case .uploadUnavailable(let reason):
                    return Problem(
                        .storeUnavailable, detail: "the uploaded image could not be read: \(reason); retry",
                        headers: ["Retry-After": "1"]
                    ).response()
                }
            }
            var response = Self.imageResponse(
                lookup, spec: spec, format: format, tag: tag, ifNoneMatch: condition, negotiated: negotiated,
                range: range)
            if let picsumID {
                response.headers.add("Picsum-ID", String(picsumID))
            }
            response.delay += lookup.readyIn
            return response
        }
    }

    /// The answer once the lookup is done: 200 with the bytes, 304 when `ifNoneMatch` matches `tag` (checked before
    /// the range, as RFC 9110 §13.2.2 orders them), 206 with the bytes `range` asks for, or 416 when it asks for
    /// none of them.
    static func imageResponse(
        _ lookup: ImageLookup, spec: ImageSpec, format: ImageFormat, tag: EntityTag, ifNoneMatch: String?,
        negotiated: Bool, range: ByteRangeRequest? = nil
    ) -> HTTPResponse {
        var headers = HTTPHeaders(capacity: 8)
        switch lookup.source {
        case .hit:
            headers.add("X-Cache", "HIT")
        case .miss(let storeDuration, let encodeDuration):
            headers.add("X-Cache", "MISS")
            headers.add(
                "Server-Timing",
                "store;dur=" + milliseconds(storeDuration) + ", encode;dur=" + milliseconds(encodeDuration))
        }
        headers.add("ETag", tag.headerValue)
        let vary: VaryFields = negotiated ? .accept : []
        if let ifNoneMatch, tag.matches(ifNoneMatch: ifNoneMatch) {
            var response = HTTPResponse(status: 304, headers: headers)
            response.vary = vary
            return response
        }
        headers.add("Accept-Ranges", "bytes")
        let length = lookup.bytes.count
        var (status, body) = (200, lookup.bytes)
        switch range?.answer(length: length, etag: tag.headerValue) ?? .whole {
        case .whole:
            break
        case .part(let part):
            headers.add("Content-Range", ByteRangeRequest.contentRange(part, length: length))
            (status, body) = (206, Array(lookup.bytes[part]))
        case .unsatisfiable:
            headers.add("Content-Range", ByteRangeRequest.contentRange(nil, length: length))
            var response = Problem(
                .rangeNotSatisfiable,
                detail:
                    "the image has \(length) bytes and the range asks for none of them (bytes=0-\(length - 1) is all)",
                headers: headers
            ).response()
            response.vary.formUnion(vary)
            return response
        }
        headers.add("Content-Type", MediaType.image(format))
        headers.add("Content-Disposition", "inline; filename=\"\(spec.fileName(format))\"")
        var response = HTTPResponse(status: status, headers: headers, body: body)
        response.vary = vary
        return response
    }

    /// The format an `Accept` field prefers among JPEG, WebP and PNG; JPEG without one, or when it names none of
    /// them.
    ///
    /// The highest quality value wins; at equal quality a type the field names beats one it only reaches through
    /// `image/*` or `*/*`, so a browser's `image/webp,image/*,*/*;q=0.8` gets WebP and curl's `*/*` gets JPEG;
    /// after that JPEG, then WebP, then PNG. A type with `q=0` is never chosen.
    static func negotiatedImageFormat(_ accept: String?) -> ImageFormat {
        guard let accept else { return .jpeg }
        let preference: [ImageFormat] = [.jpeg, .webp, .png]
        var best: (format: ImageFormat, quality: Int, named: Bool)?
        for format in preference {
            guard let match = acceptance(of: MediaType.image(format), in: accept), match.quality > 0 else { continue }
            if let current = best, (current.quality, current.named ? 1 : 0) >= (match.quality, match.named ? 1 : 0) {
                continue
            }
            best = (format, match.quality, match.named)
        }
        return best?.format ?? .jpeg
    }

    /// How `Accept` rates `type` (`image/webp`): the quality (in thousandths) of the most specific range that
    /// covers it, and whether that range names it exactly; nil when none covers it.
    private static func acceptance(of type: String, in accept: String) -> (quality: Int, named: Bool)? {
        let slash = type.firstIndex(of: "/")!
        let wildcard = type[..<slash] + "/*"
        var found: (quality: Int, specificity: Int)?
        for element in accept.split(separator: ",") {
            let parts = element.split(separator: ";")
            guard let range = parts.first?.trimmingASCIIWhitespace().lowercased() else { continue }
            let specificity = range == type ? 2 : range == wildcard ? 1 : range == "*/*" ? 0 : -1
            guard specificity >= 0 else { continue }
            var quality = 1000
            for parameter in parts.dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1)
                guard pair.count == 2, pair[0].trimmingASCIIWhitespace().lowercased() == "q" else { continue }
                quality = Self.qualityValue(pair[1].trimmingASCIIWhitespace()) ?? 0
            }
            if found == nil || specificity > found!.specificity {
                found = (quality, specificity)
            }
        }
        return found.map { ($0.quality, $0.specificity == 2) }
    }

    /// An RFC 9110 qvalue (`0`, `0.8`, `1.000`) in thousandths; nil when malformed.
    private static func qualityValue(_ text: Substring) -> Int? {
        let parts = text.utf8.split(separator: UInt8(ascii: "."), maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, whole.count == 1, let first = whole.first,
            first == UInt8(ascii: "0") || first == UInt8(ascii: "1")
        else { return nil }
        let fraction = parts.count == 2 ? Array(parts[1]) : []
        guard fraction.count <= 3, fraction.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return nil
        }
        if first == UInt8(ascii: "1") {
            return fraction.allSatisfy { $0 == UInt8(ascii: "0") } ? 1000 : nil
        }
        var thousandths = 0
        var scale = 100
        for digit in fraction {
            thousandths += Int(digit - UInt8(ascii: "0")) * scale
            scale /= 10
        }
        return thousandths
    }
}

extension Substring {
    /// The text without spaces and tabs at either end (`Accept` members, `Content-Type`, conditional fields).
    func trimmingASCIIWhitespace() -> Substring {
        var result = self
        while let first = result.first, first == " " || first == "\t" { result = result.dropFirst() }
        while let last = result.last, last == " " || last == "\t" { result = result.dropLast() }
        return result
    }
}
