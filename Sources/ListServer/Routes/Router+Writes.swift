import ListDomain

/// `POST /items`, `PATCH /items/<id>`, `DELETE /items/<id>`: checked here, committed by the ``WriteCoordinator``,
/// answered once durable.
///
/// The request is checked before anything is queued (media type 415, body 400, headers 400); the write itself is
/// `.pending` until its group commit is done. Conditions that depend on the list (the id is live, `If-Match`) are
/// checked by the coordinator against the list as it is when the write applies, so two racing writes cannot both
/// pass. A retried request with an `Idempotency-Key` gets the first answer again, with `Idempotent-Replayed: true`.
extension Router {
    /// The deepest a write's body may nest: an item is one flat object.
    package static let writeBodyDepth = 2

    /// `POST /items`: a new item at the end of the list; 201 with `Location`, `ETag` and the item.
    func createItem(_ request: HTTPRequest, target: RequestTarget) throws(Problem) -> RouteOutcome {
        let list = try Self.listName(request.headers)
        let json = try Self.jsonBody(request, patch: false)
        let overrides: ItemOverrides
        do { overrides = try ItemBody.creation(json) } catch { throw Self.invalidItem(error) }
        let operation = WriteOperation(
            list: list, action: .create(overrides), idempotency: try idempotencyClaim(request, target: target))
        return submit(operation, method: .post, basePath: target.basePath)
    }

    /// `PATCH /items/<id>`: a merge patch of a live item; 200 with the item and its new `ETag`.
    func updateItem(_ rawID: String, _ request: HTTPRequest, target: RequestTarget) throws(Problem) -> RouteOutcome {
        let list = try Self.listName(request.headers)
        let id = try Self.writeID(rawID)
        let json = try Self.jsonBody(request, patch: true)
        let patch: ItemPatch
        do { patch = try ItemBody.patch(json) } catch { throw Self.invalidItem(error) }
        let operation = WriteOperation(
            list: list, action: .update(id, patch), condition: Self.ifMatch(request.headers),
            idempotency: try idempotencyClaim(request, target: target))
        return submit(operation, method: .patch, basePath: target.basePath)
    }

    /// `DELETE /items/<id>`: 204; the id then answers 404 and pages skip it.
    func deleteItem(_ rawID: String, _ request: HTTPRequest, target: RequestTarget) throws(Problem) -> RouteOutcome {
        let list = try Self.listName(request.headers)
        let id = try Self.writeID(rawID)
        let operation = WriteOperation(
            list: list, action: .delete(id), condition: Self.ifMatch(request.headers),
            idempotency: try idempotencyClaim(request, target: target))
        return submit(operation, method: .delete, basePath: target.basePath)
    }

    /// Queues the write and answers once its group is committed (the answer is made where it is taken: on the
    /// loop, not on the committing thread). `basePath` starts the URLs of its body (`/d/<name>`, or none).
    func submit(_ operation: WriteOperation, method: HTTPMethod, basePath: [UInt8]?) -> RouteOutcome {
        let writes = self.writes
        // The closures that cross to the committing thread and back hold the registry, not the coordinator: its
        // committing task's weak reference gives the coordinator a side table, which makes every retain of it a
        // slower one, on a cache line both threads write (about 0.1 µs each, several a write).
        let lists = writes.lists
        let metrics = observability.metrics
        return .pending(
            PendingResponse { respond in
                writes.submit(operation) { outcome in
                    respond {
                        let response = Self.writeResponse(
                            outcome, list: lists.state(of: operation.list), basePath: basePath)
                        if let metrics {
                            let replayed = if case .replayed = outcome { true } else { false }
                            metrics.writes.recordWrite(
                                method: method.name, status: response.status, replayed: replayed)
                        }
                        return response
                    }
                }
            })
    }

