import ListDomain

/// `GET /conversations`, `GET /conversations/<id>` and `GET /conversations/<id>/messages` (issue 36): a chat app's
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

    /// `GET /conversations/<id>/messages`: a cursor page of its messages (`after`, `before`, `order`, `limit`, as
    /// `/items` has them), or the window `around` one. The envelope is `/items`' cursor page's, with `conversation`;
    /// a window adds `around`, `has_more_before`, `has_more_after`, `before_cursor` and `after_cursor`.
    func messagesPage(_ rawID: String, target: RequestTarget, headers: HTTPHeaders) throws(Problem) -> HTTPResponse {
        let query = try ChatQuery(target: target, paging: paging, list: .messages)
        let state = try readableState(of: try Self.listName(headers))
        let chat = chatCatalog(of: state)
        let conversation = try conversationID(rawID, in: chat)
        let thread = chat.thread(conversation)
        // Messages sent, edited or deleted in the conversation: the written ones are written from these.
        let written = state.chat.threads[conversation]
        let total = written?.count(generated: thread.count) ?? thread.count
        let writesTag = written.map { $0.revision } ?? 0
        let path = "/conversations/\(conversation)/messages"
        let order = query.order
        let ids: CursorPage.IDs
        var links: [String] = []
        var json = JSONWriter(capacity: 256 + Int(query.limit) * 400)
        let tag: EntityTag
        let envelope: (inout JSONWriter) -> Void
        if let around = query.around {
            guard around < total else {
                throw Problem(
                    .notFound,
                    detail: "conversation \(conversation) has no message \(around) (ids run from 0 to \(total - 1))")
            }
            let window = MessageWindow(around: around, order: order, limit: query.limit, total: total)
            // 10: a window of messages (see `EntityTag`).
            tag = chatTag(state, chat, 10, conversation, around, order == .asc ? 0 : 1, query.limit, writesTag)
            ids = window.ids
            if window.hasMoreBefore, let cursor = window.beforeCursor {
                links.append("<\(path)?before=\(cursor)&order=\(order.rawValue)&limit=\(query.limit)>; rel=\"prev\"")
            }
            if window.hasMoreAfter, let cursor = window.afterCursor {
                links.append("<\(path)?after=\(cursor)&order=\(order.rawValue)&limit=\(query.limit)>; rel=\"next\"")
            }
            envelope = { json in
                json.append(raw: "],\"around\":")
                json.append(integer: around)
                json.append(raw: ",\"has_more_before\":")
                json.append(raw: window.hasMoreBefore ? "true" : "false")
                json.append(raw: ",\"has_more_after\":")
                json.append(raw: window.hasMoreAfter ? "true" : "false")
                json.append(raw: ",\"before_cursor\":")
                json.append(optional: window.beforeCursor)
                json.append(raw: ",\"after_cursor\":")
                json.append(optional: window.afterCursor)
                // `/items`' names too: has_more and next_cursor continue after the window, as `after=` does (at the
                // newest end too, where a client polls from it for new messages).
                json.append(raw: ",\"has_more\":")
                json.append(raw: window.hasMoreAfter ? "true" : "false")
                json.append(raw: ",\"next_cursor\":")
                json.append(optional: window.afterCursor)
            }
        } else {
            let page = CursorPage(cursor: query.cursor, order: order, limit: query.limit, total: total)
            let (kind, cursorID): (UInt64, UInt64) =
                switch query.cursor {
                case .start: (0, 0)
                case .after(let id): (1, id)
                case .before(let id): (2, id)
                }
            // 9: a page of messages by cursor (see `EntityTag`).
            tag = chatTag(
                state, chat, 9, conversation, kind, cursorID, order == .asc ? 0 : 1, query.limit, writesTag)
            ids = page.ids
            if page.hasMore, let next = page.nextCursor {
                let parameter = if case .before = query.cursor { "before" } else { "after" }
                links.append(
                    "<\(path)?\(parameter)=\(next)&order=\(order.rawValue)&limit=\(query.limit)>; rel=\"next\"")
            }
            envelope = { json in
                json.append(raw: "],\"has_more\":")
                json.append(raw: page.hasMore ? "true" : "false")
                json.append(raw: ",\"next_cursor\":")
                json.append(optional: page.nextCursor)
            }
        }
        if let notModified = Self.notModified(tag, headers) { return delayed(notModified) }
        json.append(raw: "{\"items\":[")
        var first = true
        var scratch: [UInt8] = []
        scratch.reserveCapacity(1024)
        for id in ids {
            if !first { json.append(raw: ",") }
            first = false
            if let message = written?.messages[id] {
                message.message(id, in: conversation).writeJSON(into: &json)
            } else if id < thread.count {
                thread.writeMessage(id, scratch: &scratch, into: &json)
            } else if let gap = state.chat(chatShape).gap(id, in: conversation) {
                gap.writeJSON(into: &json)  // sent under a longer conversation setting (ChatState.gap)
            } else {
                json.appendNull()
            }
        }
        envelope(&json)
        json.append(raw: ",\"conversation\":")
        json.append(integer: conversation)
        json.append(raw: ",\"order\":\"")
        json.append(raw: order == .asc ? "asc\"" : "desc\"")
        json.appendEnvelopeEnd(limit: query.limit, total: total, version: state.header.version)
        var fields = HTTPHeaders(capacity: 8)
        fields.add("Content-Type", MediaType.json)
        fields.add("X-Total-Count", String(total))
        fields.add("ETag", tag.headerValue)
        if !links.isEmpty { fields.add("Link", links.joined(separator: ", ")) }
        return delayed(HTTPResponse(status: 200, headers: fields, body: json.bytes))
    }

    /// The tag of a chat representation of `kind` with `inputs`: the dataset's version and seed, the chat settings.
    private func chatTag(_ state: ListState, _ chat: ChatCatalog, _ kind: UInt64, _ inputs: UInt64...) -> EntityTag {
        var tag = EntityTag(
            version: state.header.version, chat.seed, chat.conversationCount, chat.messagesPerConversation, kind)
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
    private func delayed(_ response: HTTPResponse) -> HTTPResponse {
        var response = response
        response.delay = service.pageLatency
        return response
    }

    /// The conversation id in a `/conversations/<id>…` path: 400 `invalid-id` for anything but a plain decimal
    /// integer, 404 past the end.
    func conversationID(_ rawID: String, in chat: ChatCatalog) throws(Problem) -> UInt64 {
        let count = chat.conversationCount
        let range = count == 0 ? "there are none" : "ids run from 0 to \(count - 1)"
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
