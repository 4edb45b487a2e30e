/// How a problem is written on the wire: its `application/problem+json` body, through the one JSON writer the server
/// has (here rather than beside ``Problem``, so that the HTTP values do not depend on the JSON room, which reports
/// its own errors as problems).
extension Problem {
    /// The error response: the problem as `application/problem+json`, with ``headers``.
    package func response() -> HTTPResponse {
        var json = JSONWriter(capacity: 160 + detail.utf8.count + (parameter?.utf8.count ?? 0))
        json.append(raw: "{\"type\":\"")
        json.append(raw: kind.type)
        json.append(raw: "\",\"title\":\"")
        json.append(raw: kind.title)
        json.append(raw: "\",\"status\":")
        json.append(integer: status)
        json.append(raw: ",\"detail\":")
        json.append(string: detail)
        if let parameter {
            json.append(raw: ",\"parameter\":")
            json.append(string: parameter)
        }
        json.append(raw: "}")

        var responseHeaders = HTTPHeaders([("Content-Type", MediaType.problemJSON)])
        for (name, value) in headers {
            responseHeaders.add(name, value)
        }
        return HTTPResponse(status: status, headers: responseHeaders, body: json.bytes)
    }
}
