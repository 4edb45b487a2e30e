import ListDomain

/// The JSON bodies of the chat's writes (issue 36), checked: `POST /conversations/<id>/messages`
/// `{"text":"…","reply_to":N}`, `PATCH …/messages/<mid>` `{"text":"…"}`, `POST /conversations/<id>/read`
/// `{"up_to":N}`. Anything else is a 400 `invalid-body` naming the field: unknown keys, a missing or empty `text`,
/// one longer than ``maxTextCharacters`` code points (or ``maxTextBytes``) or holding U+0000, an id that is not a
/// whole number from 0 below 2^40.
enum MessageBody {
    /// The longest message text, in code points and in UTF-8 bytes.
    static let maxTextCharacters = 4000
    static let maxTextBytes = 16_000

    /// A message to send: its text, and the message it answers.
    static func send(_ json: RequestJSON) throws(Problem) -> (text: String, replyTo: UInt64?) {
        var text: String?
        var replyTo: UInt64?
        for (key, value) in try fields(of: json, allowed: ["text", "reply_to"]) {
            if key == "text" {
                text = try Self.text(value)
            } else if case .null = value {
                replyTo = nil
            } else {
                replyTo = try id(value, "reply_to")
            }
        }
        guard let text else { throw Problem(.invalidBody, detail: "field \"text\" is required") }
        return (text, replyTo)
    }

    /// A message's new text.
    static func edit(_ json: RequestJSON) throws(Problem) -> String {
        var text: String?
        for (_, value) in try fields(of: json, allowed: ["text"]) { text = try Self.text(value) }
        guard let text else { throw Problem(.invalidBody, detail: "field \"text\" is required") }
        return text
    }

    /// The last message a client has read.
    static func read(_ json: RequestJSON) throws(Problem) -> UInt64 {
        var upTo: UInt64?
        for (_, value) in try fields(of: json, allowed: ["up_to"]) { upTo = try id(value, "up_to") }
        guard let upTo else { throw Problem(.invalidBody, detail: "field \"up_to\" is required") }
        return upTo
    }

    /// The members of `json`, an object whose keys are all `allowed` (a repeated key never gets here:
    /// ``RequestJSON/parse(_:maxDepth:)`` refuses it).
    private static func fields(of json: RequestJSON, allowed: Set<String>) throws(Problem)
        -> [(key: String, value: RequestJSON)]
    {
        guard case .object(let members) = json else {
            throw Problem(.invalidBody, detail: "the body must be a JSON object")
        }
        for (key, _) in members where !allowed.contains(key) {
            let names = allowed.sorted().map { "\"\($0)\"" }.joined(separator: ", ")
            throw Problem(.invalidBody, detail: "unknown field \(Problem.quoted(key)); the body takes \(names)")
        }
        return members
    }

    /// A text of 1 to ``maxTextCharacters`` code points without U+0000.
    private static func text(_ value: RequestJSON) throws(Problem) -> String {
        guard case .string(let text) = value else {
            throw Problem(.invalidBody, detail: "field \"text\" must be a string")
        }
        // Counted in code points, as JSON Schema's maxLength counts a string's length.
        guard !text.isEmpty, text.utf8.count <= maxTextBytes, text.unicodeScalars.count <= maxTextCharacters else {
            throw Problem(
                .invalidBody,
                detail: "field \"text\" must hold 1 to \(maxTextCharacters) characters (at most \(maxTextBytes) "
                    + "bytes of UTF-8), got \(text.unicodeScalars.count)")
        }
        guard !text.utf8.contains(0) else {
            throw Problem(.invalidBody, detail: "field \"text\" must not contain U+0000")
        }
        return text
    }

    /// A message id: a whole number from 0 below 2^40 (``ChatCatalog/maximumMessages``).
    private static func id(_ value: RequestJSON, _ field: String) throws(Problem) -> UInt64 {
        guard case .number(let number) = value, let whole = number.wholeValue, whole >= 0,
            UInt64(whole) < ChatCatalog.maximumMessages
        else {
            throw Problem(
                .invalidBody,
                detail:
                    "field \"\(field)\" must be a message id, a whole number from 0 to \(ChatCatalog.maximumMessages - 1)"
            )
        }
        return UInt64(whole)
    }
}
