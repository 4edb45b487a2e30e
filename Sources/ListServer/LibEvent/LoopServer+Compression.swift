/// Compressed JSON (issue 35): a JSON answer of a kilobyte to 256 KiB goes out in the coding the request's
/// `Accept-Encoding` prefers (``ContentCoding``), with `Content-Encoding`, `Vary: Accept-Encoding` and an entity tag
/// of its own (`"v1-ab12-gzip"`); images never (they are compressed already), nor ranges.
///
/// Done here, as the answer leaves, so every route's answer is covered however it was made (at once, deferred,
/// held): the router's tags, conditions and bodies stay those of the identity representation. The router is given
/// `If-None-Match` and `If-Match` without the suffix of the coding the request accepts (``routed(_:)``), so a client
/// that revalidates the gzip representation it holds gets its 304, tagged as it knows it; a tag of another coding
/// keeps its suffix and matches nothing.
///
/// Compressed bodies are kept per loop by the digest of the identity body and the coding
/// (``CompressedBodies``): pages are the same bytes for every client of a list's version, and compressing one took
/// about 20 µs on a loop (as much as the rest of the request), where finding it kept takes the digest of the body,
/// 0.3 µs.
extension LoopServer {
    /// `request` as the router is given it: the suffix of the coding its `Accept-Encoding` prefers taken off the
    /// entity tags of its conditions (the journal keeps the request as the client sent it).
    static func routed(_ request: HTTPRequest) -> HTTPRequest {
        let (noneMatch, match) = request.headers.values("If-None-Match", "If-Match")
        guard noneMatch != nil || match != nil,
            let coding = ContentCoding.preferred(request.headers["Accept-Encoding"]),
            noneMatch?.contains(coding.tagSuffix + "\"") == true || match?.contains(coding.tagSuffix + "\"") == true
        else { return request }
        var routed = request
        routed.headers.transformValues(of: "If-None-Match") { coding.strippingSuffix(from: $0) }
        routed.headers.transformValues(of: "If-Match") { coding.strippingSuffix(from: $0) }
        return routed
    }

    /// `response` as it goes out to `request`: compressed when it is JSON of at least a kilobyte and the request
    /// accepts a coding; a 304 tagged as the representation the client revalidated. Applied once: a response held
    /// and then sent is not compressed again.
    func encoded(_ response: HTTPResponse, for request: EvHTTPRequest) -> HTTPResponse {
        guard !response.encoded else { return response }
        var response = response
        response.encoded = true
        if response.status == 304 {
            // Tagged as the representation revalidated, the coding the request prefers when its tag said so, with
            // the Vary its 200 had (RFC 9110 §15.4.5). A 304 of an identity representation says nothing of
            // Accept-Encoding: the LibEvent layer cannot tell a page's 304 (whose 200 said it) from an image's.
            if let coding = ContentCoding.preferred(request.inputHeader("Accept-Encoding")),
                request.inputHeader("If-None-Match")?.contains(coding.tagSuffix + "\"") == true
            {
                response.headers.transformValues(of: "ETag") { coding.tagging($0) }
                response.headers.add("Vary", "Accept-Encoding")
            }
            return response
        }
        guard ContentCoding.minimumBodyBytes...ContentCoding.maximumBodyBytes ~= response.body.count,
            response.status != 206,
            Self.isCompressible(response.headers)
        else { return response }
        response.headers.add("Vary", "Accept-Encoding")
        guard let coding = ContentCoding.preferred(request.inputHeader("Accept-Encoding")),
            let body = compressedBodies.body(of: response.body, in: coding, compressor: compressor)
        else { return response }
        response.body = body
        response.headers.add("Content-Encoding", coding.name)
        response.headers.transformValues(of: "ETag") { coding.tagging($0) }
        return response
    }

    /// Whether a body with these fields is JSON that is not encoded yet.
    private static func isCompressible(_ headers: HTTPHeaders) -> Bool {
        let (type, encoding) = headers.values("Content-Type", "Content-Encoding")
        guard encoding == nil, let type else { return false }
        return type.hasPrefix("application/json") || type.hasPrefix("application/problem+json")
    }

    /// The head of event stream `stream`: with `Content-Encoding: gzip` when its request accepts gzip, and then a
    /// gzip stream for its events (``EventStreamCompressor``, flushed after each); `Vary: Accept-Encoding` either way.
    /// gzip alone: it is the coding every EventSource in a browser decodes as it arrives.
    func encodeEvents(of stream: EventStream, _ opened: HTTPResponse) -> HTTPResponse {
        var opened = opened
        opened.headers.add("Vary", "Accept-Encoding")
        guard ContentCoding.preferred(stream.request.inputHeader("Accept-Encoding"), offering: [.gzip]) != nil,
            let compressor = EventStreamCompressor()
        else { return opened }
        stream.compressor = compressor
        opened.headers.add("Content-Encoding", ContentCoding.gzip.name)
        return opened
    }

    /// `frame`'s event as `compressor` carries it on its stream, framed; nil if zlib failed.
    func compressed(_ frame: EventFrame, by compressor: EventStreamCompressor) -> EventFrame? {
        guard let bytes = frame.withEvent({ compressor.compress($0) }), !bytes.isEmpty else { return nil }
        return EventFrame(bytes)
    }
}
