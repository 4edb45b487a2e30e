/// The factories for header-field and framing problems; see `HeadRejection+Reasons.swift` for the others.
extension HeadRejection {
    // MARK: Field syntax

    /// 400: whitespace at the start of the first header line (RFC 9112 §2.2).
    static func whitespaceBeforeFirstField() -> Self {
        Self(.malformedRequest, detail: "whitespace between the request line and the first header field is not allowed")
    }

    /// 400: a header line that starts with whitespace: obsolete line folding (RFC 9112 §5.2).
    ///
    /// - Parameter previousName: The name of the field the line would continue.
    static func lineFolding(after previousName: some Collection<UInt8>) -> Self {
        Self(
            .malformedRequest,
            detail: """
                a header line starts with whitespace after field \(HTTPBytes.quoted(previousName)): obsolete line \
                folding is not accepted; send each field on one line
                """)
    }

    /// 400: a header line that starts with a colon.
    static func emptyFieldName() -> Self {
        Self(.malformedRequest, detail: "a header field has an empty name (the line starts with \":\")")
    }

    /// 400: a byte that is not a token character in a field name.
    static func invalidFieldName(_ soFar: some Collection<UInt8>, byte: UInt8) -> Self {
        Self(
            .malformedRequest,
            detail: """
                a header field name must be a token (letters, digits, !#$%&'*+-.^_`|~), got byte \
                \(HTTPBytes.hex(byte)) in \(HTTPBytes.quoted(soFar))
                """)
    }

    /// 400: whitespace between a field name and its colon (RFC 9112 §5.1).
    static func whitespaceBeforeColon(_ name: some Collection<UInt8>) -> Self {
        Self(
            .malformedRequest,
            detail: "header field \(HTTPBytes.quoted(name)) has whitespace before its colon, which is not allowed")
    }

    /// 400: a header line that ends before any colon.
    static func missingColon(_ line: some Collection<UInt8>) -> Self {
        Self(
            .malformedRequest,
            detail: "header line \(HTTPBytes.quoted(line)) has no colon; a field is \"Name: value\"")
    }

    /// 417: an HTTP/1.1 `Expect` other than `100-continue`, the only expectation the server meets (RFC 9110 §10.1.1).
    static func expectationFailed(_ value: some Collection<UInt8>) -> Self {
        Self(
            .expectationFailed,
            detail: "Expect \(HTTPBytes.quoted(value)) cannot be met; the only expectation is \"100-continue\"")
    }

    /// 400: a control character other than HTAB in a field value.
    static func controlInValue(_ name: some Collection<UInt8>, byte: UInt8) -> Self {
        Self(
            .malformedRequest,
            detail: """
                the value of header field \(HTTPBytes.quoted(name)) holds control character \(HTTPBytes.hex(byte)); \
                only HTAB is allowed
                """)
    }

    // MARK: Framing

    /// 400: a `Content-Length` value that is not `1*DIGIT` after trimming whitespace.
    static func invalidContentLength(_ value: some Collection<UInt8>) -> Self {
        Self(
            .malformedRequest,
            detail: "Content-Length must be a decimal number of bytes (digits only), got \(HTTPBytes.quoted(value))")
    }

    /// 400: a second `Content-Length` field, even one with the same value.
    static func repeatedContentLength() -> Self {
        Self(.malformedRequest, detail: "the request has more than one Content-Length field")
    }

    /// 400: both `Content-Length` and `Transfer-Encoding` (RFC 9112 §6.3: a smuggling risk).
    static func lengthAndTransferEncoding() -> Self {
        Self(.malformedRequest, detail: "a request must not have both Content-Length and Transfer-Encoding")
    }

    /// 400: `Transfer-Encoding` in an HTTP/1.0 request (RFC 9112 §6.1).
    static func transferEncodingInHTTP10() -> Self {
        Self(.malformedRequest, detail: "Transfer-Encoding is not allowed in an HTTP/1.0 request")
    }

    /// 400: a second `Transfer-Encoding` field.
    static func repeatedTransferEncoding() -> Self {
        Self(.malformedRequest, detail: "the request has more than one Transfer-Encoding field")
    }

    /// 400: a transfer coding other than `chunked`, or a list of codings.
    static func unsupportedTransferCoding(_ value: some Collection<UInt8>) -> Self {
        guard !value.isEmpty else {
            return Self(.malformedRequest, detail: "Transfer-Encoding is empty; send the body with Content-Length")
        }
        return Self(
            .malformedRequest,
            detail: """
                transfer coding \(HTTPBytes.quoted(value)) is not supported; send the body with Content-Length
                """)
    }

    /// 411: a chunked body; the API takes only bodies with a `Content-Length` (RFC 9112 §6.3 allows demanding one).
    static func chunkedBody() -> Self {
        Self(.lengthRequired, detail: "chunked request bodies are not accepted; send the body with Content-Length")
    }

    /// 400: an HTTP/1.1 request without `Host` (RFC 9112 §3.2).
    static func missingHost() -> Self {
        Self(.malformedRequest, detail: "an HTTP/1.1 request must have a Host header field")
    }

    /// 400: a second `Host` field.
    static func repeatedHost() -> Self {
        Self(.malformedRequest, detail: "the request has more than one Host header field")
    }
}
