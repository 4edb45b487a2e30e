/// The answer to a request head the server refuses: a problem+json error that closes the connection.
///
/// A rejected head never reaches evhttp: `ConnectionGuard` hands evhttp a marker request in its place, and the
/// server answers that marker with ``response`` through evhttp, in order behind any requests already on the
/// connection. After a malformed head nobody can know where the next request would begin, so every rejection
/// carries `Connection: close`; a 405 for CONNECT also carries `Allow: GET, HEAD, OPTIONS`. The factory functions
/// that build each rejection, with its `detail`, are in `HeadRejection+Reasons.swift` and
/// `HeadRejection+FieldReasons.swift`.
package struct HeadRejection: Sendable, Equatable {
    /// The status code, from the problem's kind.
    package let status: Int

    /// The problem: kind, `detail`, and the extra header fields (`Connection: close`, and `Allow` on a 405).
    let problem: Problem

    /// ``response`` as a complete HTTP/1.1 response: status line, `Content-Type: application/problem+json`,
    /// `Content-Length`, any `Allow`, `Connection: close`, the empty line, and the problem+json body. No `Date`.
    ///
    /// Made when asked for: evhttp writes the answer to the marker request that stands for most rejections; these
    /// bytes go to the socket only for a body that misses its deadline (`ConnectionGuard`), and the tests and the
    /// fuzzer parse them to check that every rejection is a valid response.
    package var wireBytes: [UInt8] { Self.serialize(problem.response()) }

    /// Creates a rejection.
    ///
    /// - Parameters:
    ///   - kind: The problem's kind, which fixes the status.
    ///   - detail: What was wrong, in words.
    ///   - headers: Header fields besides `Content-Type`, `Content-Length` and `Connection: close`.
    init(_ kind: Problem.Kind, detail: String, headers: HTTPHeaders = HTTPHeaders()) {
        var allHeaders = headers
        allHeaders.add("Connection", "close")
        problem = Problem(kind, detail: detail, headers: allHeaders)
        status = kind.status
    }

    /// The response as the router's layer would send it: problem+json with `Connection: close` (and `Allow` on a
    /// 405); whoever sends it adds `Content-Length`.
    package var response: HTTPResponse { problem.response() }

    /// 408: the whole request head did not arrive within ``SettingKey/headerTimeoutMs``; the filter sends it when the
    /// header deadline passes.
    static func requestTimeout(limits: HTTPLimits) -> HeadRejection {
        HeadRejection(
            .requestTimeout,
            detail: "the request head did not arrive within \(limits.headerTimeout.wholeMilliseconds) ms")
    }

    /// `response` as HTTP/1.1 bytes: the status line, `Content-Type`, `Content-Length`, the other header fields in
    /// order, the empty line, the body.
    private static func serialize(_ response: HTTPResponse) -> [UInt8] {
        let contentType = response.headers["Content-Type"] ?? MediaType.problemJSON
        var head = "HTTP/1.1 \(response.status) \(HTTPReasonPhrase.of(response.status))\r\n"
        head += "Content-Type: \(contentType)\r\nContent-Length: \(response.body.count)\r\n"
        for (name, value) in response.headers where !HTTPHeaders.namesMatch(name, "Content-Type") {
            head += "\(name): \(value)\r\n"
        }
        head += "\r\n"
        return Array(head.utf8) + response.body
    }
}
