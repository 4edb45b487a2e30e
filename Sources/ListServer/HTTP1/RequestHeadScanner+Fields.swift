/// Header lines `field-name ":" OWS field-value OWS CRLF` (RFC 9112 §5), the framing fields, and the head's end.
extension RequestHeadScanner {
    /// Takes one byte of the header section; returns a result when the scan ends.
    mutating func scanField(_ bytes: Span<UInt8>, byte: UInt8, at index: Int) -> Bool {
        switch state {
        case .fieldValue:
            // The hot path: most bytes of a head are value bytes.
            if HTTPBytes.isFieldValueCharacter(byte) {
                if valueStart < 0 {
                    valueStart = index
                }
                valueEnd = index + 1
            } else if HTTPBytes.isWhitespace(byte) {
                return false
            } else if byte == HTTPBytes.cr {
                state = .afterFieldCR
            } else if byte == HTTPBytes.lf {
                return endField(bytes)
            } else {
                return reject(.controlInValue(bytes.copied(lineStart..<nameEnd), byte: byte))
            }
        case .fieldName:
            if HTTPBytes.isToken(byte) {
                return false
            } else if byte == HTTPBytes.colon {
                return beginValue(bytes, colon: index)
            } else if HTTPBytes.isWhitespace(byte) {
                return reject(.whitespaceBeforeColon(bytes.copied(lineStart..<index)))
            } else if byte == HTTPBytes.cr || byte == HTTPBytes.lf {
                return reject(.missingColon(bytes.copied(lineStart..<index)))
            } else {
                return reject(.invalidFieldName(bytes.copied(lineStart...index), byte: byte))
            }
        case .fieldLineStart:
            if HTTPBytes.isToken(byte) {
                fieldCount += 1
                guard fieldCount <= limits.maxHeaderCount else {
                    return reject(.tooManyFields(limit: limits.maxHeaderCount))
                }
                lineStart = index
                state = .fieldName
            } else if byte == HTTPBytes.cr {
                state = .afterFinalCR
            } else if byte == HTTPBytes.lf {
                return endHead(at: index)
            } else if HTTPBytes.isWhitespace(byte) {
                // lineStart..<nameEnd still names the previous field, if there is one.
                return reject(
                    fieldCount == 0
                        ? .whitespaceBeforeFirstField() : .lineFolding(after: bytes.copied(lineStart..<nameEnd)))
            } else if byte == HTTPBytes.colon {
                return reject(.emptyFieldName())
            } else {
                return reject(.invalidFieldName(bytes.copied(index...index), byte: byte))
            }
        case .afterFieldCR:
            guard byte == HTTPBytes.lf else {
                return reject(
                    .bareCR(in: "header field \(HTTPBytes.quoted(bytes.copied(lineStart..<nameEnd)))", followedBy: byte)
                )
            }
            return endField(bytes)
        case .afterFinalCR:
            guard byte == HTTPBytes.lf else {
                return reject(.bareCR(in: "the empty line that ends the head", followedBy: byte))
            }
            return endHead(at: index)
        default:
            preconditionFailure("scanField called in state \(state)")
        }
        return false
    }

    /// Starts a field's value after the colon at `colon`, noting the fields the scanner cares about: a second
    /// `Content-Length`, `Transfer-Encoding` or `Host`, both framing fields, or `Transfer-Encoding` in HTTP/1.0 are
    /// refused at once.
    private mutating func beginValue(_ bytes: Span<UInt8>, colon: Int) -> Bool {
        let name = lineStart..<colon
        nameEnd = colon
        valueStart = -1
        valueEnd = -1
        state = .fieldValue
        switch name.count {
        case 4 where HTTPBytes.equalsIgnoringCase(bytes, name, "host"):
            fieldKind = .host
            hostCount += 1
            return hostCount > 1 ? reject(.repeatedHost()) : false
        case 14 where HTTPBytes.equalsIgnoringCase(bytes, name, "content-length"):
            fieldKind = .contentLength
            guard !hasContentLength else { return reject(.repeatedContentLength()) }
            guard !hasTransferEncoding else { return reject(.lengthAndTransferEncoding()) }
            hasContentLength = true
        case 6 where HTTPBytes.equalsIgnoringCase(bytes, name, "expect"):
            expectCount += 1
            fieldKind = expectCount == 1 && isHTTP11 ? .expect : .other
        case 17 where HTTPBytes.equalsIgnoringCase(bytes, name, "transfer-encoding"):
            fieldKind = .transferEncoding
            guard isHTTP11 else { return reject(.transferEncodingInHTTP10()) }
            guard !hasTransferEncoding else { return reject(.repeatedTransferEncoding()) }
            guard !hasContentLength else { return reject(.lengthAndTransferEncoding()) }
            hasTransferEncoding = true
        default:
            fieldKind = .other
        }
        return false
    }

