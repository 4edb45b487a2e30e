import ListDomain

/// How conversations and messages are written on the wire (issue 36).
extension Message {
    /// `{"id":5,"conversation":0,"author":"Chen Wei","author_id":7,"text":"…","sent_at":"2026-…Z","edited_at":null,
    /// "reply_to":2}`.
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
        json.append(raw: "}")
    }

    /// The first ``previewCharacters`` characters of the text, and `…` when there is more: what a conversation list
    /// shows of its last message.
    var preview: String {
        guard text.count > Self.previewCharacters else { return text }
        return String(text.prefix(Self.previewCharacters)) + "…"
    }

    static let previewCharacters = 100
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
            json.append(raw: "}")
        } else {
            json.appendNull()
        }
        json.append(raw: "}")
    }
}
