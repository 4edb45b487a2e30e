package import ListDomain

/// How a typing signal goes on the wire: an event with no `id:` on a stream of Server-Sent Events (it is never
/// replayed), a message with `"kind":"typing"` and no `sequence` on a WebSocket.
extension TypingSignal {
    /// `event: typing\ndata: {"conversation":C,"author":"…","author_id":A,"client":"…","duration_ms":N}\n\n`.
    package var serverSentEvent: [UInt8] {
        var json = JSONWriter(capacity: 128)
        json.append(raw: "{")
        writeFields(into: &json)
        return Array("event: typing\ndata: ".utf8) + json.bytes + Array("}\n\n".utf8)
    }

    /// `{"kind":"typing","conversation":C,"author":"…","author_id":A,"client":"…","duration_ms":N}`.
    package var webSocketMessage: [UInt8] {
        var json = JSONWriter(capacity: 128)
        json.append(raw: "{\"kind\":\"typing\",")
        writeFields(into: &json)
        json.append(raw: "}")
        return json.bytes
    }

    /// The members, without braces (`client` null for a simulated participant).
    private func writeFields(into json: inout JSONWriter) {
        json.append(raw: "\"conversation\":")
        json.append(integer: conversation)
        json.append(raw: ",\"author\":")
        json.append(string: author)
        json.append(raw: ",\"author_id\":")
        json.append(integer: authorIndex)
        json.append(raw: ",\"client\":")
        if let client { json.append(string: client) } else { json.appendNull() }
        json.append(raw: ",\"duration_ms\":")
        json.append(integer: duration.wholeMilliseconds)
    }
}
