/// HTTP caching: conditional requests against the strong entity tags of pages, items and details.
extension Router {
    /// A 304 for a request whose `If-None-Match` matches `tag`, or nil when the full response is due.
    ///
    /// The 304 carries the `ETag` and `Vary: Accept-Encoding`, as its JSON 200 does (RFC 9110 §15.4.5), and no
    /// body; ``Router/route(_:)`` adds `Cache-Control` and the CORS fields as to every response.
    static func notModified(_ tag: EntityTag, _ headers: HTTPHeaders) -> HTTPResponse? {
        guard let condition = headers["If-None-Match"], tag.matches(ifNoneMatch: condition) else { return nil }
        var response = HTTPResponse(status: 304, headers: ["ETag": tag.headerValue])
        response.vary.insert(.acceptEncoding)
        return response
    }
}
