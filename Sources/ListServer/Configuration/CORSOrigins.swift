/// Which browser origins may read the answers: the ``SettingKey/corsAllowOrigin`` key.
///
/// The text is `*` (any origin), a comma-separated list of origins `scheme://host[:port]` with scheme `http` or
/// `https` and no path, query or trailing slash, or empty (no CORS headers at all). Origins are kept as browsers
/// send them in `Origin`: lowercase, without the scheme's default port, so that matching is a plain comparison.
enum CORSOrigins: Sendable, Equatable {
    /// No CORS headers: browsers keep answers from other origins' scripts.
    case none
    /// `Access-Control-Allow-Origin: *`.
    case any
    /// Only these origins, normalized, in the order given; the answer names the request's origin when it is one
    /// of them (and must then say `Vary: Origin`).
    case only([String])

    /// Why an origin list was refused.
    struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        /// What is wrong, quoting the offending origin: `"https://a.example/" has a path`.
        let description: String
    }

    /// Parses `*`, an empty text, or a comma-separated list of origins; spaces around items are allowed.
    ///
    /// - Throws: ``ParseError`` naming the first offending item and what is wrong with it.
    init(parsing text: String) throws(ParseError) {
        let trimmed = text.trimmingSpaces
        if trimmed.isEmpty {
            self = .none
            return
        }
        if trimmed == "*" {
            self = .any
            return
        }
        var origins: [String] = []
        for item in trimmed.split(separator: ",", omittingEmptySubsequences: false) {
            let origin = String(item.trimmingSpaces)
            guard !origin.isEmpty else {
                throw ParseError(description: "an item of the list is empty")
            }
            guard origin != "*" else {
                throw ParseError(description: #""*" must stand alone"#)
            }
            let normalized = try Self.normalized(origin)
            guard !origins.contains(normalized) else {
                throw ParseError(description: #""\#(origin)" is listed twice"#)
            }
            origins.append(normalized)
        }
        self = .only(origins)
    }

    /// The text form, which ``init(parsing:)`` reads back: `*`, the empty string, or a list such as
    /// `https://a.example,http://localhost:3000`.
    var text: String {
        switch self {
        case .none: ""
        case .any: "*"
        case .only(let origins): origins.joined(separator: ",")
        }
    }

    /// The `Access-Control-Allow-Origin` value for a request with this `Origin` header, or `nil` for none.
    func allowOrigin(forRequestOrigin origin: String?) -> String? {
        switch self {
        case .none: nil
        case .any: "*"
        case .only(let origins): origin.flatMap { origins.contains($0.lowercased()) ? $0.lowercased() : nil }
        }
    }

    /// `origin` in the form browsers send it, or a ``ParseError`` saying what is wrong with it.
    private static func normalized(_ origin: String) throws(ParseError) -> String {
        let lower = origin.lowercased()
        let scheme: String
        if lower.hasPrefix("https://") {
            scheme = "https"
        } else if lower.hasPrefix("http://") {
            scheme = "http"
        } else {
            throw ParseError(description: #""\#(origin)" must start with http:// or https://"#)
        }
        let authority = lower.dropFirst(scheme.count + 3)
        if authority.contains(where: { "?#".contains($0) }) {
            throw ParseError(description: #""\#(origin)" has a query or fragment"#)
        }
        if authority.contains("/") {
            throw ParseError(description: #""\#(origin)" has a path (no trailing slash either)"#)
        }
        if authority.contains("@") {
            throw ParseError(description: #""\#(origin)" has user information"#)
        }
        let (host, port) = splitPort(authority)
        guard isHost(host) else {
            throw ParseError(description: #""\#(origin)" has an invalid host "\#(host)""#)
        }
        guard let port else {
            return "\(scheme)://\(host)"
        }
        guard port.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(port), (1...65_535).contains(number)
        else {
            throw ParseError(description: #""\#(origin)" has an invalid port "\#(port)" (1...65535)"#)
        }
        let isDefault = (scheme == "http" && number == 80) || (scheme == "https" && number == 443)
        return isDefault ? "\(scheme)://\(host)" : "\(scheme)://\(host):\(number)"
    }

    /// The host and the text after its port colon, if any: `[::1]:8080` gives `[::1]` and `8080`.
    private static func splitPort(_ authority: Substring) -> (host: Substring, port: Substring?) {
        let hostEnd = authority.hasPrefix("[") ? authority.firstIndex(of: "]").map(authority.index(after:)) : nil
        let searchFrom = hostEnd ?? authority.startIndex
        guard let colon = authority[searchFrom...].firstIndex(of: ":") else {
            return (authority, nil)
        }
        return (authority[..<colon], authority[authority.index(after: colon)...])
    }

    /// Whether `host` is a DNS name (`a.example`, `localhost`), an IPv4 literal or a bracketed IPv6 literal.
    private static func isHost(_ host: Substring) -> Bool {
        if host.hasPrefix("[") && host.hasSuffix("]") {
            return HostAddress.isIPv6(String(host.dropFirst().dropLast()))
        }
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        return host.count <= 253
            && labels.allSatisfy { label in
                (1...63).contains(label.count) && label.first != "-" && label.last != "-"
                    && label.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
            }
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces.
    var trimmingSpaces: Substring {
        var slice = self[...]
        while slice.first == " " { slice.removeFirst() }
        while slice.last == " " { slice.removeLast() }
        return Substring(slice)
    }
}
