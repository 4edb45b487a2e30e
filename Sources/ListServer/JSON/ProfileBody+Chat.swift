import ListDomain

/// The chat's field of a profile body, its simulated participants (``ChatActivity``):
///
/// ```json
/// {"chat": {"messages_per_min": 6, "typing_ms": 2000, "edit_ratio": 0.1, "delete_ratio": 0.05, "seed": 7}}
/// ```
///
/// `messages_per_min` is required (above 0, at most 600); `typing_ms` 0 to 60,000 (2,000 when left out); the ratios
/// 0 to 1 (0 when left out); `seed` draws the turns (the dataset's seed when left out).
extension ProfileBody {
    static func chat(_ json: RequestJSON) throws(Problem) -> ChatActivity? {
        if case .null = json { return nil }
        var perMinute: Double?
        var activity = ChatActivity(messagesPerMinute: 0)
        for (key, value) in try object(json, "chat") {
            switch key {
            case "messages_per_min":
                guard case .number(let number) = value, number.double > 0,
                    number.double <= ChatActivity.maximumMessagesPerMinute
                else {
                    throw invalid(
                        "chat.messages_per_min must be a number above 0 and at most "
                            + "\(Int(ChatActivity.maximumMessagesPerMinute))")
                }
                perMinute = number.double
            case "typing_ms":
                let longest = Int(ChatActivity.maximumTyping / .milliseconds(1))
                activity.typing = .milliseconds(try integer(value, "chat.typing_ms", 0...longest))
            case "edit_ratio": activity.editRatio = try ratio(value, "chat.edit_ratio")
            case "delete_ratio": activity.deleteRatio = try ratio(value, "chat.delete_ratio")
            case "seed": activity.seed = UInt64(try integer(value, "chat.seed", 0...Int.max))
            default:
                throw unknown(key, in: "chat", takes: "messages_per_min, typing_ms, edit_ratio, delete_ratio, seed")
            }
        }
        guard let perMinute else { throw invalid("chat needs messages_per_min") }
        activity.messagesPerMinute = perMinute
        return activity
    }

    private static func ratio(_ json: RequestJSON, _ name: String) throws(Problem) -> Double {
        guard case .number(let number) = json, (0...1).contains(number.double) else {
            throw invalid("\(name) must be a number in 0...1")
        }
        return number.double
    }
}
