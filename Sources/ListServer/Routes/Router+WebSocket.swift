import ListDomain

/// The WebSocket handshake of the change feed (RFC 6455 §4.2): `GET /items/events` with `Upgrade: websocket`
/// becomes a WebSocket instead of a stream of Server-Sent Events; the LibEvent layer answers 101 and takes the
/// connection over (`LoopServer+WebSockets.swift`).
extension Router {
    /// The `Sec-WebSocket-Accept` owed to a request that asks for a WebSocket; nil for one that does not (its
    /// `Upgrade` names no `websocket`): that one gets the Server-Sent Events.
    ///
    /// - Throws: 400 `invalid-header` for an upgrade whose `Connection` does not say `upgrade` or whose
    ///   `Sec-WebSocket-Key` is not the Base64 of 16 bytes; 426 `websocket-version` (with
    ///   `Sec-WebSocket-Version: 13`) for another protocol version than 13.
    static func webSocketAccept(_ headers: HTTPHeaders) throws(Problem) -> String? {
        guard let upgrade = headers["Upgrade"], Self.hasToken(upgrade, "websocket") else { return nil }
        guard let connection = headers["Connection"], Self.hasToken(connection, "upgrade") else {
            throw Problem(.invalidHeader, detail: "a WebSocket upgrade needs `Connection: Upgrade`")
        }
        guard headers["Sec-WebSocket-Version"] == "13" else {
            throw Problem(
                .webSocketVersion,
                detail: "WebSocket version \(Problem.quoted(headers["Sec-WebSocket-Version"] ?? "")) is not "
                    + "supported; send Sec-WebSocket-Version: 13",
                headers: ["Sec-WebSocket-Version": "13"])
        }
        guard let key = headers["Sec-WebSocket-Key"], WebSocketAccept.isValidKey(key) else {
            throw Problem(
                .invalidHeader,
                detail: "Sec-WebSocket-Key must be the Base64 of 16 bytes, got "
                    + Problem.quoted(headers["Sec-WebSocket-Key"] ?? ""))
        }
        return WebSocketAccept.value(for: key)
    }

    /// Whether the comma-separated `list` holds `token` (lowercase), in any case.
    private static func hasToken(_ list: String, _ token: String) -> Bool {
        list.split(separator: ",").contains { element in
            let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
            guard let first = element.firstIndex(where: { !blank($0) }),
                let last = element.lastIndex(where: { !blank($0) })
            else { return false }
            return element[first...last].lowercased() == token
        }
    }
}

extension Router {
    /// How long a client's typing indicator lasts without news (a client typing on says so again before then).
    static let clientTypingDuration = Duration.seconds(5)

    /// A message a WebSocket client sent on its stream of `list`: `{"type":"typing","conversation":C}` says the app's
    /// user (the conversation's first participant) is typing there, for `client` (its `X-Client-Id`). Returns the
    /// signal to announce.
    ///
    /// - Throws: `invalid-body` for a message that is not such an object (the client gets it back as
    ///   `{"kind":"error","problem":{…}}` and the connection stays), `invalid-id` for a conversation the dataset has
    ///   not.
    func webSocketMessage(_ text: [UInt8], list: String, client: String) throws(Problem) -> TypingSignal {
        let json: RequestJSON
        do { json = try RequestJSON.parse(text, maxDepth: 2) } catch {
            throw Problem(.invalidBody, detail: "a WebSocket message must be a JSON object: \(error)")
        }
        guard case .object(let members) = json else {
            throw Problem(.invalidBody, detail: "a WebSocket message must be a JSON object")
        }
        var type: String?
        var conversation: UInt64?
        for (key, value) in members {
            switch (key, value) {
            case ("type", .string(let name)):
                type = name
            case ("conversation", .number(let number)) where (number.wholeValue ?? -1) >= 0:
                conversation = number.wholeValue.map { UInt64($0) }
            default:
                throw Problem(
                    .invalidBody,
                    detail: "unknown or malformed field \(Problem.quoted(key)); a WebSocket message takes "
                        + "\"type\" (\"typing\") and \"conversation\" (an id)")
            }
        }
        guard type == "typing" else {
            throw Problem(.invalidBody, detail: "a WebSocket message's \"type\" must be \"typing\"")
        }
        let state = try readableState(of: list)
        let catalog = chatCatalog(of: state)
        guard let conversation, conversation < catalog.conversationCount else {
            throw Problem(
                .invalidID,
                detail: "\"conversation\" must be a conversation id from 0 to \(catalog.conversationCount - 1)")
        }
        return TypingSignal(
            conversation: conversation, authorIndex: catalog.participants(of: conversation)[0], client: client,
            duration: Self.clientTypingDuration)
    }
}
