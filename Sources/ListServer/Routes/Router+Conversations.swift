import ListDomain

/// `GET /conversations` and `GET /conversations/<id>` (issue 36; the messages: `Router+Messages.swift`): a chat app's
/// two lists, generated per dataset from its seed (``ChatCatalog``), in the envelope `/items`' cursor pages use, each
/// with a strong `ETag` (304 on a match) and the page latency.
extension Router {
    /// The conversations and messages of the dataset `state` is of.
    func chatCatalog(of state: ListState) -> ChatCatalog {
        ChatCatalog(seed: state.header.seed, shape: chat.shape)
    }

    /// `GET /conversations?limit=&after=`: newest activity first.
    /// `{"items":[…],"has_more":B,"next_cursor":"<t>_<id>" or null,"limit":L,"total":N,"version":V}`.
    func conversationsPage(_ target: RequestTarget, headers: HTTPHeaders) throws(Problem) -> HTTPResponse {
        let query = try ChatQuery(target: target, paging: paging, list: .conversations)
        let state = try readableState(of: try Self.listName(headers))
        let live = state.chat(chatShape)
        let chat = live.catalog
        let client = Self.chatReader(headers)
        let cursor = query.conversationCursor
        // 7: a page of conversations (see `EntityTag`).
        let tag = chatTag(
            state, chat, 7, cursor.map { UInt64(bitPattern: $0.updatedAt) } ?? .max, cursor?.id ?? .max, query.limit,
            Self.readerTag(state, client))
        if let notModified = Self.notModified(tag, headers) { return delayed(notModified) }
        let page = live.conversations(after: cursor, limit: query.limit)
        var json = JSONWriter(capacity: 160 + page.ids.count * 600)
        json.append(raw: "{\"items\":[")
        for (index, id) in page.ids.enumerated() {
            if index > 0 { json.append(raw: ",") }
            live.conversation(id, for: client)?.writeJSON(into: &json)
        }
        let next = page.hasMore ? page.ids.last.map { live.key(of: $0) } : nil
        json.append(raw: "],\"has_more\":")
        json.append(raw: page.hasMore ? "true" : "false")
        json.append(raw: ",\"next_cursor\":")
        if let next { json.append(string: next.text) } else { json.appendNull() }
        json.appendEnvelopeEnd(limit: query.limit, total: chat.conversationCount, version: state.header.version)
        var fields = HTTPHeaders(capacity: 8)
        fields.add("Content-Type", MediaType.json)
        fields.add("X-Total-Count", String(chat.conversationCount))
        fields.add("ETag", tag.headerValue)
        if let next { fields.add("Link", "</conversations?after=\(next.text)&limit=\(query.limit)>; rel=\"next\"") }
        return delayed(HTTPResponse(status: 200, headers: fields, body: json.bytes))
    }

    /// `GET /conversations/<id>`: one conversation, as the list shows it.
    func conversationResponse(_ rawID: String, headers: HTTPHeaders) throws(Problem) -> HTTPResponse {
        let state = try readableState(of: try Self.listName(headers))
        let live = state.chat(chatShape)
        let id = try conversationID(rawID, in: live.catalog)
        let client = Self.chatReader(headers)
        // 8: a conversation (see `EntityTag`).
        let tag = chatTag(state, live.catalog, 8, id, Self.readerTag(state, client))
        if let notModified = Self.notModified(tag, headers) { return notModified }
        var json = JSONWriter(capacity: 600)
        live.conversation(id, for: client)?.writeJSON(into: &json)
        return HTTPResponse(
            status: 200, headers: ["Content-Type": MediaType.json, "ETag": tag.headerValue], body: json.bytes)
    }

    /// The tag of a chat representation of `kind` with `inputs`: the dataset's version and seed, the chat settings,
    /// the texts' format.
    func chatTag(_ state: ListState, _ chat: ChatCatalog, _ kind: UInt64, _ inputs: UInt64...) -> EntityTag {
        var tag = EntityTag(
            version: state.header.version, chat.seed, chat.conversationCount, chat.messagesPerConversation,
            ChatText.format, kind)
        for input in inputs { tag = tag.adding(input) }
        return tag
    }

    /// What a conversation's representation depends on for one reader: the chat's writes, and, once any client set
    /// a read marker, which client asks (its `unread` counts are its own).
    private static func readerTag(_ state: ListState, _ client: String) -> UInt64 {
        guard !state.chat.isEmpty else { return 0 }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325 ^ state.chat.revision
        if !state.chat.readMarkers.isEmpty {
            for byte in client.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        }
        return hash
    }

    /// `response`, held for the page latency as a page of items is.
    func delayed(_ response: HTTPResponse) -> HTTPResponse {
        var response = response
        response.delay = service.pageLatency
        return response
    }

    /// The conversation id in a `/conversations/<id>…` path: 400 `invalid-id` for anything but a plain decimal
    /// integer, 404 past the end.
    func conversationID(_ rawID: String, in chat: ChatCatalog) throws(Problem) -> UInt64 {
        let count = chat.conversationCount
        // Made only for a problem (on every page of messages it was some 0.5 % of the CPU).
        var range: String { count == 0 ? "there are none" : "ids run from 0 to \(count - 1)" }
        guard let id = UInt64(plainDecimal: rawID) else {
            throw Problem(
                .invalidID,
                detail: "the conversation id \(Problem.quoted(rawID)) is not a plain decimal integer "
                    + "that fits 64 bits (\(range))")
        }
        guard id < count else { throw Problem(.notFound, detail: "there is no conversation \(id) (\(range))") }
        return id
    }
}
