import ListDomain

/// The chat's writes (issue 36): `POST /conversations/<id>/messages`, `PATCH` and `DELETE
/// /conversations/<id>/messages/<mid>`, `POST /conversations/<id>/read`, and `GET …/messages/<mid>` with the tag
/// `If-Match` takes. Checked here, committed by the ``WriteCoordinator`` as the item writes are (the same group
/// commits, `Idempotency-Key`s and change feed), answered once durable.
extension Router {
    /// The chat settings as the domain takes them.
    var chatShape: ChatCatalog.Shape { chat.shape }

    /// `POST /conversations/<id>/messages` `{"text":"…","reply_to":N}`: a message from the app's user at the end;
    /// 201 with `Location`, `ETag` and the message.
    func sendMessage(_ rawID: String, _ request: HTTPRequest, target: RequestTarget) throws(Problem) -> RouteOutcome {
        let list = try Self.listName(request.headers)
        let conversation = try conversationID(rawID, in: ChatCatalog(seed: 0, shape: chatShape))
        let body = try MessageBody.send(try Self.jsonBody(request, patch: false))
        let operation = WriteOperation(
            list: list,
            action: .sendMessage(
                chatShape, conversation: conversation, text: body.text, replyTo: body.replyTo,
                at: WallTime.now().milliseconds),
            idempotency: try idempotencyClaim(request, target: target))
        return submit(operation, method: .post, basePath: target.basePath)
    }

    /// `PATCH /conversations/<id>/messages/<mid>` `{"text":"…"}`: 200 with the message and its new `ETag`.
    func editMessage(_ rawID: String, _ rawMessage: String, _ request: HTTPRequest, target: RequestTarget)
        throws(Problem) -> RouteOutcome
    {
        let list = try Self.listName(request.headers)
        let key = try messageKey(rawID, rawMessage)
        let text = try MessageBody.edit(try Self.jsonBody(request, patch: true))
        let operation = WriteOperation(
            list: list, action: .editMessage(chatShape, key, text: text, at: WallTime.now().milliseconds),
            messageCondition: Self.messageIfMatch(request.headers),
            idempotency: try idempotencyClaim(request, target: target))
        return submit(operation, method: .patch, basePath: target.basePath)
    }

    /// `DELETE /conversations/<id>/messages/<mid>`: 204; the message stays in its place as a tombstone.
    func deleteMessage(_ rawID: String, _ rawMessage: String, _ request: HTTPRequest, target: RequestTarget)
        throws(Problem) -> RouteOutcome
    {
        let list = try Self.listName(request.headers)
        let key = try messageKey(rawID, rawMessage)
        let operation = WriteOperation(
            list: list, action: .deleteMessage(chatShape, key), messageCondition: Self.messageIfMatch(request.headers),
            idempotency: try idempotencyClaim(request, target: target))
        return submit(operation, method: .delete, basePath: target.basePath)
    }

    /// `POST /conversations/<id>/read` `{"up_to":N}`: the read marker of the caller (its `X-Client-Id`, or none);
    /// 200 `{"conversation":C,"up_to":N,"unread":U}`.
    func markRead(_ rawID: String, _ request: HTTPRequest, target: RequestTarget) throws(Problem) -> RouteOutcome {
        let list = try Self.listName(request.headers)
        let conversation = try conversationID(rawID, in: ChatCatalog(seed: 0, shape: chatShape))
        let upTo = try MessageBody.read(try Self.jsonBody(request, patch: false))
        let key = ReadMarkerKey(conversation: conversation, client: try Self.chatClient(request.headers))
        // The marker is the caller's: the same key and body from another client is another request.
        let operation = WriteOperation(
            list: list, action: .markRead(chatShape, key, upTo: upTo),
            idempotency: try idempotencyClaim(request, target: target, also: Array(key.client.utf8)))
        return submit(operation, method: .post, basePath: target.basePath)
    }

    /// `GET /conversations/<id>/messages/<mid>`: the message as it stands (a tombstone if deleted), with the
    /// `ETag` `If-Match` takes; 304 on a match.
    func messageResponse(_ rawID: String, _ rawMessage: String, headers: HTTPHeaders) throws(Problem) -> HTTPResponse {
        let state = try readableState(of: try Self.listName(headers))
        let key = try messageKey(rawID, rawMessage)
        guard let message = state.chat(chatShape).message(key.id, in: key.conversation) else {
            throw Problem(.notFound, detail: "conversation \(key.conversation) has no message \(key.id)")
        }
        let tag = EntityTag(message: state.messageRevision(key, chatShape))
        if let notModified = Self.notModified(tag, headers) { return notModified }
        var json = JSONWriter(capacity: 512)
        message.writeJSON(into: &json)
        return HTTPResponse(
            status: 200, headers: ["Content-Type": MediaType.json, "ETag": tag.headerValue], body: json.bytes)
    }

