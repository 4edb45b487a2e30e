/// One factory per reason ``RequestHeadScanner`` rejects a head, each with a `detail` that says what was wrong.
///
/// Values the client sent are quoted with ``HTTPBytes/quoted(_:)`` (escaped, at most 64 bytes); these run only when
/// a head is rejected, so they may build strings freely.
extension HeadRejection {
    /// The methods a request may use, in the order `detail`s list them.
    static let knownMethods = "GET, HEAD, POST, PUT, DELETE, OPTIONS, PATCH, TRACE"

    // MARK: Limits

    /// 414: the request line has more than `limit` bytes (its line ending not counted).
    static func requestLineTooLong(limit: Int, start: some Collection<UInt8>) -> Self {
        Self(
            .requestLineTooLong,
            detail: "the request line is longer than \(limit) bytes; it starts \(HTTPBytes.quoted(start))")
    }

    /// 431: the head has more than `limit` bytes.
    static func headTooLarge(limit: Int) -> Self {
        Self(
            .headersTooLarge, detail: "the request head (request line and header fields) is longer than \(limit) bytes")
    }

    /// 431: the head has more than `limit` header fields.
    static func tooManyFields(limit: Int) -> Self {
        Self(.headersTooLarge, detail: "the request has more than \(limit) header fields")
    }

    /// 503: an upload larger than ``SettingKey/maxBodyBytes`` whose bytes, as they arrive, do not fit in what is left
    /// of the ``UploadBudget`` (`limit` such uploads' worth of bytes being received or handled); the rest of its body
    /// is not read.
    static func uploadsBusy(limit: Int) -> Self {
        Self(
            .imageBusy,
            detail: "\(limit) large uploads' worth of bytes are being received or handled; retry shortly",
            headers: ["Retry-After": "1"])
    }

    /// 503: a request body over ``UploadBudget/freeBodyBytes`` (not an upload) whose bytes, as they arrive, do not
    /// fit in what is left of the ``UploadBudget`` (`capacity` bytes of bodies being received or handled).
    static func bodiesBusy(capacity: Int) -> Self {
        Self(
            .serverBusy,
            detail: "\(capacity) bytes of request bodies are being received or handled; retry shortly",
            headers: ["Retry-After": "1"])
    }

    /// 408: the body did not arrive within ``SettingKey/bodyTimeoutMs`` of its head, or came slower than
    /// ``SettingKey/minBodyRate`` once its first second was over.
    static func bodyTimeout(limits: HTTPLimits, received: Int, declared: Int, tooSlow: Bool) -> Self {
        Self(
            .requestTimeout,
            detail: tooSlow
                ? "the request body came slower than \(limits.minBodyRate) bytes a second (\(received) of \(declared) "
                    + "bytes); send it faster"
                : "the request body did not arrive within \(limits.bodyTimeout.wholeMilliseconds) ms of its head "
                    + "(\(received) of \(declared) bytes)")
    }

    /// 503: a request on a connection of the reserve (``HTTPLimits/reservedConnections``), which serves only
    /// `/healthz`, `/readyz`, `/metrics` and `/admin/*` while ``SettingKey/maxConnections`` are open.
    static func serverBusy(limit: Int) -> Self {
        Self(
            .serverBusy,
            detail:
                "all \(limit) connections (\(SettingKey.maxConnections.name)) are in use; this one serves only /healthz, "
                + "/readyz, /metrics and /admin/*; retry shortly",
            headers: ["Retry-After": "1"])
    }

    /// 413: a well-formed `Content-Length` larger than `limit` (however many digits it has).
    static func bodyTooLarge(_ value: some Collection<UInt8>, limit: Int) -> Self {
        Self(
            .bodyTooLarge,
            detail: "the request body (Content-Length \(HTTPBytes.quoted(value))) is larger than \(limit) bytes")
    }

    // MARK: Request line

    /// 400: more empty lines before the request line than RFC 9112 §2.2 asks a server to skip.
    static func tooManyEmptyLines(limit: Int) -> Self {
        Self(.malformedRequest, detail: "more than \(limit) empty lines before the request line")
    }

