import ListDomain

/// `GET /conversations/<id>/messages` (issue 36): a conversation's messages, a cursor page or the window around one.
extension Router {
    /// `GET /conversations/<id>/messages`: a cursor page of its messages (`after`, `before`, `order`, `limit`, as
    /// `/items` has them), or the window `around` one. The envelope is `/items`' cursor page's, with `conversation`;
    /// a window adds `around`, `has_more_before`, `has_more_after`, `before_cursor` and `after_cursor`.
    ///
    /// Written as bytes throughout, the `Link` too: a page of messages is held to the CPU of a page of items
    /// (issue 36, `Benchmarks/chat/pages.sh`), where the path and links made by string interpolation were some 3 %.
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
        let order = query.order
        let descending: UInt64 = order == .asc ? 0 : 1
        let shape: MessagesShape
        let tag: EntityTag
        if let around = query.around {
            guard around < total else {
                throw Problem(
                    .notFound,
                    detail: "conversation \(conversation) has no message \(around) (ids run from 0 to \(total - 1))")
            }
            shape = .window(MessageWindow(around: around, order: order, limit: query.limit, total: total))
            // 10: a window of messages (see `EntityTag`).
            tag = chatTag(state, chat, 10, conversation, around, descending, query.limit, writesTag)
        } else {
            shape = .page(CursorPage(cursor: query.cursor, order: order, limit: query.limit, total: total))
            let (kind, cursorID): (UInt64, UInt64) =
                switch query.cursor {
                case .start: (0, 0)
                case .after(let id): (1, id)
                case .before(let id): (2, id)
                }
            // 9: a page of messages by cursor (see `EntityTag`).
            tag = chatTag(state, chat, 9, conversation, kind, cursorID, descending, query.limit, writesTag)
        }
        if let notModified = Self.notModified(tag, headers) { return delayed(notModified) }
        var json = JSONWriter(capacity: 256 + Int(query.limit) * 400)
        json.append(raw: "{\"items\":[")
        var first = true
        var days = ChatTime.Days()
        for id in shape.ids {
            if !first { json.append(raw: ",") }
            first = false
            if let message = written?.messages[id] {
                message.message(id, in: conversation).writeJSON(into: &json)
            } else if id < thread.count {
                thread.writeMessage(id, days: &days, into: &json)
            } else if let gap = state.chat(chatShape).gap(id, in: conversation) {
                gap.writeJSON(into: &json)  // sent under a longer conversation setting (ChatState.gap)
            } else {
                json.appendNull()
            }
        }
        shape.writeEnvelope(into: &json)
        json.append(raw: ",\"conversation\":")
        json.append(integer: conversation)
        json.append(raw: ",\"order\":\"")
        json.append(raw: order == .asc ? "asc\"" : "desc\"")
        json.appendEnvelopeEnd(limit: query.limit, total: total, version: state.header.version)
        var fields = HTTPHeaders(capacity: 8)
        fields.add("Content-Type", MediaType.json)
        fields.add("X-Total-Count", String(total))
        fields.add("ETag", tag.headerValue)
        if let link = shape.link(conversation: conversation, order: order, limit: query.limit) {
            fields.add("Link", link)
        }
        return delayed(HTTPResponse(status: 200, headers: fields, body: json.bytes))
    }
}

/// What a page of messages is: a cursor page, or the window around a message.
private enum MessagesShape {
    case page(CursorPage)
    case window(MessageWindow)

    /// The ids in list order.
    var ids: CursorPage.IDs {
        switch self {
        case .page(let page): page.ids
        case .window(let window): window.ids
        }
    }

    /// The envelope's fields after the items: `"],"has_more":…,"next_cursor":…`, and a window's own before them.
    func writeEnvelope(into json: inout JSONWriter) {
        switch self {
        case .page(let page):
            json.append(raw: "],\"has_more\":")
            json.append(raw: page.hasMore ? "true" : "false")
            json.append(raw: ",\"next_cursor\":")
            json.append(optional: page.nextCursor)
        case .window(let window):
            json.append(raw: "],\"around\":")
            json.append(integer: window.around)
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
    }

    /// The RFC 8288 `Link` value: a page's `next` (`before=` for a page going that way), a window's `prev` and
    /// `next`; nil when there is none. `</conversations/0/messages?after=19&order=asc&limit=20>; rel="next"`.
    func link(conversation: UInt64, order: ListOrder, limit: UInt64) -> String? {
        var value = JSONWriter(capacity: 192)
        switch self {
        case .page(let page):
            guard page.hasMore, let next = page.nextCursor else { return nil }
            let before = if case .before = page.cursor { true } else { false }
            Self.appendLink(
                to: &value, conversation: conversation, parameter: before ? "before=" : "after=", id: next,
                order: order, limit: limit, rel: "next")
        case .window(let window):
            if window.hasMoreBefore, let cursor = window.beforeCursor {
                Self.appendLink(
                    to: &value, conversation: conversation, parameter: "before=", id: cursor, order: order,
                    limit: limit, rel: "prev")
            }
            if window.hasMoreAfter, let cursor = window.afterCursor {
                if value.count > 0 { value.append(raw: ", ") }
                Self.appendLink(
                    to: &value, conversation: conversation, parameter: "after=", id: cursor, order: order,
                    limit: limit, rel: "next")
            }
            guard value.count > 0 else { return nil }
        }
        return String(decoding: value.bytes, as: UTF8.self)
    }

    private static func appendLink(
        to value: inout JSONWriter, conversation: UInt64, parameter: StaticString, id: UInt64, order: ListOrder,
        limit: UInt64, rel: StaticString
    ) {
        value.append(raw: "</conversations/")
        value.append(integer: conversation)
        value.append(raw: "/messages?")
        value.append(raw: parameter)
        value.append(integer: id)
        value.append(raw: order == .asc ? "&order=asc&limit=" : "&order=desc&limit=")
        value.append(integer: limit)
        value.append(raw: ">; rel=\"")
        value.append(raw: rel)
        value.append(raw: "\"")
    }
}
