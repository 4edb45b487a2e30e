import Glibc

/// The authority of a request-target, `[userinfo "@"] host [":" port]` (RFC 3986 §3.2), checked exactly as evhttp
/// 2.1's `parse_authority` checks it.
///
/// evhttp parses every target again with `evhttp_uri_parse_with_flags`, and a target whose authority it cannot
/// parse never reaches the server's callback: evhttp answers it with its own HTML 400. An absolute-form target
/// (`http://[x/items`) has an authority, and so, to evhttp, has an origin-form target that starts with `//`
/// (`//[x/items`, a network-path reference). So the head scanner refuses, with problem+json, every such target whose
/// authority evhttp would refuse, and lets through every one it would take (the router then answers it). The rules,
/// from libevent 2.1.12's `http.c`:
/// - userinfo (before the first `@`): unreserved, sub-delims, `:` or `%HH`;
/// - port (trailing digits after a `:`): empty, or at most 65535 (leading zeros are fine);
/// - host: `[` … `]` holding an IPv6 address `inet_pton` reads (fewer than 64 bytes) or `v` 1*HEXDIG `.` 1*(unreserved /
///   sub-delims / `:`); anything else only unreserved, sub-delims or `%HH`, possibly empty.
enum TargetAuthority {
    /// Whether evhttp parses the authority `bytes[range]`.
    static func isValid(_ bytes: Span<UInt8>, _ range: Range<Int>) -> Bool {
        var hostStart = range.lowerBound
        var hostEnd = range.upperBound
        if let at = firstIndex(of: UInt8(ascii: "@"), in: bytes, range) {
            guard isUserinfo(bytes, range.lowerBound..<at) else { return false }
            hostStart = at + 1
        }
        // A port is the digits at the end, if a colon comes right before them.
        var portStart = hostEnd
        while portStart > hostStart && HTTPBytes.isDigit(bytes[portStart - 1]) { portStart -= 1 }
        if portStart > hostStart && bytes[portStart - 1] == UInt8(ascii: ":") {
            var port = 0
            for index in portStart..<hostEnd {
                port = port * 10 + Int(bytes[index] &- UInt8(ascii: "0"))
                guard port <= 65_535 else { return false }
            }
            hostEnd = portStart - 1
        }
        let host = hostStart..<hostEnd
        if host.count >= 2 && bytes[host.lowerBound] == UInt8(ascii: "[")
            && bytes[host.upperBound - 1] == UInt8(ascii: "]")
        {
            return isBracketedAddress(bytes, host)
        }
        return isRegisteredName(bytes, host)
    }

    /// Where the authority of a target ends: at its first `/`, `?` or `#`, or at the target's end.
    static func end(of bytes: Span<UInt8>, from start: Int, to targetEnd: Int) -> Int {
        var index = start
        while index < targetEnd {
            let byte = bytes[index]
            if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") { break }
            index += 1
        }
        return index
    }

    private static func firstIndex(of byte: UInt8, in bytes: Span<UInt8>, _ range: Range<Int>) -> Int? {
        var index = range.lowerBound
        while index < range.upperBound {
            if bytes[index] == byte { return index }
            index += 1
        }
        return nil
    }

    /// RFC 3986's sub-delims: ``!$&'()*+,;=``.
    private static func isSubDelimiter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("),
            UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"),
            UInt8(ascii: "="):
            true
        default: false
        }
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        PercentDecoding.hexValue(byte) != nil
    }

    /// Unreserved, sub-delims, `%HH` and, with `colon`, `:`. The two digits must lie inside `range`: evhttp's
    /// `userinfo_ok` says so (`s+2 < eos`), and its `regname_ok`, which reads on past the host, then meets the `:`,
    /// `/`, `?`, `#` or end of string that ends it, never a digit.
    private static func isPlain(_ bytes: Span<UInt8>, _ range: Range<Int>, colon: Bool) -> Bool {
        var index = range.lowerBound
        while index < range.upperBound {
            let byte = bytes[index]
            if HTTPBytes.isUnreserved(byte) || isSubDelimiter(byte) || (colon && byte == UInt8(ascii: ":")) {
                index += 1
            } else if byte == UInt8(ascii: "%") && index + 2 < range.upperBound && isHexDigit(bytes[index + 1])
                && isHexDigit(bytes[index + 2])
            {
                index += 3
            } else {
                return false
            }
        }
        return true
    }

    /// evhttp's `userinfo_ok`.
    private static func isUserinfo(_ bytes: Span<UInt8>, _ range: Range<Int>) -> Bool {
        isPlain(bytes, range, colon: true)
    }

    /// evhttp's `regname_ok` (an IPv4 address or a reg-name).
    private static func isRegisteredName(_ bytes: Span<UInt8>, _ range: Range<Int>) -> Bool {
        isPlain(bytes, range, colon: false)
    }

    /// evhttp's `bracket_addr_ok`: `[` IPv6address `]` or `[v` 1*HEXDIG `.` 1*(unreserved / sub-delims / `:`) `]`.
    private static func isBracketedAddress(_ bytes: Span<UInt8>, _ range: Range<Int>) -> Bool {
        guard range.count >= 3 else { return false }
        let inner = range.lowerBound + 1..<range.upperBound - 1
        if bytes[inner.lowerBound] == UInt8(ascii: "v") {
            var index = inner.lowerBound + 1
            guard index < inner.upperBound, isHexDigit(bytes[index]) else { return false }
            while index < inner.upperBound && bytes[index] != UInt8(ascii: ".") {
                guard isHexDigit(bytes[index]) else { return false }
                index += 1
            }
            guard index < inner.upperBound else { return false }  // no "."
            index += 1
            while index < inner.upperBound {
                let byte = bytes[index]
                guard HTTPBytes.isUnreserved(byte) || isSubDelimiter(byte) || byte == UInt8(ascii: ":") else {
                    return false
                }
                index += 1
            }
            return true
        }
        guard inner.count < 64 else { return false }
        // inet_pton reads a C string: the address, NUL-terminated, on the stack (the scanner allocates nothing).
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { buffer in
            for (offset, index) in inner.enumerated() { buffer[offset] = CChar(bitPattern: bytes[index]) }
            buffer[inner.count] = 0
            var address = in6_addr()
            return inet_pton(AF_INET6, buffer.baseAddress, &address) == 1
        }
    }
}
