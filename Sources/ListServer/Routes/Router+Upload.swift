import ListDomain

/// `PUT /items/<id>/image` and `DELETE /items/<id>/image`: an app's own photo for an item, kept in the durable
/// store like every write, and served by `GET /items/<id>/image` instead of the generated one.
///
/// An upload is checked in three steps, cheapest first, before anything is queued for the store: on the loop, the
/// `Content-Type` (415 unless `image/jpeg`, `image/png` or `image/webp`), an empty body (400) and the file's
/// signature (400 when it is none of the three, 415 when it is another than `Content-Type` says); then on an image
/// worker, the size its header declares (400 past 5000 pixels a side or 25 megapixels, before a pixel is decoded)
/// and the whole file, decoded (400 when truncated or damaged). The body itself was held to
/// ``SettingKey/imageMaxUploadBytes`` by the head scanner (413) before it was read.
///
/// Then it is a write like the others: `If-Match` and `If-None-Match`, checked by the ``WriteCoordinator`` against
/// the image as it is when the write applies (`*` means "an upload exists"; a tag matches the image as served
/// without parameters, in any format), `Idempotency-Key` (the fingerprint holds the file's digest, not the file),
/// and an answer only once durable: 201 for the first upload, 200 for a replacement, with the `ETag` that `GET
/// /items/<id>/image` then has. The item's `width` and `height` become the upload's, and the change feed says
/// `updated`. `DELETE` returns to the generated image and size: 204, whether or not there was an upload.
extension Router {
    /// `PUT /items/<id>/image`.
    func putImage(_ rawID: String, _ request: HTTPRequest, target: RequestTarget) throws(Problem) -> RouteOutcome {
        guard let images else {
            throw Problem(.notFound, detail: "images are not served by this server")
        }
        let list = try Self.listName(request.headers)
        let id = try Self.writeID(rawID)
        let format = try Self.uploadFormat(request)
        let condition = Self.imageCondition(request.headers, list: list)
        let key = try Self.idempotencyKey(request.headers)
        let resource = Array((request.method.name + " " + Self.faultResource(target) + "\n").utf8)
        let body = request.body
        let writes = self.writes
        let metrics = observability.metrics
        let basePath = target.basePath
        return .deferred {
            let upload: ImageUpload
            do throws(UploadRejection) {
                upload = try await images.encoder.inspectUpload(body, as: format)
            } catch {
                return Self.rejectedUpload(error, format: format).response()
            }
            let claim = key.map { key in
                IdempotencyClaim(key: key, fingerprint: resource + upload.digest.bigEndianBytes) { result in
                    RecordedAnswer.encode(Self.writtenResponse(result))  // without a base: a replay adds its own
                }
            }
            let operation = WriteOperation(
                list: list, action: .putImage(id, upload), imageCondition: condition, idempotency: claim)
            let outcome = await writes.submit(operation)
            let response = Self.writeResponse(outcome, list: writes.lists.state(of: list), basePath: basePath)
            if let metrics {
                let replayed = if case .replayed = outcome { true } else { false }
                metrics.writes.recordWrite(method: "PUT", status: response.status, replayed: replayed)
            }
            return response
        }
    }

    /// `DELETE /items/<id>/image`.
    func removeImage(_ rawID: String, _ request: HTTPRequest, target: RequestTarget) throws(Problem) -> RouteOutcome {
        guard images != nil else {
            throw Problem(.notFound, detail: "images are not served by this server")
        }
        let list = try Self.listName(request.headers)
        let id = try Self.writeID(rawID)
        let operation = WriteOperation(
            list: list, action: .removeImage(id), imageCondition: Self.imageCondition(request.headers, list: list),
            idempotency: try idempotencyClaim(request, target: target))
        return submit(operation, method: .delete, basePath: target.basePath)
    }

    /// The format of an upload: its `Content-Type`, which its signature must agree with.
    static func uploadFormat(_ request: HTTPRequest) throws(Problem) -> ImageFormat {
        let accepted = "image/jpeg, image/png or image/webp"
        guard let contentType = request.headers["Content-Type"] else {
            throw Problem(.unsupportedMediaType, detail: "the body must be \(accepted); Content-Type is missing")
        }
        let mediaType = contentType.prefix { $0 != ";" }.trimmingASCIIWhitespace().lowercased()
        guard let declared = ImageFormat.allCases.first(where: { MediaType.image($0) == mediaType }) else {
            throw Problem(
                .unsupportedMediaType, detail: "the body must be \(accepted), not \(Problem.quoted(contentType))")
        }
        guard !request.body.isEmpty else {
            throw Problem(.invalidImage, detail: "the body is empty; send the image file")
        }
        guard let sniffed = ImageFormat(sniffing: request.body) else {
            throw Problem(
                .invalidImage,
                detail: "the body is no JPEG, PNG or WebP file (it starts with none of their signatures)")
        }
        guard sniffed == declared else {
            throw Problem(
                .unsupportedMediaType,
                detail: "Content-Type says \(MediaType.image(declared)) but the body is a \(sniffed.name) file; send "
                    + "Content-Type: \(MediaType.image(sniffed))")
        }
        return sniffed
    }

