package import ListDomain

/// How conversations and messages are written on the wire (issue 36).
extension Message {
    /// `{"id":5,"conversation":0,"author":"Chen Wei","author_id":7,"text":"…","sent_at":"2026-…Z","edited_at":null,
    /// "reply_to":2}`; a deleted one (a tombstone: `"text":""`) ends with `"deleted":true`.
    func writeJSON(into json: inout JSONWriter) {
        json.append(raw: "{\"id\":")
        json.append(integer: id)
        json.append(raw: ",\"conversation\":")
        json.append(integer: conversation)
        json.append(raw: ",\"author\":")
        json.append(string: author)
        json.append(raw: ",\"author_id\":")
        json.append(integer: authorIndex)
        json.append(raw: ",\"text\":")
        json.append(string: text)
        json.append(raw: ",\"sent_at\":")
        json.append(string: ChatTime.rfc3339(sentAt))
        json.append(raw: ",\"edited_at\":")
        if let editedAt { json.append(string: ChatTime.rfc3339(editedAt)) } else { json.appendNull() }
        json.append(raw: ",\"reply_to\":")
        if let replyTo { json.append(integer: replyTo) } else { json.appendNull() }
        json.append(raw: deleted ? ",\"deleted\":true}" : "}")
    }

    /// The first ``previewCharacters`` characters of the text, and `…` when there is more: what a conversation list
    /// shows of its last message.
    var preview: String {
        guard text.count > Self.previewCharacters else { return text }
        return String(text.prefix(Self.previewCharacters)) + "…"
    }

    static let previewCharacters = 100
}

extension ChatCatalog.Thread {
    /// Writes message `id` as ``Message/writeJSON(into:)`` does, byte for byte (`ChatJSONTests`), from its fields:
    /// its text and times are written straight into the page's buffer, with no `String` made (a page built from
    /// ``Message`` values took three times the CPU of a page of items), the times' dates kept in `days` from one
    /// message to the next. `null` past the end.
    package func writeMessage(_ id: UInt64, days: inout ChatTime.Days, into json: inout JSONWriter) {
        guard let fields = fields(of: id) else {
            json.appendNull()
            return
        }
        // Room for the largest message once, then every field written into it without a check of its own, as an
        // item is (`Catalog.writeItem`): a check an append was a tenth of the page's own work (`ListBenchmarks`).
        json.reserve(Self.maximumMessageBytes)
        json.appendReserved(raw: "{\"id\":")
        json.appendReserved(integer: id)
        json.appendReserved(raw: ",\"conversation\":")
        json.appendReserved(integer: conversation)
        json.appendReserved(raw: ",\"author\":")
        json.append(atMost: AuthorTable.maximumEncodedCount + PackedText.slack) { bytes in
            AuthorTable.packed.write(fields.authorIndex, into: &bytes, at: 0)
        }
        json.appendReserved(raw: ",\"author_id\":")
        json.appendReserved(integer: fields.authorIndex)
        json.appendReserved(raw: ",\"text\":\"")
        json.append(atMost: ChatText.maximumBytes) { bytes in
            writeText(of: id, into: &bytes, at: 0)  // no character JSON escapes (ChatText)
        }
        json.appendReserved(raw: "\",\"sent_at\":")
        Self.writeTime(fields.sentAt, days: &days, into: &json)
        switch (fields.editedAt, fields.replyTo) {
        case (nil, nil):
            json.appendReserved(raw: ",\"edited_at\":null,\"reply_to\":null}")  // most messages
        case (let editedAt, let replyTo):
            json.appendReserved(raw: ",\"edited_at\":")
            if let editedAt {
                Self.writeTime(editedAt, days: &days, into: &json)
            } else {
                json.appendReserved(raw: "null")
            }
            json.appendReserved(raw: ",\"reply_to\":")
            if let replyTo { json.appendReserved(integer: replyTo) } else { json.appendReserved(raw: "null") }
            json.appendReserved(raw: "}")
        }
    }

    /// At least the bytes of the largest message ``writeMessage(_:days:into:)`` writes: 110 of literals, four
    /// integers of up to 20 digits, the longest author and text, and two times with their quotes, rounded up.
    static let maximumMessageBytes =
        256 + AuthorTable.maximumEncodedCount + PackedText.slack + ChatText.maximumBytes + 2 * (ChatTime.byteCount + 2)

    /// `"2026-09-21T14:13:20Z"`, the date from `days` when it is the day last written.
    private static func writeTime(_ millis: Int64, days: inout ChatTime.Days, into json: inout JSONWriter) {
        json.append(atMost: ChatTime.byteCount + 2) { bytes in
            let quote = UInt8(ascii: "\"")
            bytes.storeBytes(of: quote, toByteOffset: 0, as: UInt8.self)
            let end = ChatTime.write(millis, days: &days, into: &bytes, at: 1)
            bytes.storeBytes(of: quote, toByteOffset: end, as: UInt8.self)
            return end + 1
        }
    }
}

extension Conversation {
    /// `{"id":0,"title":"…","participants":[{"id":7,"name":"Chen Wei"},…],"message_count":10000,"unread":3,
    /// "updated_at":"…","last_message":{"id":9999,"author":"…","author_id":7,"text":"<preview>","sent_at":"…"}}`.
    func writeJSON(into json: inout JSONWriter) {
        json.append(raw: "{\"id\":")
        json.append(integer: id)
        json.append(raw: ",\"title\":")
        json.append(string: title)
        json.append(raw: ",\"participants\":[")
        for (index, person) in participants.enumerated() {
            json.append(raw: index == 0 ? "{\"id\":" : ",{\"id\":")
            json.append(integer: person)
            json.append(raw: ",\"name\":")
            json.append(string: AuthorTable.names[person])
            json.append(raw: "}")
        }
        json.append(raw: "],\"message_count\":")
        json.append(integer: messageCount)
        json.append(raw: ",\"unread\":")
        json.append(integer: unread)
        json.append(raw: ",\"updated_at\":")
        json.append(string: ChatTime.rfc3339(updatedAt))
        json.append(raw: ",\"last_message\":")
        if let lastMessage {
            json.append(raw: "{\"id\":")
            json.append(integer: lastMessage.id)
            json.append(raw: ",\"author\":")
            json.append(string: lastMessage.author)
            json.append(raw: ",\"author_id\":")
            json.append(integer: lastMessage.authorIndex)
            json.append(raw: ",\"text\":")
            json.append(string: lastMessage.preview)
            json.append(raw: ",\"sent_at\":")
            json.append(string: ChatTime.rfc3339(lastMessage.sentAt))
            json.append(raw: lastMessage.deleted ? ",\"deleted\":true}" : "}")
        } else {
            json.appendNull()
        }
        json.append(raw: "}")
    }
}
