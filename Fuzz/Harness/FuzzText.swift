import ListServer

/// Turns fuzz payload bytes into the values the LibEvent layer would build from the wire.
enum FuzzText {
    /// The bytes up to the first NUL, decoded as `String(cString:)` decodes evhttp's strings (invalid UTF-8
    /// repaired with U+FFFD).
    static func cString(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
    }

    /// The route entry's payload: a method byte, the target up to the first LF, then `Name: value` lines.
    static func routeRequest(_ payload: ArraySlice<UInt8>) -> HTTPRequest? {
        guard let methodByte = payload.first else { return nil }
        let method = FuzzHarness.methods[Int(methodByte) % FuzzHarness.methods.count]
        let lines = payload.dropFirst().split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        guard let targetLine = lines.first else { return nil }
        // Header lines up to the first empty line; whatever follows it is the body (writes parse it).
        let rest = lines.dropFirst()
        let fieldLines = rest.prefix { !$0.isEmpty }
        let bodyLines = rest.dropFirst(fieldLines.count + 1)
        let body = Array(bodyLines.joined(separator: [UInt8(ascii: "\n")]))
        return HTTPRequest(method: method, target: cString(targetLine), headers: fields(fieldLines), body: body)
    }

    /// A raw head split the simple way: request line `METHOD SP target SP version`, then field lines, up to the
    /// first empty line; CR before LF dropped. Nil when there is no request line of three parts.
    static func naiveHead(_ payload: ArraySlice<UInt8>) -> HTTPRequest? {
        var lines = payload.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map {
            $0.last == UInt8(ascii: "\r") ? $0.dropLast() : $0
        }[...]
        guard let requestLine = lines.popFirst() else { return nil }
        let parts = requestLine.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        let method = HTTPMethod(cString(parts[0]))
        let fieldLines = lines.prefix { !$0.isEmpty }
        return HTTPRequest(method: method, target: cString(parts[1]), headers: fields(fieldLines))
    }

    /// `Name: value` lines as header fields (whitespace around the value trimmed); lines without a colon skipped.
    static func fields(_ lines: some Sequence<ArraySlice<UInt8>>) -> HTTPHeaders {
        var headers = HTTPHeaders()
        for line in lines {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { continue }
            let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 }
            var value = line[line.index(after: colon)...]
            while let first = value.first, isSpace(first) { value = value.dropFirst() }
            while let last = value.last, isSpace(last) { value = value.dropLast() }
            headers.add(cString(line[..<colon]), cString(value))
        }
        return headers
    }
}
