import FoundationEssentials

/// The body of `POST /admin/reset`: empty, `{}`, or `{"seed": S}` with S in 0...Int64.max (as `items.seed`).
///
/// Decoded with Foundation's `JSONDecoder`: this is a rare admin request, so a full, well-tested JSON parser is
/// worth more here than the speed of the hand-written writers on the list path. Unknown members are refused, so a
/// typo such as `{"sed": 7}` is a 400 rather than a silent reset without a new seed.
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
        do {
            seed = try JSONDecoder().decode(Members.self, from: Data(body)).seed
        } catch let error as Members.UnknownMember {
            throw Problem(
                .invalidBody,
                detail:
                    "unknown member \(Problem.quoted(error.name)) in the reset body; it takes {\"seed\": S} or nothing")
        } catch {
            throw Problem(
                .invalidBody,
                detail: "the reset body must be empty or a JSON object {\"seed\": S} with S an integer in "
                    + "0...\(Int64.max)")
        }
    }

    /// The JSON object, checked member by member.
    private struct Members: Decodable {
        struct UnknownMember: Error {
            let name: String
        }

        struct Key: CodingKey {
            let stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        let seed: UInt64?

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Key.self)
            if let unknown = container.allKeys.first(where: { $0.stringValue != "seed" }) {
                throw UnknownMember(name: unknown.stringValue)
            }
            let value = try container.decodeIfPresent(Int64.self, forKey: Key(stringValue: "seed"))
            guard let value else {
                seed = nil
                return
            }
            guard value >= 0 else {
                throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "negative seed"))
            }
            seed = UInt64(value)
        }
    }
}
