/// The request fields an answer depends on (RFC 9110 §12.5.5), sent as one `Vary` line that the LibEvent layer
/// writes with the head.
///
/// Flags rather than a field in ``HTTPResponse/headers``: adding one copied the router's fields for every page (their
/// storage still shared with the outcome that carried them), and each line the head carries costs evhttp about 2,000
/// instructions (an allocation, two copies, a `printf`), so an answer that varies by several fields says so in one.
struct VaryFields: OptionSet, Sendable, Hashable {
    let rawValue: UInt8

    /// `Accept`: an image whose format was chosen by it.
    static let accept = VaryFields(rawValue: 1)
    /// `Accept-Encoding`: every JSON answer, compressed or not, and its 304 (RFC 9110 §15.4.5).
    static let acceptEncoding = VaryFields(rawValue: 2)
    /// `Origin`: every answer from a route while CORS is on, whose CORS fields go only to requests with an `Origin`.
    static let origin = VaryFields(rawValue: 4)

    /// The names, in the order they are listed.
    private static let names = ["Accept", "Accept-Encoding", "Origin"]
    /// The field value of every set of flags, by raw value.
    private static let values: [String] = (0..<8).map { raw in
        names.indices.filter { raw & (1 << $0) != 0 }.map { names[$0] }.joined(separator: ", ")
    }

    /// The `Vary` field value, e.g. `Accept-Encoding, Origin`; nil when the answer varies by none of them.
    var fieldValue: String? {
        let value = Self.values[Int(rawValue & 7)]
        return value.isEmpty ? nil : value
    }
}
