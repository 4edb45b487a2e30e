/// What ``RequestHeadScanner/scan(_:)`` found in the bytes it was offered.
package enum HeadScan: Sendable, Equatable {
    /// The head is not complete yet, and nothing wrong was seen so far: offer the same bytes again with more appended.
    case needMore
    /// A complete, valid head: pass its ``RequestHead/headLength`` bytes, then ``RequestHead/bodyLength`` body
    /// bytes, on to evhttp.
    case complete(RequestHead)
    /// An invalid head: pass nothing on; answer with ``HeadRejection/response`` (through the marker request that
    /// stands in for the head) and close the connection.
    case reject(HeadRejection)
}

/// A complete, valid request head as the filter needs it: where it ends, how long its body is, and little else.
///
/// evhttp parses the head again for the application; the scanner only vouches that it is well-formed and within
/// the limits, and tells the filter how many bytes belong to this request.
package struct RequestHead: Sendable, Equatable {
    /// The head's length in bytes: any ignored empty lines before the request line, the request line, the header
    /// lines, and the empty line that ends the head, with every line ending (CRLF or LF).
    package let headLength: Int

    /// The bytes of the empty lines before the request line (part of ``headLength``): dropped, not passed on, since
    /// evhttp would read an empty line as an empty request line and answer it with its own HTML 400.
    package let skippedBytes: Int

    /// The body's length in bytes, from `Content-Length`; 0 when there is none (the scanner rejects chunked bodies,
    /// so a request without `Content-Length` has no body, RFC 9112 §6.3).
    package let bodyLength: Int

    /// The method: GET, HEAD, POST, PUT, DELETE, OPTIONS, PATCH or TRACE (CONNECT and unknown methods are rejected).
    package let method: HTTPMethod

    /// Whether the connection stays open after this request unless a `Connection` field says otherwise: true for
    /// HTTP/1.1, false for HTTP/1.0 (RFC 9112 §9.3). The scanner does not read `Connection`; evhttp does.
    package let keepAliveDefault: Bool

    /// Whether the request line says `HTTP/1.1` (otherwise it says `HTTP/1.0`).
    package let isHTTP11: Bool

    /// Where the request-target is among the head's bytes (offsets from its first byte): the filter reads it on a
    /// connection of the reserve, which serves only a few paths.
    package var targetRange: Range<Int> = 0..<0
}
