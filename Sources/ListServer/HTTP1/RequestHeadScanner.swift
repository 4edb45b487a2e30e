/// Finds the end of an HTTP/1.x request head in the bytes received so far and checks it, strictly, before evhttp
/// sees any of it.
///
/// One scanner serves one connection, one request at a time: the filter in front of evhttp holds the head's bytes
/// back and offers them all again, with more appended, each time more arrive; the scanner remembers how far it got
/// and looks only at the new bytes. It answers ``HeadScan/needMore``, ``HeadScan/complete(_:)`` with where the head
/// ends and how long the body is, or ``HeadScan/reject(_:)`` with the error response to send before closing. After
/// a complete head (and its body) has been passed on, ``reset()`` readies it for the next request.
///
/// Why it is hand-written: this is the product's core defence and it is on the hot path of every request. evhttp
/// 2.1 has no size limits and accepts heads that nginx and HAProxy reject (duplicate or signed `Content-Length`,
/// unknown transfer codings, no `Host`, control characters), so this scanner is what stands between a hostile client
/// and the server. It must therefore be exact about RFC 9112, bounded (it rejects a head as soon as it is over a
/// limit, even before the line in progress ends, so a never-ending line costs at most the limit plus one byte), and
/// cheap: one pass over each new byte through a small state machine, comparisons on bytes (ASCII case-insensitive
/// for field names), no `String`, no `Array` and no heap allocation unless it rejects. A parser library or a regular
/// expression could do none of that with certainty; a C parser would bring C into a place that must be fuzzed.
/// Measured in a release build, exactly, with callgrind (`ListBenchmarks --only head --rounds 0`, see
/// Benchmarks/Micro): 2,621 instructions for a 91-byte `wrk`-style GET head, 3,464 for the write benchmark's 98-byte
/// POST head and 7,657 for a 310-byte browser-style head, and no heap allocation at all for accepted heads (valgrind
/// counts the same allocations for 1,000 and 100,000 heads). Runs of ordinary bytes go through tight loops
/// (``skipOrdinaryBytes(_:from:)``); every other byte goes through one step of the state machine.
///
/// What it checks, and the status of each rejection (every rejection closes the connection):
/// - Request line `method SP request-target SP HTTP-version`, single spaces, up to ``maxLeadingEmptyLines`` empty
///   lines before it (400 beyond): a non-token method → 400; CONNECT → 405 with `Allow: GET, HEAD, OPTIONS`; another token
///   than GET, HEAD, POST, PUT, DELETE, OPTIONS, PATCH, TRACE → 501; a target with a byte outside 0x21...0x7E or not
///   starting with `/`, `http://` or `https://` (any case) → 400; a version other than `HTTP/1.1` or `HTTP/1.0` → 505
///   when it reads `HTTP/<digit>.<digit>`, otherwise 400; longer than ``SettingKey/maxRequestLineBytes`` → 414.
/// - Header fields `name ":" OWS value OWS`: a name that is not a token, whitespace before the colon, a line that
///   starts with whitespace (obs-fold), a control character other than HTAB in a value → 400; more than
///   ``SettingKey/maxHeaderCount`` fields → 431; a head longer than ``SettingKey/maxHeaderBytes`` → 431.
/// - Line endings: CRLF or a bare LF (RFC 9112 §2.2 lets a server accept LF); a CR not followed by LF → 400.
/// - Framing: `Content-Length` must be `1*DIGIT` after trimming whitespace (`+5`, `5 5`, `0x5`, `5, 5`, empty → 400),
///   appear once (400), and be at most ``SettingKey/maxBodyBytes`` (413; a value too large for any integer is 413 too:
///   it is a well-formed length, only too large), or ``SettingKey/imageMaxUploadBytes`` for `PUT
///   /items/<digits>/image`. `Transfer-Encoding` with `Content-Length`, twice, or in HTTP/1.0 → 400; exactly `chunked`
///   (any case) → 411, as RFC 9112 §6.3 lets a server demand a length; any other coding or list of codings → 400.
/// - `Host`: exactly one in HTTP/1.1, at most one in HTTP/1.0; missing or repeated → 400.
/// - `Expect` (HTTP/1.1; the first field only): anything but `100-continue` (any case, after spaces) → 417, which
///   evhttp would otherwise answer in HTML.
/// - The authority of an absolute-form target, or of a path starting with `//`, that evhttp could not parse → 400
///   (``TargetAuthority``).
///
/// Problems are reported as early as the bytes show them, in the order the bytes arrive, except those that need the
/// whole head: a missing `Host` and then a chunked body are checked last. The result never depends on how the bytes
/// were split between calls.
package struct RequestHeadScanner: Sendable {
    /// The most empty lines (CRLF or LF) ignored before a request line (RFC 9112 §2.2 asks for at least one).
    static let maxLeadingEmptyLines = 4

    /// Which part of the head the next byte belongs to.
    enum State: UInt8, Sendable {
        /// Before the request line: an empty line or the method's first byte.
        case start
        /// After the CR of an empty line before the request line.
        case afterLeadingCR
        /// Inside the method.
        case method
        /// Inside the request-target.
        case target
        /// Inside the HTTP version.
        case version
        /// After the CR that ends the request line.
        case afterRequestLineCR
        /// At the start of a header line, or of the empty line that ends the head.
        case fieldLineStart
        /// Inside a field name.
        case fieldName
        /// After the colon of a field: its value, with any whitespace around it.
        case fieldValue
        /// After the CR that ends a header line.
        case afterFieldCR
        /// After the CR of the empty line that ends the head.
        case afterFinalCR
    }

    /// The header fields whose values the scanner reads; others are only checked for syntax.
    enum FieldKind: UInt8, Sendable {
        case other, contentLength, transferEncoding, host, expect
    }

    /// The limits enforced.
    let limits: HTTPLimits

    /// The terminal result, once there is one: offered again until ``reset()``.
    private(set) var outcome: HeadScan?
    // The scan's state. Internal (not private) only so that the `+RequestLine` and `+Fields` extensions, in files
    // of their own, can advance it; nothing else touches it.

    /// Where the scan is.
    var state = State.start
    /// How many bytes have been scanned: the next scan starts here.
    private(set) var position = 0
    /// Empty lines skipped before the request line.
    var leadingEmptyLines = 0
    /// The offset of the request line's first byte, then of the current header line's first byte.
    var lineStart = 0
    /// The offset of the request line's first byte: the empty lines before it (evhttp would take one for an empty
    /// request line and answer its own HTML 400) are dropped before the head is passed on.
    var requestLineStart = 0
    /// The offset of the request-target's first byte.
    var targetStart = 0
    /// The offset just past the request-target's last byte.
    var targetEnd = 0
    /// The length of the target's scheme prefix: 0 for origin-form, 7 for `http://`, 8 for `https://`.
    var schemePrefixLength = 0
    /// The offset of the HTTP version's first byte.
    var versionStart = 0
    /// The method, once the request line has it.
    var method = HTTPMethod.get
    /// Whether the version is HTTP/1.1, once the request line is complete.
    var isHTTP11 = false
    /// Header fields seen so far.
    var fieldCount = 0
    /// The offset of the current field's colon.
    var nameEnd = 0
    /// What the current field is.
    var fieldKind = FieldKind.other
    /// The offset of the current value's first byte that is not whitespace; -1 while there is none.
    var valueStart = -1
    /// The offset just past the current value's last byte that is not whitespace.
    var valueEnd = -1
    /// Whether a `Content-Length` field was seen.
    var hasContentLength = false
    /// The body length from `Content-Length`, once its line is complete.
    var contentLength = 0
    /// Whether a `Transfer-Encoding` field was seen.
    var hasTransferEncoding = false
    /// Whether `Transfer-Encoding` is `chunked`.
    var isChunked = false
    /// `Host` fields seen so far.
    var hostCount = 0
    /// `Expect` fields seen so far: only the first counts, as for evhttp.
    var expectCount = 0
    /// The largest `Content-Length` this request may have: ``HTTPLimits/maxBodyBytes``, or
    /// ``HTTPLimits/maxUploadBytes`` once the request line is an image upload.
    var bodyLimit: Int

    /// Creates a scanner for one connection.
    package init(limits: HTTPLimits) {
        self.limits = limits
        bodyLimit = limits.maxBodyBytes
    }

    /// Readies the scanner for the next request on the connection.
    package mutating func reset() {
        self = RequestHeadScanner(limits: limits)
    }

    /// Scans the bytes received so far.
    ///
    /// - Parameter bytes: Every byte of this request's head received so far, from its first byte, possibly followed
    ///   by its body and later requests. Each call must offer the bytes of the previous call again, with any new
    ///   ones appended; the scan resumes where it stopped. (Offering fewer bytes than already scanned breaks that
    ///   contract; the scanner then starts over from byte 0 rather than read out of bounds.)
    /// - Returns: ``HeadScan/needMore`` until the head is complete or wrong; then the same terminal result for every
    ///   call until ``reset()``.
    package mutating func scan(_ bytes: Span<UInt8>) -> HeadScan {
        if let outcome {
            return outcome
        }
        if bytes.count < position {
            reset()
        }
        var index = position
        while index < bytes.count {
            index = skipOrdinaryBytes(bytes, from: index)
            guard index < bytes.count else {
                break
            }
            let byte = bytes[index]
            let ended: Bool
            if index >= limits.maxHeaderBytes {
                ended = overHeadLimit(bytes, byte: byte, at: index)
            } else {
                switch state {
                case .start, .afterLeadingCR, .method, .target, .version, .afterRequestLineCR:
                    ended = scanRequestLine(bytes, byte: byte, at: index)
                case .fieldLineStart, .fieldName, .fieldValue, .afterFieldCR, .afterFinalCR:
                    ended = scanField(bytes, byte: byte, at: index)
                }
            }
            if ended {
                return outcome ?? .needMore  // stop(_:) has set it
            }
            index += 1
        }
        position = index
        return .needMore
    }

    /// Skips a run of bytes that need no decision, the bulk of a head: field-value bytes and whitespace, field-name
    /// and method bytes, request-target bytes past the first and the scheme, a version that is `HTTP/1.1` or
    /// `HTTP/1.0`; returns the offset of the first byte that needs one.
    ///
    /// The per-byte steps would accept the same bytes with the same effect; this loop only spares them a call and a
    /// jump on the state for each byte (measured: it halves the time per head). It stops at the limits, so the byte
    /// over a limit always goes through the steps.
    ///
    /// Its reads are `bytes[unchecked:]`: each loop's condition already holds the index below `end`, and `end` is at
    /// most `bytes.count`, so the span's own bounds check would only repeat it. Under callgrind (a standalone
    /// `swiftc -O -wmo` build of HTTP1/ and what it uses, 10,000 scans) the checked reads cost 4,139 and 9,365
    /// instructions per wrk-style (91 bytes) and browser-style (310 bytes) head against 4,081 and 8,871 for the
    /// raw-pointer version it replaced; with these unchecked reads, 4,015 and 8,733.
    @inline(__always)
    private mutating func skipOrdinaryBytes(_ bytes: Span<UInt8>, from start: Int) -> Int {
        var index = start
        let end = min(bytes.count, limits.maxHeaderBytes)
        switch state {
        case .fieldValue:
            var first = valueStart
            var last = valueEnd
            while index < end {
                let byte = bytes[unchecked: index]
                if HTTPBytes.isFieldValueCharacter(byte) {
                    first = first < 0 ? index : first
                    last = index + 1
                } else if !HTTPBytes.isWhitespace(byte) {
                    break
                }
                index += 1
            }
            valueStart = first
            valueEnd = last
        case .fieldName:
            while index < end && HTTPBytes.isToken(bytes[unchecked: index]) {
                index += 1
            }
        case .method:
            let lineEnd = requestLineEnd(from: start, end: end)
            while index < lineEnd && HTTPBytes.isToken(bytes[unchecked: index]) {
                index += 1
            }
        case .target where start > targetStart && start - targetStart >= schemePrefixLength:
            // Past the first byte (which chose the form) and any scheme prefix, the step checks visibility only.
            let lineEnd = requestLineEnd(from: start, end: end)
            while index < lineEnd && HTTPBytes.isVisibleASCII(bytes[unchecked: index]) {
                index += 1
            }
        case .version where start == versionStart:
            // `HTTP/1.1` or `HTTP/1.0`, the versions accepted, in one comparison rather than eight steps; the line
            // end after it still goes through the step, which reads the digits again.
            let lineEnd = requestLineEnd(from: start, end: end)
            if lineEnd - start >= 8 && HTTPBytes.equals(bytes, start..<start + 7, "HTTP/1.") {
                let minor = bytes[unchecked: start + 7]
                if minor == UInt8(ascii: "1") || minor == UInt8(ascii: "0") {
                    index = start + 8
                }
            }
        default:
            break
        }
        return index
    }

    /// Where a run inside the request line that starts at `start` must stop: at `end`, or earlier at the first byte
    /// over ``SettingKey/maxRequestLineBytes`` (computed without overflow, whatever the limits).
    @inline(__always)
    private func requestLineEnd(from start: Int, end: Int) -> Int {
        let remaining = limits.maxRequestLineBytes - (start - lineStart)
        return remaining >= end - start ? end : start + max(0, remaining)
    }

    /// Ends the scan with `result`, which ``scan(_:)`` returns from now on; returns true, for `return stop(…)`.
    ///
    /// The step functions return a `Bool` (true: the scan has ended) rather than a `HeadScan?`, so that the hot loop
    /// never moves a large enum around for each byte.
    mutating func stop(_ result: HeadScan) -> Bool {
        outcome = result
        return true
    }

    /// Ends the scan with `rejection`; returns true, for `return reject(…)`.
    mutating func reject(_ rejection: HeadRejection) -> Bool {
        stop(.reject(rejection))
    }

    /// The rejection for a byte past ``SettingKey/maxHeaderBytes``: 414 if it also makes the request line too long,
    /// else 431.
    private mutating func overHeadLimit(_ bytes: Span<UInt8>, byte: UInt8, at index: Int) -> Bool {
        let inRequestLine = state == .method || state == .target || state == .version
        if inRequestLine && byte != HTTPBytes.cr && byte != HTTPBytes.lf
            && index - lineStart >= limits.maxRequestLineBytes
        {
            return reject(
                .requestLineTooLong(limit: limits.maxRequestLineBytes, start: bytes.copied(lineStart..<index)))
        }
        return reject(.headTooLarge(limit: limits.maxHeaderBytes))
    }
}
