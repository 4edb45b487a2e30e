/// ``SettingKey/publicURL``: the address clients reach this server at, for the absolute URLs it writes (Picsum's
/// `url` and `download_url`), when that is not what their `Host` field says (behind a proxy or a load balancer).
///
/// Empty (the default) uses each request's `Host`. Otherwise `http://` or `https://`, a valid `host[:port]`, and
/// optionally a path prefix (no query, fragment or spaces); a trailing `/` is dropped.
struct PublicURL: Sendable, Equatable {
    /// The URL without a trailing slash; empty for none.
    let text: String

    /// No public URL: the `Host` of each request is used.
    static let none = PublicURL(checked: "")

    private init(checked text: String) {
        self.text = text
    }

    /// Why a public URL was refused.
    struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        let description: String
    }

    /// Parses a setting value.
    ///
    /// - Throws: ``ParseError`` saying what is wrong.
    init(parsing raw: String) throws(ParseError) {
        let text = String(raw.trimmingSpaces)
        if text.isEmpty {
            self = .none
            return
        }
        let lowered = text.lowercased()
        let schemeLength: Int
        if lowered.hasPrefix("http://") {
            schemeLength = 7
        } else if lowered.hasPrefix("https://") {
            schemeLength = 8
        } else {
            throw ParseError(description: "\"\(text)\" does not start with http:// or https://")
        }
        let rest = text.dropFirst(schemeLength)
        let authority = rest.prefix { $0 != "/" }
        let path = rest.dropFirst(authority.count)
        guard HostAuthority.isValid(authority) else {
            throw ParseError(description: "\"\(text)\" has no valid host[:port] after the scheme")
        }
        // RFC 3986 path characters only (unreserved, sub-delims but `,` and `;`, `:`, `@`, `%`, `/`): the URL is
        // written into `Link: <…>` and JSON, where `<`, `>`, `"`, `,` or `\` would break out.
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+=:@%/".utf8)
        guard path.utf8.allSatisfy({ allowed.contains($0) }) else {
            throw ParseError(
                description: "\"\(text)\" has a query, a fragment or a character a URL path may not hold")
        }
        var url = lowered.prefix(schemeLength) + authority.lowercased() + path
        while url.hasSuffix("/") { url.removeLast() }
        self.init(checked: String(url))
    }
}
