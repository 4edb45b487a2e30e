/// A request method (RFC 9110 §9); method names are case-sensitive.
enum HTTPMethod: Sendable, Equatable, Hashable {
    case get, head, post, put, delete, options, patch, trace, connect
    /// Any other method token, exactly as received.
    case other(String)

    /// The method for a method token as it appears on the request line (`"GET"`, `"PROPFIND"`).
    init(_ name: String) {
        switch name {
        case "GET": self = .get
        case "HEAD": self = .head
        case "POST": self = .post
        case "PUT": self = .put
        case "DELETE": self = .delete
        case "OPTIONS": self = .options
        case "PATCH": self = .patch
        case "TRACE": self = .trace
        case "CONNECT": self = .connect
        default: self = .other(name)
        }
    }

    /// The method token as it appears on the request line.
    var name: String {
        switch self {
        case .get: "GET"
        case .head: "HEAD"
        case .post: "POST"
        case .put: "PUT"
        case .delete: "DELETE"
        case .options: "OPTIONS"
        case .patch: "PATCH"
        case .trace: "TRACE"
        case .connect: "CONNECT"
        case .other(let name): name
        }
    }
}

/// A request as the router sees it: plain values, no sockets and no C types.
///
/// The LibEvent layer builds one per evhttp request; tests build them directly.
struct HTTPRequest: Sendable {
    /// The request method.
    var method: HTTPMethod
    /// The raw request-target, still percent-encoded, e.g. `/items?page=2&limit=20`.
    var target: String
    /// The request's header fields.
    var headers: HTTPHeaders

    /// Creates a request.
    ///
    /// - Parameters:
    ///   - method: The request method.
    ///   - target: The raw request-target (origin-form, or absolute-form as a proxy would send it).
    ///   - headers: The header fields; none by default.
    init(method: HTTPMethod, target: String, headers: HTTPHeaders = HTTPHeaders()) {
        self.method = method
        self.target = target
        self.headers = headers
    }
}

/// A complete response: status, header fields (including `Content-Type`) and body.
///
/// For `HEAD` the router builds the same response as for `GET`; the LibEvent layer leaves the body off the wire.
struct HTTPResponse: Sendable {
    /// The status code, e.g. 200.
    var status: Int
    /// The header fields, including `Content-Type`; the LibEvent layer adds `Content-Length` and `Date`.
    var headers: HTTPHeaders
    /// The body bytes.
    var body: [UInt8]

    /// Creates a response.
    ///
    /// - Parameters:
    ///   - status: The status code.
    ///   - headers: The header fields; none by default.
    ///   - body: The body bytes; empty by default.
    init(status: Int, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// Media types the router answers with.
enum MediaType {
    /// Every success response: `application/json; charset=utf-8`.
    static let json = "application/json; charset=utf-8"
    /// Every error response (RFC 9457): `application/problem+json`.
    static let problemJSON = "application/problem+json"
}