    /// The answer to a write's outcome.
    ///
    /// - Parameters:
    ///   - list: The list as it is now, read only to word a 404.
    ///   - basePath: What the URLs of a 2xx body start with (`/d/<name>`, or none). Answers are recorded without
    ///     one, and a replay gets this request's (``rebasedImageURLs(_:basePath:)``; its `Location` is moved where
    ///     the router decorates it), so a retry under a base and one with `X-Dataset` each get their own URLs.
    static func writeResponse(_ outcome: WriteOutcome, list: @autoclosure () -> ListState, basePath: [UInt8]? = nil)
        -> HTTPResponse
    {
        switch outcome {
        case .done(let result):
            return writtenResponse(result, basePath: basePath)
        case .replayed(let recorded):
            guard var response = RecordedAnswer.decode(recorded) else {
                return Problem(.storeUnavailable, detail: "the recorded answer for this key is unreadable").response()
            }
            response.headers.add("Idempotent-Replayed", "true")
            if let basePath { response.body = rebasedImageURLs(response.body, basePath: basePath) }
            return response
        case .rejected(.messageNotFound), .rejected(.messagePreconditionFailed), .rejected(.messageDeleted):
            guard case .rejected(let rejection) = outcome, let response = chatRejectedResponse(rejection) else {
                preconditionFailure("a chat rejection")
            }
            return response
        case .rejected(.notFound(let id)):
            let what = id < list().header.nextID ? "item \(id) was deleted" : "there is no item \(id)"
            return Problem(.notFound, detail: what).response()
        case .rejected(.preconditionFailed(let revision)):
            return Problem(
                .preconditionFailed,
                detail: "If-Match does not match the item's current ETag \(EntityTag(item: revision).headerValue)",
                headers: ["ETag": EntityTag(item: revision).headerValue]
            ).response()
        case .rejected(.imagePreconditionFailed(let revision)):
            let tag = storedImageTag(revision, format: revision.upload?.format ?? .jpeg, list: "").headerValue
            return Problem(
                .preconditionFailed,
                detail: "If-Match or If-None-Match does not match the item's image (its ETag is \(tag), and it "
                    + (revision.upload == nil ? "has no upload)" : "has an upload)"),
                headers: ["ETag": tag]
            ).response()
        case .rejected(.keyReused(let key)):
            return Problem(
                .idempotencyKeyReused,
                detail: "Idempotency-Key \(Problem.quoted(key)) was used with a different request (method, path or "
                    + "body); use a new key for a new request"
            ).response()
        case .rejected(.listFull):
            return Problem(.listFull, detail: "the list has 2^53 ids; no new item fits").response()
        case .rejected(.datasetFull(let limit)):
            return Problem(
                .datasetFull,
                detail:
                    "the list holds as much as \(SettingKey.maxDatasetBytes.name) (\(limit) bytes, both copies in memory "
                    + "counted) allows; delete items with long text, reset it (POST /admin/reset), drop it "
                    + "(DELETE /admin/datasets/<name>), or use another dataset"
            ).response()
        case .rejected(.tooManyDatasets(let limit)):
            return Problem(
                .datasetLimit,
                detail:
                    "\(limit) datasets (\(SettingKey.maxDatasets.name)) have writes already; this write would make one more. "
                    + "Drop finished ones (DELETE /admin/datasets/<name>) or reuse one"
            ).response()
        case .failed(let failure):
            switch failure.kind {
            case .full:
                return Problem(.storeFull, detail: "the disk is full; nothing was written (\(failure.message))")
                    .response()
            case .unavailable:
                return Problem(
                    .storeUnavailable, detail: "the store could not commit; nothing was written (\(failure.message))",
                    headers: ["Retry-After": "1"]
                ).response()
            }
        }
    }

    /// The 2xx answer to a committed write; its `Location` is server-relative, moved under a request's base where
    /// the router decorates the answer, and its body's URLs start with `basePath`.
    static func writtenResponse(_ result: WriteResult, basePath: [UInt8]? = nil) -> HTTPResponse {
        switch result {
        case .created(let item, let revision), .updated(let item, let revision):
            var json = JSONWriter(capacity: estimatedItemBytes)
            json.basePath = basePath
            item.writeJSON(into: &json)
            // Room for the fields `decorate` and the loop add (CORS, Cache-Control, X-Request-Id): one allocation.
            var headers = HTTPHeaders(capacity: 8)
            headers.add("Content-Type", MediaType.json)
            headers.add("ETag", EntityTag(item: revision).headerValue)
            var status = 200
            if case .created = result {
                headers.add("Location", itemPath(item.id))
                status = 201
            }
            var response = HTTPResponse(status: status, headers: headers, body: json.bytes)
            response.note = .listed(lowest: item.id, highest: item.id, count: 1, last: false)  // the client has it
            return response
        case .imageStored(let revision, let created):
            return storedImageResponse(revision, created: created, basePath: basePath)
        case .deleted, .dropped, .grew, .reset, .imageRemoved, .expired:
            return HTTPResponse(status: 204)
        case .messageWritten, .messageDeleted, .readMarked:
            return chatWrittenResponse(result)!
        }
    }

    /// `/items/<id>`, written digit by digit: an interpolation went through `BinaryInteger.description` and two
    /// string appends (about 800 instructions a create, callgrind); up to 15 bytes this is a small string.
    static func itemPath(_ id: UInt64) -> String {
        let prefix: StaticString = "/items/"
        let count = prefix.utf8CodeUnitCount + id.decimalDigitCount
        return String(unsafeUninitializedCapacity: count) { buffer in
            prefix.withUTF8Buffer { for (offset, byte) in $0.enumerated() { buffer[offset] = byte } }
            var span = buffer.mutableSpan
            id.writeDecimal(into: &span, at: prefix.utf8CodeUnitCount)
            return count
        }
    }

