package import ListDomain

/// How changes go on the wire: as JSON objects in `/items/changes`, and as Server-Sent Events in `/items/events`.
extension Change {
    /// `{"sequence":S,"kind":"created","item":{…}}`; `deleted` carries `"id"`, `reset` carries
    /// `"version"`, `"seed"` and `"count"`, the `message.*` kinds `"message"`, `read` `"conversation"`, `"client"`
    /// and `"up_to"`, `conversation.updated` `"conversation"` (`{"id","updated_at","message_count"}`).
    package func writeJSON(into json: inout JSONWriter) {
        json.append(raw: "{\"sequence\":")
        json.append(integer: sequence)
        json.append(raw: ",\"kind\":")
        json.append(string: event.kind)
        switch event {
        case .created(let item), .updated(let item):
            json.append(raw: ",\"item\":")
            item.writeJSON(into: &json)
        case .deleted(let id):
            json.append(raw: ",\"id\":")
            json.append(integer: id)
        case .reset(let reset):
            json.append(raw: ",")
            Self.appendResetFields(reset, into: &json)
        case .message(let change):
            json.append(raw: ",\"message\":")
            change.message.writeJSON(into: &json)
        case .read(let read):
            json.append(raw: ",")
            Self.appendReadFields(read, into: &json)
        case .conversation(let moved):
            json.append(raw: ",\"conversation\":")
            Self.writeConversation(moved, into: &json)
        }
        json.append(raw: "}")
    }

    /// The event's `data:`: the item for `created` and `updated`, `{"id":N}` for `deleted`,
    /// `{"version":V,"seed":S,"count":N}` for `reset`, the message for the `message.*` kinds,
    /// `{"conversation":C,"client":"…","up_to":N}` for `read`, `{"id":C,"updated_at":"…","message_count":N}` for
    /// `conversation.updated`.
    package func writeEventData(into json: inout JSONWriter) {
        switch event {
        case .created(let item), .updated(let item):
            item.writeJSON(into: &json)
        case .deleted(let id):
            json.append(raw: "{\"id\":")
            json.append(integer: id)
            json.append(raw: "}")
        case .reset(let reset):
            json.append(raw: "{")
            Self.appendResetFields(reset, into: &json)
            json.append(raw: "}")
        case .message(let change):
            change.message.writeJSON(into: &json)
        case .read(let read):
            json.append(raw: "{")
            Self.appendReadFields(read, into: &json)
            json.append(raw: "}")
        case .conversation(let moved):
            Self.writeConversation(moved, into: &json)
        }
    }

    /// `{"id":C,"updated_at":"…","message_count":N}`.
    private static func writeConversation(_ moved: ConversationChange, into json: inout JSONWriter) {
        json.append(raw: "{\"id\":")
        json.append(integer: moved.id)
        json.append(raw: ",\"updated_at\":")
        json.append(string: ChatTime.rfc3339(moved.updatedAt))
        json.append(raw: ",\"message_count\":")
        json.append(integer: moved.messageCount)
        json.append(raw: "}")
    }

    /// One Server-Sent Event: `event: <kind>\nid: <sequence>\ndata: <json>\n\n` (the JSON is one line).
    package var serverSentEvent: [UInt8] { serverSentEvent(basePath: nil) }

    /// ``serverSentEvent`` for a stream opened under `/d/<name>`: the item's URLs start with `basePath`.
    package func serverSentEvent(basePath: [UInt8]?) -> [UInt8] {
        var bytes = Array("event: \(event.kind)\nid: \(sequence)\ndata: ".utf8)
        var json = JSONWriter(capacity: 224)
        json.basePath = basePath
        writeEventData(into: &json)
        bytes += json.bytes
        bytes += Array("\n\n".utf8)
        return bytes
    }

    /// One WebSocket message: the change's JSON as `/items/changes` has it (``writeJSON(into:)``), with its
    /// `sequence` and `kind`; under `/d/<name>`, the item's URLs start with `basePath`.
    package func webSocketMessage(basePath: [UInt8]?) -> [UInt8] {
        var json = JSONWriter(capacity: 256)
        json.basePath = basePath
        writeJSON(into: &json)
        return json.bytes
    }

    private static func appendReadFields(_ read: ReadChange, into json: inout JSONWriter) {
        json.append(raw: "\"conversation\":")
        json.append(integer: read.key.conversation)
        json.append(raw: ",\"client\":")
        json.append(string: read.key.client)
        json.append(raw: ",\"up_to\":")
        json.append(integer: read.upTo)
    }

    private static func appendResetFields(_ reset: ListReset, into json: inout JSONWriter) {
        json.append(raw: "\"version\":")
        json.append(integer: reset.version)
        json.append(raw: ",\"seed\":")
        json.append(integer: reset.seed)
        json.append(raw: ",\"count\":")
        json.append(integer: reset.count)
    }
}