    /// Ends a header line: reads `Content-Length` and `Transfer-Encoding` values.
    private mutating func endField(_ bytes: Span<UInt8>) -> Bool {
        state = .fieldLineStart
        let value = valueStart < 0 ? nameEnd..<nameEnd : valueStart..<valueEnd
        switch fieldKind {
        case .contentLength:
            return readContentLength(bytes, value)
        case .transferEncoding:
            guard HTTPBytes.equalsIgnoringCase(bytes, value, "chunked") else {
                return reject(.unsupportedTransferCoding(bytes.copied(value)))
            }
            isChunked = true
        case .expect:
            // evhttp strips spaces (not tabs) before a value, then compares it with "100-continue"; anything else
            // it answers 417 in HTML, so the scanner answers first.
            var index = nameEnd + 1
            while index < value.lowerBound && bytes[index] == HTTPBytes.space { index += 1 }
            guard index == value.lowerBound, HTTPBytes.equalsIgnoringCase(bytes, value, "100-continue") else {
                return reject(.expectationFailed(bytes.copied(nameEnd + 1..<max(value.upperBound, nameEnd + 1))))
            }
        case .host, .other:
            break
        }
        return false
    }

    /// Reads a `Content-Length` value: `1*DIGIT`, at most ``bodyLimit`` (``SettingKey/maxBodyBytes``, or
    /// ``SettingKey/imageMaxUploadBytes`` for an upload).
    ///
    /// Digits are checked to the end before the size, so `99999999999999999999x` is a 400 and
    /// `99999999999999999999` a 413; the running value stops growing once past the limit, and overflow counts as
    /// past it.
    private mutating func readContentLength(_ bytes: Span<UInt8>, _ value: Range<Int>) -> Bool {
        guard !value.isEmpty else {
            return reject(.invalidContentLength(bytes.copied(value)))
        }
        var length = 0
        var tooLarge = false
        for index in value {
            let byte = bytes[index]
            guard HTTPBytes.isDigit(byte) else {
                return reject(.invalidContentLength(bytes.copied(value)))
            }
            if !tooLarge {
                let (tenfold, overflow) = length.multipliedReportingOverflow(by: 10)
                let (next, overflowAgain) = tenfold.addingReportingOverflow(Int(byte &- UInt8(ascii: "0")))
                tooLarge = overflow || overflowAgain || next > bodyLimit
                length = next
            }
        }
        guard !tooLarge else {
            return reject(.bodyTooLarge(bytes.copied(value), limit: bodyLimit))
        }
        contentLength = length
        return false
    }

    /// Ends the head at the LF at `index`: checks what needs the whole head, then reports it complete.
    private mutating func endHead(at index: Int) -> Bool {
        if isHTTP11 && hostCount == 0 {
            return reject(.missingHost())
        }
        if isChunked {
            return reject(.chunkedBody())
        }
        return stop(
            .complete(
                RequestHead(
                    headLength: index + 1,
                    skippedBytes: requestLineStart,
                    bodyLength: contentLength,
                    method: method,
                    keepAliveDefault: isHTTP11,
                    isHTTP11: isHTTP11,
                    targetRange: targetStart..<targetEnd)))
    }
}
