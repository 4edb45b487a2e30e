/// Cross-origin resource sharing for browser clients (Fetch standard, "CORS protocol"): which origins may read
/// responses, and the answer to a preflight `OPTIONS`.
///
/// Configured by ``SettingKey/corsAllowOrigin`` (see ``CORSOrigins``): `*` (the default) lets every origin read every
/// response; a list of origins echoes the request's `Origin` when it is listed and sends nothing for others; either
/// way a request without `Origin` gets no CORS fields, and every answer says `Vary: Origin`. An empty setting turns
/// CORS off, and the router then has no policy at all.
struct CORSPolicy: Sendable, Equatable {
    /// Who may read responses.
    let origins: CORSOrigins

    /// The response fields a browser script may read besides the CORS-safelisted ones.
    static let exposedHeaders =
        "Link, X-Total-Count, X-Cache, Server-Timing, ETag, Retry-After, X-Request-Id, Location, Idempotent-Replayed, "
        + "Content-Disposition, Picsum-ID, RateLimit, RateLimit-Policy, WWW-Authenticate, Content-Range, "
        + "Accept-Ranges"
    /// The methods a preflight allows: every method some route answers.
    static let allowedMethods = Route.allMethods
    /// The request fields a preflight allows: those the API reads.
    static let allowedHeaders =
        "Authorization, Cache-Control, Content-Type, If-Match, If-None-Match, If-Range, Idempotency-Key, Last-Event-ID, "
        + "Pragma, Range, X-Bandwidth-Kbps, X-Client-Id, X-Dataset, X-Request-Id"
    /// How long a browser may cache a preflight answer, in seconds.
    static let maxAgeSeconds = "600"

    /// Adds the CORS fields to the answer to a request with an `Origin` the policy allows:
    /// `Access-Control-Allow-Origin` and `Access-Control-Expose-Headers`; and `Origin` to what every answer varies by.
    ///
    /// Only to a request with an `Origin`, as Hummingbird's and Vapor's CORS middleware do: a browser sends one with
    /// every cross-origin request, and no other client reads these fields. Two lines a page that curl, wrk and native
    /// apps never read cost evhttp some 4,000 instructions a page (of 88,000, `Benchmarks/load/counters.sh`). So the
    /// answer depends on `Origin` and says so, whatever the policy (Fetch standard, "CORS protocol and HTTP caches":
    /// a cache must not hand a browser the answer made for a request without one).
    func decorate(_ headers: inout HTTPHeaders, vary: inout VaryFields, requestOrigin: String?) {
        vary.insert(.origin)
        guard let requestOrigin, let allowed = origins.allowOrigin(forRequestOrigin: requestOrigin) else { return }
        headers.add("Access-Control-Allow-Origin", allowed)
        headers.add("Access-Control-Expose-Headers", Self.exposedHeaders)
    }

    /// Whether `request` is a CORS preflight: `OPTIONS` with `Origin` and `Access-Control-Request-Method`.
    static func isPreflight(_ request: HTTPRequest) -> Bool {
        request.method == .options && request.headers["Origin"] != nil
            && request.headers["Access-Control-Request-Method"] != nil
    }

    /// The fields of a preflight answer (the caller adds the ones every response carries): the allowed methods,
    /// headers and the cache lifetime. Only for an origin the policy allows; others get none and the browser
    /// refuses the actual request.
    ///
    /// The allowed headers are those the preflight asks for (`Access-Control-Request-Headers`) when that is a
    /// well-formed list of field names: a mock backend should not be what stops a client from sending its own
    /// fields. Otherwise they are the fields the API reads, ``allowedHeaders``.
    func preflightHeaders(request: HTTPRequest) -> HTTPHeaders {
        guard origins.allowOrigin(forRequestOrigin: request.headers["Origin"]) != nil else { return HTTPHeaders() }
        var allowHeaders = Self.allowedHeaders
        if let requested = request.headers["Access-Control-Request-Headers"], Self.isFieldNameList(requested) {
            allowHeaders = requested
        }
        return [
            "Access-Control-Allow-Methods": Self.allowedMethods,
            "Access-Control-Allow-Headers": allowHeaders,
            "Access-Control-Max-Age": Self.maxAgeSeconds,
        ]
    }

    /// Whether `value` is a comma-separated list of one or more RFC 9110 tokens, with optional spaces around each.
    static func isFieldNameList(_ value: String) -> Bool {
        value.utf8.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false).allSatisfy { element in
            var name = element.drop { $0 == HTTPBytes.space || $0 == HTTPBytes.tab }
            while let last = name.last, last == HTTPBytes.space || last == HTTPBytes.tab { name = name.dropLast() }
            return !name.isEmpty && name.allSatisfy(HTTPBytes.isToken)
        }
    }
}