    /// The answer to an upload the image worker refused.
    static func rejectedUpload(_ rejection: UploadRejection, format: ImageFormat) -> Problem {
        switch rejection {
        case .busy:
            Problem(
                .imageBusy, detail: "every image worker is busy and the queue is full; retry shortly",
                headers: ["Retry-After": "1"])
        case .tooLarge(let width, let height):
            Problem(
                .invalidImage,
                detail: "the \(format.name) file declares \(width)x\(height) pixels; each side may be "
                    + "1...\(ImageSpec.maxSide) and the whole at most \(ImageSpec.maxPixels) pixels")
        case .unreadable(let reason):
            Problem(.invalidImage, detail: "the \(format.name) file does not decode: \(reason)")
        }
    }

    /// `If-Match` and `If-None-Match` on an image write, as a condition on the item's image; nil without either.
    ///
    /// `*` stands for an uploaded image: `If-None-Match: *` stores only where none was uploaded yet, `If-Match: *`
    /// only where one was. A tag matches when it is the `ETag` of the image as `GET /items/<id>/image` serves it
    /// without parameters, in any of the three formats (a browser may have been sent WebP, curl JPEG), a generated
    /// JPEG baseline or progressive (``SettingKey/imageProgressive`` decides which it is served as).
    static func imageCondition(_ headers: HTTPHeaders, list: String) -> (@Sendable (ImageRevision) -> Bool)? {
        let ifMatch = headers["If-Match"]
        let ifNoneMatch = headers["If-None-Match"]
        guard ifMatch != nil || ifNoneMatch != nil else { return nil }
        return { revision in
            var tags = ImageFormat.allCases.map { storedImageTag(revision, format: $0, list: list) }
            if revision.upload == nil {
                tags.append(storedImageTag(revision, format: .jpeg, list: list, progressive: true))
            }
            if let ifMatch {
                let matched =
                    isStar(ifMatch) ? revision.upload != nil : tags.contains { $0.matches(ifMatch: ifMatch) }
                guard matched else { return false }
            }
            if let ifNoneMatch {
                let matched =
                    isStar(ifNoneMatch)
                    ? revision.upload != nil : tags.contains { $0.matches(ifNoneMatch: ifNoneMatch) }
                guard !matched else { return false }
            }
            return true
        }
    }

    /// Whether a conditional field is `*`.
    private static func isStar(_ value: String) -> Bool {
        value[...].trimmingASCIIWhitespace() == "*"
    }

    /// The spec of the image `GET /items/<id>/image` serves without parameters: the upload as stored, or the
    /// generated image at the item's own size (fitted to the limits), a progressive JPEG when `progressive`.
    static func storedImageSpec(_ revision: ImageRevision, list: String, progressive: Bool = false) -> ImageSpec {
        let item = revision.item
        if let upload = revision.upload {
            return ImageSpec(
                id: item.id, width: upload.width, height: upload.height, color: item.rgb,
                upload: ImageSpec.Upload(list: list, image: upload))
        }
        let size = ImageSpec.fitted(width: item.width, height: item.height)
        return ImageSpec(
            id: item.id, width: size.width, height: size.height, color: item.rgb, progressive: progressive)
    }

    /// The `ETag` of that image in `format`.
    static func storedImageTag(_ revision: ImageRevision, format: ImageFormat, list: String, progressive: Bool = false)
        -> EntityTag
    {
        EntityTag(
            image: storedImageSpec(revision, list: list, progressive: progressive && format == .jpeg), format: format,
            version: revision.version)
    }

    /// The 2xx answer to a stored upload: 201 (with `Location`) for the item's first, 200 for a replacement; the
    /// image's `ETag`, and what was stored as JSON: `{"id":42,"image_url":"/items/42/image","content_type":
    /// "image/png","width":800,"height":600,"bytes":51234}`.
    static func storedImageResponse(_ revision: ImageRevision, created: Bool, basePath: [UInt8]? = nil) -> HTTPResponse
    {
        guard let upload = revision.upload else { return HTTPResponse(status: 204) }
        var json = JSONWriter(capacity: 160)
        json.append(raw: "{\"id\":")
        json.append(integer: revision.item.id)
        json.append(raw: ",\"image_url\":")
        json.append(string: (basePath.map { String(decoding: $0, as: UTF8.self) } ?? "") + imagePath(revision.item.id))
        json.append(raw: ",\"content_type\":")
        json.append(string: MediaType.image(upload.format))
        json.append(raw: ",\"width\":")
        json.append(integer: upload.width)
        json.append(raw: ",\"height\":")
        json.append(integer: upload.height)
        json.append(raw: ",\"bytes\":")
        json.append(integer: upload.byteCount)
        json.append(raw: "}")
        var headers = HTTPHeaders(capacity: 8)
        headers.add("Content-Type", MediaType.json)
        headers.add("ETag", storedImageTag(revision, format: upload.format, list: "").headerValue)
        if created { headers.add("Location", imagePath(revision.item.id)) }
        return HTTPResponse(status: created ? 201 : 200, headers: headers, body: json.bytes)
    }

    /// `/items/<id>/image`.
    static func imagePath(_ id: UInt64) -> String { itemPath(id) + "/image" }

}

extension ImageFormat {
    /// How a person names the format: `JPEG`, `PNG`, `WebP`.
    var name: String {
        switch self {
        case .jpeg: "JPEG"
        case .png: "PNG"
        case .webp: "WebP"
        }
    }
}
