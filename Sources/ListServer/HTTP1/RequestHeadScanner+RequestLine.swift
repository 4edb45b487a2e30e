/// The request line: `method SP request-target SP HTTP-version CRLF` (RFC 9112 §3), and empty lines before it.
extension RequestHeadScanner {
    /// Takes one byte of the request line (or of the empty lines before it); returns a result when the scan ends.
    mutating func scanRequestLine(_ bytes: Span<UInt8>, byte: UInt8, at index: Int) -> Bool {
        let isLineEnd = byte == HTTPBytes.cr || byte == HTTPBytes.lf
        if !isLineEnd && (state == .method || state == .target || state == .version)
            && index - lineStart >= limits.maxRequestLineBytes
        {
            return reject(
                .requestLineTooLong(limit: limits.maxRequestLineBytes, start: bytes.copied(lineStart..<index)))
        }
        switch state {
        case .start:
            if HTTPBytes.isToken(byte) {
                lineStart = index
                requestLineStart = index
                state = .method
            } else if byte == HTTPBytes.cr {
                state = .afterLeadingCR
            } else if byte == HTTPBytes.lf {
                return skipEmptyLine()
            } else {
                return reject(.invalidMethod(bytes.copied(index...index), byte: byte))
            }
        case .afterLeadingCR:
            guard byte == HTTPBytes.lf else {
                return reject(.bareCR(in: "an empty line before the request line", followedBy: byte))
            }
            return skipEmptyLine()
        case .method:
            if HTTPBytes.isToken(byte) {
                return false
            } else if byte == HTTPBytes.space {
                return endMethod(bytes, at: index)
            } else if isLineEnd {
                return reject(.malformedRequestLine(bytes.copied(lineStart..<index)))
            } else {
                return reject(.invalidMethod(bytes.copied(lineStart...index), byte: byte))
            }
        case .target:
            return scanTarget(bytes, byte: byte, at: index)
        case .version:
            return scanVersion(bytes, byte: byte, at: index)
        case .afterRequestLineCR:
            guard byte == HTTPBytes.lf else {
                return reject(.bareCR(in: "the request line", followedBy: byte))
            }
            state = .fieldLineStart
        default:
            preconditionFailure("scanRequestLine called in state \(state)")
        }
        return false
    }

    /// Counts an empty line before the request line; too many are a 400.
    private mutating func skipEmptyLine() -> Bool {
        leadingEmptyLines += 1
        guard leadingEmptyLines <= Self.maxLeadingEmptyLines else {
            return reject(.tooManyEmptyLines(limit: Self.maxLeadingEmptyLines))
        }
        state = .start
        return false
    }

    /// Identifies the method that ends at `index`: a known one continues, CONNECT is a 405, any other a 501.
    private mutating func endMethod(_ bytes: Span<UInt8>, at index: Int) -> Bool {
        let range = lineStart..<index
        let known: HTTPMethod?
        switch range.count {
        case 3:
            known =
                HTTPBytes.equals(bytes, range, "GET") ? .get : HTTPBytes.equals(bytes, range, "PUT") ? .put : nil
        case 4:
            known =
                HTTPBytes.equals(bytes, range, "HEAD") ? .head : HTTPBytes.equals(bytes, range, "POST") ? .post : nil
        case 5:
            known =
                HTTPBytes.equals(bytes, range, "PATCH")
                ? .patch : HTTPBytes.equals(bytes, range, "TRACE") ? .trace : nil
        case 6:
            known = HTTPBytes.equals(bytes, range, "DELETE") ? .delete : nil
        case 7:
            if HTTPBytes.equals(bytes, range, "CONNECT") {
                return reject(.connectNotAllowed())
            }
            known = HTTPBytes.equals(bytes, range, "OPTIONS") ? .options : nil
        default:
            known = nil
        }
        guard let known else {
            return reject(.methodNotImplemented(bytes.copied(range)))
        }
        method = known
        targetStart = index + 1
        state = .target
        return false
    }