    /// The id of a write's path: parsed only; whether it is live is for the coordinator to say (a retried DELETE
    /// with an `Idempotency-Key` gets its first 204, not a 404).
    static func writeID(_ rawID: String) throws(Problem) -> UInt64 {
        guard let id = UInt64(plainDecimal: rawID) else {
            throw Problem(.invalidID, detail: "the item id \(Problem.quoted(rawID)) is not a plain decimal integer")
        }
        return id
    }

    /// The body of a write, parsed: 415 unless `Content-Type` is JSON (or, for PATCH, a JSON merge patch), 400
    /// for anything but one strict JSON value.
    static func jsonBody(_ request: HTTPRequest, patch: Bool) throws(Problem) -> RequestJSON {
        let accepted = patch ? "application/json or application/merge-patch+json" : "application/json"
        guard let contentType = request.headers["Content-Type"] else {
            throw Problem(.unsupportedMediaType, detail: "the body must be \(accepted); Content-Type is missing")
        }
        guard
            mediaType(of: contentType, is: "application/json")
                || (patch && mediaType(of: contentType, is: "application/merge-patch+json"))
        else {
            throw Problem(
                .unsupportedMediaType, detail: "the body must be \(accepted), not \(Problem.quoted(contentType))")
        }
        do {
            return try RequestJSON.parse(request.body, maxDepth: writeBodyDepth)
        } catch {
            throw Problem(.invalidItem, detail: "the body is not valid JSON: \(error.reason) at byte \(error.offset)")
        }
    }

    static func invalidItem(_ error: ItemBodyError) -> Problem {
        Problem(.invalidItem, detail: error.reason)
    }

    /// `If-Match` as a condition on the item's revision; nil without the field.
    static func ifMatch(_ headers: HTTPHeaders) -> (@Sendable (ItemRevision) -> Bool)? {
        guard let value = headers["If-Match"] else { return nil }
        return { revision in EntityTag(item: revision).matches(ifMatch: value) }
    }

    /// The request's `Idempotency-Key` (1–255 visible ASCII), what it asks (method, path and query without the
    /// controls `delay_ms`, `fail`, `fail_rate`, `fail_first`, and body), and how its answer is recorded.
    /// `also`: what else the request's answer depends on (a read marker's client).
    func idempotencyClaim(_ request: HTTPRequest, target: RequestTarget, also: [UInt8] = []) throws(Problem)
        -> IdempotencyClaim?
    {
        guard let key = try Self.idempotencyKey(request.headers) else { return nil }
        // The whole request, not a hash of it: exact, and bodies are small (``SettingKey/maxBodyBytes``).
        var fingerprint = Array((request.method.name + " " + Self.faultResource(target) + "\n").utf8)
        fingerprint += request.body
        if !also.isEmpty { fingerprint += [0] + also }
        return IdempotencyClaim(key: key, fingerprint: fingerprint) { result in
            RecordedAnswer.encode(Self.writtenResponse(result))  // without a base: a replay adds its own
        }
    }

    /// The request's `Idempotency-Key`, checked (1–255 visible ASCII); nil without one.
    static func idempotencyKey(_ headers: HTTPHeaders) throws(Problem) -> String? {
        guard let key = headers["Idempotency-Key"] else { return nil }
        guard (1...255).contains(key.utf8.count), key.utf8.allSatisfy({ $0 >= 0x21 && $0 <= 0x7E }) else {
            throw Problem(
                .invalidHeader,
                detail: "Idempotency-Key must be 1 to 255 visible ASCII characters, got "
                    + Problem.quoted(key))
        }
        return key
    }
}

/// Whether the media type of a `Content-Type` value (before any `;` parameter, without surrounding spaces and tabs)
/// is `expected` (lowercase), ignoring ASCII case.
///
/// On the value's bytes in place, as this runs for every write: through `Substring.UTF8View`s and the generic
/// comparison it took about 1,300 instructions (callgrind), for a 16-byte `application/json`.
private func mediaType(of contentType: String, is expected: StaticString) -> Bool {
    // Over the value's bytes as a span: `withUTF8` on a copy and `withUTF8Buffer` took two closures a write.
    let value = contentType.utf8.span
    var end = 0
    while end < value.count, value[end] != UInt8(ascii: ";") { end &+= 1 }
    var start = 0
    while start < end, value[start] == UInt8(ascii: " ") || value[start] == UInt8(ascii: "\t") { start &+= 1 }
    while end > start, value[end &- 1] == UInt8(ascii: " ") || value[end &- 1] == UInt8(ascii: "\t") { end &-= 1 }
    return HTTPBytes.equalsIgnoringCase(value, start..<end, expected)
}
