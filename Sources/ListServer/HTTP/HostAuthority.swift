/// `host[:port]` as a `Host` field or a URL carries it, checked before it is ever written into a URL the server
/// sends back (`/v2/list`'s absolute `url` and `download_url`): a client must not be able to make the server echo
/// arbitrary text.
enum HostAuthority {
    /// `text` as the root of a URL: lowercased, without an empty port (`example.com:` is `example.com`), or nil
    /// when it is not valid (see ``isValid(_:)``).
    static func normalized(_ text: String) -> String? {
        guard isValid(text) else { return nil }
        var host = text.lowercased()
        if host.hasSuffix(":") { host.removeLast() }
        return host
    }

    /// Whether `text` is a DNS name (letters, digits, `-` and `_` in dot-separated labels of 1–63, 253 in all, with
    /// a trailing dot allowed), an IPv4 literal or a bracketed IPv6 literal, with an optional `:port` in 1...65535
    /// (an empty port, which RFC 3986 allows, counts as none).
    static func isValid(_ text: some StringProtocol) -> Bool {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty, bytes.count <= 261 else { return false }
        var host = bytes[...]
        var port: ArraySlice<UInt8>?
        if bytes.first == UInt8(ascii: "[") {
            guard let close = bytes.firstIndex(of: UInt8(ascii: "]")) else { return false }
            host = bytes[1..<close]
            let rest = bytes[(close + 1)...]
            if !rest.isEmpty {
                guard rest.first == UInt8(ascii: ":") else { return false }
                port = rest.dropFirst()
            }
            guard isIPv6(host) else { return false }
        } else {
            if let colon = bytes.firstIndex(of: UInt8(ascii: ":")) {
                host = bytes[..<colon]
                port = bytes[(colon + 1)...]
            }
            guard isDNSName(host) || isIPv4(host) else { return false }
        }
        if let port, !port.isEmpty {
            guard (1...5).contains(port.count), port.allSatisfy(isDigit),
                let value = Int(String(decoding: port, as: UTF8.self)), (1...65_535).contains(value)
            else { return false }
        }
        return true
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
    }

    private static func isDNSName(_ bytes: ArraySlice<UInt8>) -> Bool {
        // A fully qualified name may end in a dot (`example.com.`).
        let name = bytes.count > 1 && bytes.last == UInt8(ascii: ".") ? bytes.dropLast() : bytes
        guard (1...253).contains(name.count) else { return false }
        for label in name.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false) {
            // `_` too: container and service names (docker compose's `list_server`) have them.
            guard (1...63).contains(label.count), label.first != UInt8(ascii: "-"), label.last != UInt8(ascii: "-"),
                label.allSatisfy({ isDigit($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") || isLetter($0) })
            else { return false }
        }
        return true
    }

    private static func isIPv4(_ bytes: ArraySlice<UInt8>) -> Bool {
        let parts = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        return parts.count == 4
            && parts.allSatisfy { part in
                (1...3).contains(part.count) && part.allSatisfy(isDigit)
                    && Int(String(decoding: part, as: UTF8.self))! <= 255
            }
    }

    /// Hex digits, colons and (for an embedded IPv4 address) dots, with at least two colons: the shape of an IPv6
    /// literal (which characters, not full RFC 4291 grammar; none of them can break out of a URL).
    private static func isIPv6(_ bytes: ArraySlice<UInt8>) -> Bool {
        (2...45).contains(bytes.count)
            && bytes.filter { $0 == UInt8(ascii: ":") }.count >= 2
            && bytes.allSatisfy { byte in
                isDigit(byte) || byte == UInt8(ascii: ":") || byte == UInt8(ascii: ".")
                    || ((byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "f"))
            }
    }
}