    /// Takes one byte of the request-target: visible ASCII, origin-form or an absolute `http`/`https` URI.
    private mutating func scanTarget(_ bytes: Span<UInt8>, byte: UInt8, at index: Int) -> Bool {
        let offset = index - targetStart
        if HTTPBytes.isVisibleASCII(byte) {
            // Check the form on the first bytes, so a wrong target is refused before the line ends.
            if offset == 0 {
                if byte == UInt8(ascii: "/") {
                    schemePrefixLength = 0
                } else if HTTPBytes.lowercased(byte) == UInt8(ascii: "h") {
                    schemePrefixLength = 7  // "http://" so far; "https://" once the "s" is seen
                } else {
                    return reject(.invalidTargetForm(bytes.copied(targetStart...index)))
                }
            } else if offset < schemePrefixLength {
                let lowercased = HTTPBytes.lowercased(byte)
                if offset == 4 && lowercased == UInt8(ascii: "s") {
                    schemePrefixLength = 8
                } else if lowercased != Self.schemePrefixByte(offset, secure: schemePrefixLength == 8) {
                    return reject(.invalidTargetForm(bytes.copied(targetStart...index)))
                }
            }
            return false
        }
        if byte == HTTPBytes.space {
            if offset == 0 {
                return reject(.malformedRequestLine(bytes.copied(lineStart...index)))
            }
            if offset < schemePrefixLength {
                return reject(.invalidTargetForm(bytes.copied(targetStart..<index)))
            }
            // An authority evhttp could not parse would get its HTML 400: absolute-form, or a path starting with
            // `//`, which evhttp reads as a network-path reference (TargetAuthority).
            let authorityStart =
                schemePrefixLength > 0
                ? targetStart + schemePrefixLength
                : offset >= 2 && bytes[targetStart + 1] == UInt8(ascii: "/") ? targetStart + 2 : nil
            if let authorityStart {
                let authorityEnd = TargetAuthority.end(of: bytes, from: authorityStart, to: index)
                guard TargetAuthority.isValid(bytes, authorityStart..<authorityEnd) else {
                    return reject(
                        .invalidTargetAuthority(
                            bytes.copied(targetStart..<index), authority: bytes.copied(authorityStart..<authorityEnd)))
                }
            }
            targetEnd = index
            versionStart = index + 1
            state = .version
            if method == .put, schemePrefixLength == 0, Self.isUploadTarget(bytes, targetStart..<index) {
                bodyLimit = limits.maxUploadBytes
            }
            return false
        }
        if byte == HTTPBytes.cr || byte == HTTPBytes.lf {
            return reject(.malformedRequestLine(bytes.copied(lineStart..<index)))
        }
        return reject(.invalidTargetByte(bytes.copied(targetStart...index), byte: byte, offset: offset))
    }

    /// Whether the origin-form target in `range` is `/items/<digits>/image` (also under a dataset's `/d/<name>`),
    /// with or without a query: the one resource whose body ``HTTPLimits/maxUploadBytes`` limits. Spelled any other way (percent-encoded digits,
    /// absolute-form), the upload is held to ``HTTPLimits/maxBodyBytes``.
    static func isUploadTarget(_ bytes: Span<UInt8>, _ range: Range<Int>) -> Bool {
        let prefix: StaticString = "/items/"
        let suffix: StaticString = "/image"
        // Under a dataset's base (`/d/<name>/items/…`) as well.
        var index = range.lowerBound + DatasetName.basePrefixLength(count: range.count) { bytes[range.lowerBound + $0] }
        for offset in 0..<prefix.utf8CodeUnitCount {
            guard index < range.upperBound, bytes[index] == HTTPBytes.byte(of: prefix, at: offset) else { return false }
            index += 1
        }
        let digitsStart = index
        while index < range.upperBound, HTTPBytes.isDigit(bytes[index]) { index += 1 }
        guard index > digitsStart else { return false }
        for offset in 0..<suffix.utf8CodeUnitCount {
            guard index < range.upperBound, bytes[index] == HTTPBytes.byte(of: suffix, at: offset) else { return false }
            index += 1
        }
        return index == range.upperBound || bytes[index] == UInt8(ascii: "?")
    }

    /// The byte at `offset` of `http://` or `https://`.
    private static func schemePrefixByte(_ offset: Int, secure: Bool) -> UInt8 {
        HTTPBytes.byte(of: secure ? "https://" : "http://", at: offset)
    }

    /// Takes one byte of the HTTP version: `HTTP/` (case-sensitive), a digit, `.`, a digit, then the line end.
    private mutating func scanVersion(_ bytes: Span<UInt8>, byte: UInt8, at index: Int) -> Bool {
        let offset = index - versionStart
        guard byte != HTTPBytes.cr && byte != HTTPBytes.lf else {
            guard offset == 8 else {
                return reject(.malformedVersion(bytes.copied(versionStart..<index)))
            }
            let major = bytes[versionStart + 5]
            let minor = bytes[versionStart + 7]
            guard major == UInt8(ascii: "1") && (minor == UInt8(ascii: "1") || minor == UInt8(ascii: "0")) else {
                return reject(.versionNotSupported(bytes.copied(versionStart..<index)))
            }
            isHTTP11 = minor == UInt8(ascii: "1")
            state = byte == HTTPBytes.cr ? .afterRequestLineCR : .fieldLineStart
            return false
        }
        let valid: Bool
        switch offset {
        case 0..<5: valid = byte == HTTPBytes.byte(of: "HTTP/", at: offset)
        case 5, 7: valid = HTTPBytes.isDigit(byte)
        case 6: valid = byte == UInt8(ascii: ".")
        default: valid = false
        }
        return valid ? false : reject(.malformedVersion(bytes.copied(versionStart...index)))
    }
}
