import Foundation
import ListServer

/// The promises the harness checks; a broken one is a crash, which libFuzzer records with its input.
enum FuzzCheck {
    /// Crashes with `message` unless `condition` holds.
    static func require(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition {
            fatalError("fuzz check failed: \(message())")
        }
    }

    /// Statuses the router may answer with (the connection layer adds its own).
    /// 204 answers OPTIONS, 304 a matching If-None-Match, 401 and 403 guard /admin/reset, and 429, 500 and 503
    /// are injected faults too.
    static let routerStatuses: Set<Int> = [
        200, 201, 204, 304, 308, 400, 401, 403, 404, 405, 409, 410, 412, 415, 422, 429, 500, 503, 507,
    ]

    /// A thrown problem has one of `statuses` and a well-formed body.
    static func problem(_ problem: Problem, statuses: Set<Int>) {
        require(statuses.contains(problem.status), "problem status \(problem.status)")
        problemBody(problem.response())
    }

    /// Everything a response promises, whatever the request.
    /// The `Allow` values of the routes, written out (not read from ``Route``, so a wrong table is caught too).
    static let allowValues: Set<String> = [
        "GET, HEAD, OPTIONS", "POST, OPTIONS", "GET, HEAD, POST, OPTIONS", "GET, HEAD, PATCH, DELETE, OPTIONS",
        "GET, HEAD, PUT, DELETE, OPTIONS", "GET, OPTIONS", "DELETE, OPTIONS",
    ]
    /// The `Content-Type` of `GET /items/events`, which the fuzzer sees as a head without a body.
    static let eventStream = "text/event-stream; charset=utf-8"

    static func response(
        _ response: HTTPResponse, for request: HTTPRequest, statuses: Set<Int> = routerStatuses
    ) {
        require(statuses.contains(response.status), "status \(response.status) for \(request.target)")
        for (name, value) in response.headers {
            // Header injection: no field may carry a line break or NUL into the response head.
            let forbidden: Set<UInt8> = [0x00, 0x0A, 0x0D]
            require(!name.utf8.contains(where: forbidden.contains), "a control byte in header name \(name)")
            require(!value.utf8.contains(where: forbidden.contains), "a control byte in header \(name)")
        }
        let contentType = response.headers["Content-Type"]
        switch response.status {
        case 204, 304:
            require(response.body.isEmpty, "\(response.status) with a body")
            require(contentType == nil, "\(response.status) with Content-Type \(contentType ?? "")")
        case 308:
            // Only a bare dataset base (`/d/<name>`) is redirected: to itself with a slash, the query kept.
            let location = response.headers["Location"] ?? ""
            let path = (try? RequestTarget(request.target)).map { String($0.base) + "/" }
            require(
                path != nil && location.hasPrefix(path!) && response.body.isEmpty && contentType == nil,
                "a 308 to \(location) for \(request.target)")
        case 200 where contentType == Self.eventStream:
            require(request.method == .get, "an event stream for \(request.method.name)")
        case 200 where WebAssets.files.values.contains(where: { $0.contentType == contentType }):
            // The app at /: only its own files, byte for byte.
            let files = WebAssets.files.values.map { Array($0.text.utf8) }
            require(files.contains(response.body), "a 200 \(contentType ?? "") that is none of the app's files")
        case 200, 201:
            require(
                contentType == MediaType.json || (response.status == 200 && contentType == MediaType.yaml),
                "\(response.status) with Content-Type \(contentType ?? "none")")
            if contentType == MediaType.json {
                require(
                    (try? JSONSerialization.jsonObject(with: Data(response.body))) is [String: Any],
                    "a 200 body that is not a JSON object")
            }
        default:
            require(
                contentType == MediaType.problemJSON,
                "\(response.status) with Content-Type \(contentType ?? "none")")
            problemBody(response)
            if response.status == 405 {
                require(Self.allowValues.contains(response.headers["Allow"] ?? ""), "405 without Allow")
            }
        }
    }

    /// A problem body: a JSON object whose `status` is the response's, in printable ASCII only (client values
    /// are quoted with escapes, so nothing a client sends reaches a log or console raw).
    static func problemBody(_ response: HTTPResponse) {
        require(
            response.body.allSatisfy { (0x20...0x7E).contains($0) },
            "a problem body with a non-printable byte: \(response.body.map { String($0, radix: 16) })")
        let object = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any]
        require(object != nil, "a problem body that is not a JSON object")
        require((object?["status"] as? NSNumber)?.intValue == response.status, "a problem whose status differs")
        require((object?["type"] as? String)?.hasPrefix("urn:listserver:problem:") == true, "a problem type")
    }
}
