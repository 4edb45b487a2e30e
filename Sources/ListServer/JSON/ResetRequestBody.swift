/// The body of `POST /admin/reset`: empty, `{}`, or `{"seed": S}` with S in 0...Int64.max (as ``SettingKey/seed``).
///
/// Read with the parser every request body goes through (``RequestJSON``): strict (a duplicate member is refused)
/// and telling where a body goes wrong. Unknown members are refused, so a typo such as `{"sed": 7}` is a 400
/// rather than a silent reset without a new seed.
struct ResetRequestBody: Sendable, Equatable {
    /// The new seed, or nil to keep the current one.
    var seed: UInt64?

    /// Parses `body`.
    ///
    /// - Throws: A 400 ``Problem`` (`invalid-body`) saying what is wrong.
    init(_ body: [UInt8]) throws(Problem) {
        guard body.contains(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) else {
            seed = nil
            return
        }
        let json: RequestJSON
        do {
            json = try RequestJSON.parse(body, maxDepth: 1)
        } catch {
            throw Self.invalid("the reset body is not valid JSON: \(error.reason) at byte \(error.offset)")
        }
        guard case .object(let members) = json else { throw Self.invalid("the reset body must be a JSON object") }
        seed = nil
        for (key, value) in members {
            guard key == "seed" else {
                throw Problem(
                    .invalidBody,
                    detail: "unknown member \(Problem.quoted(key)) in the reset body; it takes {\"seed\": S} or nothing"
                )
            }
            switch value {
            case .null:
                seed = nil
            case .number(let number):
                // A whole number in any spelling (`7`, `7.0`, `7e0`), as the item bodies take them.
                guard let value = number.wholeValue, value >= 0 else {
                    throw Self.invalid("seed is \(Problem.quoted(number.literal))")
                }
                seed = UInt64(value)
            default:
                throw Self.invalid("seed is not a number")
            }
        }
    }

    /// 400 `invalid-body`: `what`, and what the body may be.
    private static func invalid(_ what: String) -> Problem {
        Problem(
            .invalidBody,
            detail: "\(what); the reset body must be empty or a JSON object {\"seed\": S} with S an integer in "
                + "0...\(Int64.max)")
    }
}