    /// The conversation and message of a `/conversations/<id>/messages/<mid>` path: 400 for ids that are not plain
    /// decimal integers, 404 for a conversation past the end (the message is looked up where it is read or
    /// written).
    private func messageKey(_ rawID: String, _ rawMessage: String) throws(Problem) -> MessageKey {
        let conversation = try conversationID(rawID, in: ChatCatalog(seed: 0, shape: chatShape))
        guard let id = UInt64(plainDecimal: rawMessage) else {
            throw Problem(
                .invalidID, detail: "the message id \(Problem.quoted(rawMessage)) is not a plain decimal integer")
        }
        return MessageKey(conversation: conversation, id: id)
    }

    /// The client whose read markers a read shows: its `X-Client-Id`, "" without one (a longer id than a marker
    /// takes simply has none).
    static func chatReader(_ headers: HTTPHeaders) -> String {
        headers["X-Client-Id"] ?? ""
    }

    /// The client a read marker belongs to: its `X-Client-Id` (at most 128 bytes), "" without one.
    static func chatClient(_ headers: HTTPHeaders) throws(Problem) -> String {
        let client = headers["X-Client-Id"] ?? ""
        guard client.utf8.count <= 128 else {
            throw Problem(.invalidHeader, detail: "X-Client-Id must be at most 128 bytes to set a read marker")
        }
        return client
    }

    /// `If-Match` as a condition on a message's revision; nil without the field.
    static func messageIfMatch(_ headers: HTTPHeaders) -> (@Sendable (MessageRevision) -> Bool)? {
        guard let value = headers["If-Match"] else { return nil }
        return { revision in EntityTag(message: revision).matches(ifMatch: value) }
    }

    /// The 2xx answer to a committed chat write.
    static func chatWrittenResponse(_ result: WriteResult) -> HTTPResponse? {
        switch result {
        case .messageWritten(let message, let revision, let created):
            var json = JSONWriter(capacity: 512)
            message.writeJSON(into: &json)
            var headers = HTTPHeaders(capacity: 8)
            headers.add("Content-Type", MediaType.json)
            headers.add("ETag", EntityTag(message: revision).headerValue)
            if created { headers.add("Location", "/conversations/\(message.conversation)/messages/\(message.id)") }
            return HTTPResponse(status: created ? 201 : 200, headers: headers, body: json.bytes)
        case .messageDeleted:
            return HTTPResponse(status: 204)
        case .readMarked(let key, let upTo, let unread):
            var json = JSONWriter(capacity: 96)
            json.append(raw: "{\"conversation\":")
            json.append(integer: key.conversation)
            json.append(raw: ",\"up_to\":")
            json.append(integer: upTo)
            json.append(raw: ",\"unread\":")
            json.append(integer: unread)
            json.append(raw: "}")
            return HTTPResponse(status: 200, headers: ["Content-Type": MediaType.json], body: json.bytes)
        default:
            return nil
        }
    }

    /// The answer to a refused chat write; nil for another refusal.
    static func chatRejectedResponse(_ rejection: WriteRejection) -> HTTPResponse? {
        switch rejection {
        case .messageNotFound(let key, let replyTo):
            let what =
                replyTo
                ? "reply_to names no earlier message of conversation \(key.conversation) (\(key.id))"
                : "conversation \(key.conversation) has no message \(key.id)"
            return Problem(replyTo ? .invalidBody : .notFound, detail: what).response()
        case .messageDeleted(let key):
            return Problem(.notFound, detail: "message \(key.id) of conversation \(key.conversation) was deleted")
                .response()
        case .messagePreconditionFailed(let revision):
            let tag = EntityTag(message: revision).headerValue
            return Problem(
                .preconditionFailed, detail: "If-Match does not match the message's current ETag \(tag)",
                headers: ["ETag": tag]
            ).response()
        default:
            return nil
        }
    }
}

extension EntityTag {
    /// The tag of one message: the list's version and seed, the chat settings, the texts' format and the message's
    /// revision.
    init(message revision: MessageRevision) {
        // 11: `/conversations/<id>/messages/<mid>` (see the chat's tags in Router+Conversations.swift).
        self.init(
            version: revision.version, revision.seed, revision.shape.conversations,
            revision.shape.messagesPerConversation, ChatText.format, 11, revision.key.conversation, revision.key.id,
            revision.revision)
    }
}
