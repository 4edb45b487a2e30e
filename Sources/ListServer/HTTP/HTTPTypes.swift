import ListDomain

/// A request method (RFC 9110 §9); method names are case-sensitive.
package enum HTTPMethod: Sendable, Equatable, Hashable {
    case get, head, post, put, delete, options, patch, trace, connect
    /// Any other method token, exactly as received.
    case other(String)

    /// The method for a method token as it appears on the request line (`"GET"`, `"PROPFIND"`).
    package init(_ name: String) {
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
    package var name: String {
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
package struct HTTPRequest: Sendable {
    /// The request method.
    package var method: HTTPMethod
    /// The raw request-target, still percent-encoded, e.g. `/items?page=2&limit=20`.
    package var target: String
    /// The request's header fields.
    package var headers: HTTPHeaders
    /// The body bytes (only `POST /admin/reset` reads one); empty for most requests.
    var body: [UInt8]
    /// Whether the client connected from a loopback address (127.0.0.0/8 or ::1).
    var fromLoopback: Bool
    /// The client's address as evhttp gives it (`127.0.0.1`, `::1`); empty for requests built by hand.
    var peer: String
    /// The client's port (0 for requests built by hand): with ``peer``, what tells one connection of a client from
    /// another in the journal.
    var peerPort: UInt16 = 0
    /// The request id: the client's `X-Request-Id` when it sent a usable one, otherwise one the server made up.
    /// Empty only for requests built by hand (tests), which then get no `X-Request-Id` back.
    var requestID: String
    /// The index of the loop that serves it (0 for requests built by hand): what loop-local state it may use (a
    /// dataset profile's shard).
    var loop = 0

    /// Creates a request.
    ///
    /// - Parameters:
    ///   - method: The request method.
    ///   - target: The raw request-target (origin-form, or absolute-form as a proxy would send it).
    ///   - headers: The header fields; none by default.
    ///   - body: The body; empty by default.
    ///   - fromLoopback: Whether the peer is a loopback address; true by default.
    ///   - requestID: The request id; none by default.
    ///   - peer: The client's address; none by default.
    package init(
        method: HTTPMethod,
        target: String,
        headers: HTTPHeaders = HTTPHeaders(),
        body: [UInt8] = [],
        fromLoopback: Bool = true,
        requestID: String = "",
        peer: String = ""
    ) {
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
        self.fromLoopback = fromLoopback
        self.requestID = requestID
        self.peer = peer
    }
}

/// A complete response: status, header fields (including `Content-Type`) and body.
///
/// For `HEAD` the router builds the same response as for `GET`; the LibEvent layer leaves the body off the wire.
package struct HTTPResponse: Sendable {
    /// The status code, e.g. 200.
    package var status: Int
    /// The header fields, including `Content-Type`; the LibEvent layer adds `Content-Length` and `Date`.
    package var headers: HTTPHeaders
    /// The body bytes.
    package var body: [UInt8]
    /// How long the LibEvent layer holds the response before acting on it (`?delay_ms`, page latency), on a loop
    /// timer; zero acts at once.
    var delay: Duration
    /// A transport-level fault to act out instead of a normal send (injected faults); nil sends normally.
    var fault: WireFault?
    /// The rate the body goes out at, in bytes a second (a profile's `bandwidth`, `?kbps=`): the LibEvent layer
    /// sends it in slices on a loop timer after ``delay``; nil sends it at once.
    var bytesPerSecond: Int?
    /// The IETF rate-limit fields, written into the head with ``headers`` (a profile's `rate_limit`).
    package var rateLimit: RateLimitFields?
    /// Whether the LibEvent layer has put the body in the request's content coding already (compressed, or found
    /// it should not be); a held answer is not encoded twice.
    var encoded = false
    /// The request fields the answer depends on: the LibEvent layer writes them as one `Vary` line with the other
    /// fields (``VaryFields``).
    var vary: VaryFields = []
    /// The length of the body before the LibEvent layer compressed it; nil for a body sent as the router made it.
    var identityBytes: Int?
    /// What the journal notes of this answer beyond its status and fields: the fault ListServer injected, or the
    /// ids a list page held (``ResponseNote``); nil for most answers. Never sent.
    var note: ResponseNote?

    /// Creates a response.
    ///
    /// - Parameters:
    ///   - status: The status code.
    ///   - headers: The header fields; none by default.
    ///   - body: The body bytes; empty by default.
    ///   - delay: How long to hold it before sending; none by default.
    ///   - fault: A transport-level fault to act out instead; none by default.
    package init(
        status: Int,
        headers: HTTPHeaders = HTTPHeaders(),
        body: [UInt8] = [],
        delay: Duration = .zero,
        fault: WireFault? = nil
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.delay = delay
        self.fault = fault
    }
}

/// What the request journal notes of an answer that its status and header fields do not say.
enum ResponseNote: Sendable, Equatable {
    /// ListServer injected this answer: `500`, `503`, `429` (a fault control or `faults.rate`), `outage` or
    /// `rate_limit` (a dataset profile), `scripted` (a profile's script).
    case injected(String)
    /// A page of a list: the lowest and highest id on it (both 0 for an empty page), how many it held, and whether
    /// it was the last (`next_page: null`, `has_more: false`).
    case listed(lowest: UInt64, highest: UInt64, count: Int, last: Bool)

    /// The note of a page holding `ids` (in any order).
    static func listed(_ ids: some Collection<UInt64>, last: Bool) -> ResponseNote {
        .listed(lowest: ids.min() ?? 0, highest: ids.max() ?? 0, count: ids.count, last: last)
    }
}

/// A fault acted out on the connection rather than in a status code: what a flaky network or a crashing backend
/// does to a client. The LibEvent layer carries these out after the response's ``HTTPResponse/delay``.
package enum WireFault: Sendable, Equatable {
    /// Close the connection without answering, with a TCP reset (`SO_LINGER` 0): the client sees
    /// "connection reset by peer".
    case reset
    /// Send the status line and headers with the full `Content-Length`, then only the first half of the body,
    /// then close the connection: the client sees a truncated body.
    case truncated
    /// Answer nothing for this long, then close the connection without answering: the client's own timeout
    /// should fire first. Shutdown answers a hanging request with 503 like any request in flight.
    case hang(Duration)

    /// The fault's name in the access log and the request journal: `reset`, `truncated`, `hang`.
    var name: String {
        switch self {
        case .reset: "reset"
        case .truncated: "truncated"
        case .hang: "hang"
        }
    }
}

/// Media types the router answers with.
package enum MediaType {
    /// Every success response: `application/json; charset=utf-8`.
    package static let json = "application/json; charset=utf-8"
    /// Every error response (RFC 9457): `application/problem+json`.
    package static let problemJSON = "application/problem+json"

    /// An image of `format`: `image/jpeg`, `image/png`, `image/webp`.
    static func image(_ format: ImageFormat) -> String {
        switch format {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .webp: "image/webp"
        }
    }
}
