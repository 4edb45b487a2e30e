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
    /// `request` as the router is given it when that differs from what the client sent (the journal keeps that): the
    /// suffix of the coding its `Accept-Encoding` prefers taken off the entity tags of its conditions; nil when
    /// there is none to take off, as for nearly every request (no copy of it made then).
    static func routed(_ request: HTTPRequest) -> HTTPRequest? {
        let (noneMatch, match) = request.headers.values("If-None-Match", "If-Match")
        guard noneMatch != nil || match != nil,
            let coding = ContentCoding.preferred(request.headers["Accept-Encoding"]),
            noneMatch?.contains(coding.tagSuffix + "\"") == true || match?.contains(coding.tagSuffix + "\"") == true
        else { return nil }
        var routed = request
        routed.headers.transformValues(of: "If-None-Match") { coding.strippingSuffix(from: $0) }
        routed.headers.transformValues(of: "If-Match") { coding.strippingSuffix(from: $0) }
        return routed
    }

    /// Puts `response` in the form it goes out to `request` in: compressed when it is JSON of at least a kilobyte
    /// and the request accepts a coding; a 304 tagged as the representation the client revalidated. Applied once: a
    /// response held and then sent is not compressed again. In place: a page not compressed is left as it is, with
    /// no copy of it made.
    func encode(_ response: inout HTTPResponse, for request: EvHTTPRequest) {
        guard !response.encoded else { return }
        response.encoded = true
        if response.status == 304 {
            // Tagged as the representation revalidated, the coding the request prefers when its tag said so. The
            // router marks the 304s of JSON representations as varying (RFC 9110 §15.4.5: the Vary its 200 had);
            // one whose tag names a coding varies whatever it is.
            if let coding = ContentCoding.preferred(request.inputHeader("Accept-Encoding")),
                request.inputHeader("If-None-Match")?.contains(coding.tagSuffix + "\"") == true
            {
                response.headers.transformValues(of: "ETag") { coding.tagging($0) }
                response.vary.insert(.acceptEncoding)
            }
            return
        }
        // Every JSON answer varies by Accept-Encoding, whatever its size, so its 304 (which the router builds without
        // the body, and marks) says the same as its 200.
        guard Self.variesByEncoding(response) else { return }
        response.vary.insert(.acceptEncoding)
        guard ContentCoding.minimumBodyBytes...ContentCoding.maximumBodyBytes ~= response.body.count,
            let coding = ContentCoding.preferred(request.inputHeader("Accept-Encoding")),
            let body = compressedBodies.body(of: response.body, in: coding, compressor: compressor)
        else { return }
        response.identityBytes = response.body.count
        response.body = body
        response.headers.add("Content-Encoding", coding.name)
        response.headers.transformValues(of: "ETag") { coding.tagging($0) }
    }

    /// Whether `response` (not a 304) goes out with `Vary: Accept-Encoding`: every JSON answer but a part of one.
    static func variesByEncoding(_ response: HTTPResponse) -> Bool {
        response.status != 206 && isCompressible(response.headers)
    }

    /// Whether a body with these fields is JSON. ListServer's own JSON types are compared whole first
    /// (`String.hasPrefix` compares characters, not bytes: 155 instructions a page, callgrind). No route sets
    /// `Content-Encoding` (``encode(_:for:)`` alone does, once), so it is not looked for: a look through an answer's
    /// fields for one that is never there cost 280 instructions a page.
    private static func isCompressible(_ headers: HTTPHeaders) -> Bool {
        guard let type = headers["Content-Type"] else { return false }
        return type == MediaType.json || type == MediaType.problemJSON
            || type.utf8.starts(with: "application/json".utf8)
            || type.utf8.starts(with: "application/problem+json".utf8)
    }

    /// The head of event stream `stream`: with `Content-Encoding: gzip` when its request accepts gzip, and then a
    /// gzip stream for its events (``EventStreamCompressor``, flushed after each); `Vary: Accept-Encoding` either way.
    /// gzip alone: it is the coding every EventSource in a browser decodes as it arrives.
    func encodeEvents(of stream: EventStream, _ opened: HTTPResponse) -> HTTPResponse {
        var opened = opened
        opened.vary.insert(.acceptEncoding)
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