    /// 400: a byte that cannot start or continue a method token.
    static func invalidMethod(_ soFar: some Collection<UInt8>, byte: UInt8) -> Self {
        Self(
            .malformedRequest,
            detail: """
                the request line must start with a method token (letters, digits, !#$%&'*+-.^_`|~), \
                got byte \(HTTPBytes.hex(byte)) in \(HTTPBytes.quoted(soFar))
                """)
    }

    /// 400: the request line is not `method SP request-target SP HTTP-version` with single spaces.
    static func malformedRequestLine(_ soFar: some Collection<UInt8>) -> Self {
        Self(
            .malformedRequest,
            detail: """
                the request line must be a method, a request target and an HTTP version separated by single spaces \
                ("GET /items HTTP/1.1"), got \(HTTPBytes.quoted(soFar))
                """)
    }

    /// 405: CONNECT; this server is not a proxy.
    static func connectNotAllowed() -> Self {
        Self(
            .methodNotAllowed,
            detail: "\"CONNECT\" is not allowed: this server is not a proxy; use GET, HEAD, OPTIONS",
            headers: ["Allow": "GET, HEAD, OPTIONS"])
    }

    /// 501: a method token the server does not know.
    static func methodNotImplemented(_ method: some Collection<UInt8>) -> Self {
        Self(
            .notImplemented,
            detail: "method \(HTTPBytes.quoted(method)) is not implemented; known methods are \(knownMethods)")
    }

    /// 400: a request-target that is neither origin-form nor an absolute `http`/`https` URI.
    static func invalidTargetForm(_ target: some Collection<UInt8>) -> Self {
        Self(
            .malformedRequest,
            detail: """
                the request target must be a path starting with "/" or an absolute http:// or https:// URI, \
                got \(HTTPBytes.quoted(target))
                """)
    }

    /// 400: an absolute-form target, or a path starting with `//`, whose authority is not `[userinfo@]host[:port]`
    /// as evhttp parses it (``TargetAuthority``).
    static func invalidTargetAuthority(_ target: some Collection<UInt8>, authority: some Collection<UInt8>) -> Self {
        Self(
            .malformedRequest,
            detail: """
                the authority \(HTTPBytes.quoted(authority)) of request target \(HTTPBytes.quoted(target)) is not \
                [userinfo@]host[:port] (RFC 3986 section 3.2); a path may not start with "//"
                """)
    }

    /// 400: a byte outside 0x21...0x7E in the request-target.
    static func invalidTargetByte(_ target: some Collection<UInt8>, byte: UInt8, offset: Int) -> Self {
        Self(
            .malformedRequest,
            detail: """
                the request target may hold only visible ASCII (percent-encode anything else), \
                got byte \(HTTPBytes.hex(byte)) at offset \(offset) of \(HTTPBytes.quoted(target))
                """)
    }

    /// 400: an HTTP version that is not `HTTP/<digit>.<digit>`.
    static func malformedVersion(_ version: some Collection<UInt8>) -> Self {
        Self(
            .malformedRequest,
            detail: "the HTTP version must be HTTP/1.1 or HTTP/1.0, got \(HTTPBytes.quoted(version))")
    }

    /// 505: `HTTP/<digit>.<digit>` other than 1.1 and 1.0.
    static func versionNotSupported(_ version: some Collection<UInt8>) -> Self {
        Self(
            .versionNotSupported,
            detail: "HTTP version \(HTTPBytes.quoted(version)) is not supported; use HTTP/1.1 or HTTP/1.0")
    }

    /// 400: a CR that is not followed by LF (RFC 9112 §2.2).
    ///
    /// - Parameters:
    ///   - place: Where it was: `the request line`, `header field "Host"`.
    ///   - byte: The byte that followed the CR.
    static func bareCR(in place: String, followedBy byte: UInt8) -> Self {
        Self(
            .malformedRequest,
            detail: "a CR (0x0D) must be followed by LF in \(place), got \(HTTPBytes.hex(byte)) after it")
    }
}
