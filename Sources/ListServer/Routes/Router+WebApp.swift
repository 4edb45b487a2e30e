/// `GET /` and `GET /app/<file>`: the browser app (``WebAssets``, compiled in from `Web/`).
///
/// Only the files of the compiled-in table exist: a name is looked up, never joined to a path, so `..`, an encoded
/// slash or NUL, or an absolute path in the segment cannot reach anything (404; a segment that does not decode is
/// the router's 400). Each answer carries its media type, a strong `ETag` (304 on a match), `nosniff`, and a
/// Content-Security-Policy that lets the page load its own scripts, styles, images and `fetch`/`EventSource`
/// targets from this origin only: no inline script or style, no plugin, no framing.
extension Router {
    /// The policy on every file of the app.
    static let contentSecurityPolicy =
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; "
        + "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'"

    /// The answer for the app's file `name` (`index.html` for `/`).
    static func webAsset(_ name: String, headers: HTTPHeaders) throws(Problem) -> HTTPResponse {
        guard let answers = webResponses[name], let asset = WebAssets.files[name] else {
            throw Problem(.notFound, detail: "the app has no file \(Problem.quoted(name))")
        }
        if let condition = headers["If-None-Match"], EntityTag.ifNoneMatch(condition, matches: asset.tag) {
            return answers.notModified
        }
        return answers.full
    }

    /// Built once: the files never change while the server runs.
    private static let webResponses: [String: (full: HTTPResponse, notModified: HTTPResponse)] =
        WebAssets.files.mapValues { asset in
            var headers = HTTPHeaders(capacity: 8)
            headers.add("ETag", asset.tag)
            headers.add("X-Content-Type-Options", "nosniff")
            headers.add("Content-Security-Policy", contentSecurityPolicy)
            headers.add("Referrer-Policy", "no-referrer")
            let notModified = HTTPResponse(status: 304, headers: headers)
            headers.add("Content-Type", asset.contentType)
            return (HTTPResponse(status: 200, headers: headers, body: Array(asset.text.utf8)), notModified)
        }
}
