import ListDomain

/// An RFC 9457 problem: what every error response carries, as `application/problem+json`.
///
/// The body holds the standard members `type` (one absolute URI per ``Kind``), `title`, `status` and `detail`, and,
/// for a bad query parameter, the extension member `parameter` naming it:
/// ```json
/// {"type":"urn:listserver:problem:invalid-parameter","title":"Invalid query parameter","status":400,
///  "detail":"query parameter \"page\" must be a decimal integer in 1...9007199254740992, got \"0\"",
///  "parameter":"page"}
/// ```
/// Routing code throws a `Problem` (typed throws) and ``Router`` turns it into a response in one place
/// (``response()``, in `JSON/Problem+JSON.swift`).
package struct Problem: Error, Sendable, Equatable {
    /// The kinds of problem the API documents; each has its own `type` URI, title and status.
    enum Kind: Sendable, Equatable, CaseIterable {
        /// 400: the request-target is malformed (not origin-form, broken percent-encoding outside `page`/`limit`).
        case invalidRequestTarget
        /// 400: `page` or `limit` is missing a value, not a plain decimal integer, out of range or repeated.
        case invalidParameter
        /// 400: the id in `/items/<id>` is not a plain decimal integer or does not fit 64 bits.
        case invalidID
        /// 404: no such path, or an item id past the end of the catalog.
        case notFound
        /// 405: a known path asked for with a method other than GET or HEAD.
        case methodNotAllowed
        /// 503: the server is draining for shutdown and takes no new requests (sent with `Connection: close`).
        case shuttingDown
        /// 500, 503 or 429: a failure the client asked for (`?fail=`); the status is the one injected (500 by
        /// default), and a 503 or 429 carries `Retry-After`.
        case injectedFault
        /// 400: the request head breaks HTTP/1.1 syntax or framing (see ``RequestHeadScanner``); sent with
        /// `Connection: close`, like every kind below.
        case malformedRequest
        /// 408: the request head did not arrive within ``SettingKey/headerTimeoutMs``.
        case requestTimeout
        /// 411: the request has a chunked body; the API only takes bodies with a `Content-Length`.
        case lengthRequired
        /// 413: the `Content-Length` is larger than ``SettingKey/maxBodyBytes`` (``SettingKey/imageMaxUploadBytes`` for
        /// an upload).
        case bodyTooLarge
        /// 414: the request line is longer than ``SettingKey/maxRequestLineBytes``.
        case requestLineTooLong
        /// 431: the request head is longer than ``SettingKey/maxHeaderBytes`` or has more than
        /// ``SettingKey/maxHeaderCount`` fields.
        case headersTooLarge
        /// 501: the method is a token the server does not know.
        case notImplemented
        /// 505: an HTTP version other than 1.0 and 1.1.
        case versionNotSupported
        /// 417: an `Expect` field other than `100-continue`.
        case expectationFailed
        /// 503: every connection is in use, and this one, from the reserve for probes and operators, serves only
        /// `/healthz`, `/readyz`, `/metrics` and `/admin/*` (sent with `Retry-After` and `Connection: close`).
        case serverBusy
        /// 400: the body of an admin request is not the JSON it takes.
        case invalidBody
        /// 401: an admin request without the bearer token ``SettingKey/adminToken`` requires (sent with
        /// `WWW-Authenticate`).
        case unauthorized
        /// 403: an admin request from a non-loopback client while no ``SettingKey/adminToken`` is configured.
        case forbidden
        /// 400: the body of a write is not JSON, breaks the item schema, or names an unknown field.
        case invalidItem
        /// 400: `X-Dataset` is not 1–64 of `[A-Za-z0-9._-]`, or `Idempotency-Key` is not 1–255 visible ASCII.
        case invalidHeader
        /// 409: the list already has 2^53 ids; no new item fits.
        case listFull
        /// 410: the change-feed position asked for is older than what is kept (or unknown): reload the list.
        case changesExpired
        /// 412: `If-Match` does not match the item's current `ETag` (or, on an image write, `If-Match` or
        /// `If-None-Match` does not match the item's image).
        case preconditionFailed
        /// 415: a write whose body is not `application/json` (or `application/merge-patch+json` for PATCH), or an
        /// upload whose `Content-Type` is no image type served, or another than its file is.
        case unsupportedMediaType
        /// 422: the `Idempotency-Key` was used before with a different request.
        case idempotencyKeyReused
        /// 503: the store could not commit the write (nothing was written; retry).
        case storeUnavailable
        /// 507: the store's disk is full (nothing was written).
        case storeFull
        /// 507: the write would give one dataset more than ``SettingKey/maxDatasets`` (nothing was written).
        case datasetLimit
        /// 507: the list holds what ``SettingKey/maxDatasetBytes`` allows (nothing was written).
        case datasetFull
        /// 503: every image worker is busy and the queue in front of them is full (retry after `Retry-After`).
        case imageBusy
        /// 500: a codec could not encode an image.
        case imageFailed
        /// 400: an uploaded image is empty, is no JPEG, PNG or WebP file, declares a size images may not have, or
        /// does not decode (truncated, damaged).
        case invalidImage
        /// 416: a `Range` that asks for no byte of the image (its first position at or past the end, or a suffix of
        /// 0); `Content-Range: bytes */<length>` says how long it is.
        case rangeNotSatisfiable
        /// 426: a WebSocket upgrade of a protocol version other than 13 (sent with `Sec-WebSocket-Version: 13`).
        case webSocketVersion

        /// The HTTP status code.
        var status: Int {
            switch self {
            case .invalidRequestTarget, .invalidParameter, .invalidID, .malformedRequest, .invalidBody, .invalidItem,
                .invalidHeader, .invalidImage:
                400
            case .listFull: 409
            case .changesExpired: 410
            case .preconditionFailed: 412
            case .unsupportedMediaType: 415
            case .idempotencyKeyReused: 422
            case .storeUnavailable, .imageBusy, .serverBusy: 503
            case .imageFailed: 500
            case .storeFull, .datasetLimit, .datasetFull: 507
            case .unauthorized: 401
            case .forbidden: 403
            case .notFound: 404
            case .injectedFault: 500
            case .methodNotAllowed: 405
            case .requestTimeout: 408
            case .lengthRequired: 411
            case .bodyTooLarge: 413
            case .requestLineTooLong: 414
            case .rangeNotSatisfiable: 416
            case .expectationFailed: 417
            case .headersTooLarge: 431
            case .webSocketVersion: 426
            case .notImplemented: 501
            case .shuttingDown: 503
            case .versionNotSupported: 505
            }
        }

        /// The `type` member: an absolute URI that identifies the kind for clients.
        var type: StaticString {
            switch self {
            case .invalidRequestTarget: "urn:listserver:problem:invalid-request-target"
            case .invalidParameter: "urn:listserver:problem:invalid-parameter"
            case .invalidID: "urn:listserver:problem:invalid-id"
            case .notFound: "urn:listserver:problem:not-found"
            case .methodNotAllowed: "urn:listserver:problem:method-not-allowed"
            case .shuttingDown: "urn:listserver:problem:shutting-down"
            case .injectedFault: "urn:listserver:problem:injected-fault"
            case .malformedRequest: "urn:listserver:problem:malformed-request"
            case .requestTimeout: "urn:listserver:problem:request-timeout"
            case .lengthRequired: "urn:listserver:problem:length-required"
            case .bodyTooLarge: "urn:listserver:problem:body-too-large"
            case .requestLineTooLong: "urn:listserver:problem:request-line-too-long"
            case .headersTooLarge: "urn:listserver:problem:headers-too-large"
            case .notImplemented: "urn:listserver:problem:not-implemented"
            case .versionNotSupported: "urn:listserver:problem:version-not-supported"
            case .expectationFailed: "urn:listserver:problem:expectation-failed"
            case .serverBusy: "urn:listserver:problem:server-busy"
            case .invalidBody: "urn:listserver:problem:invalid-body"
            case .unauthorized: "urn:listserver:problem:unauthorized"
            case .forbidden: "urn:listserver:problem:forbidden"
            case .invalidItem: "urn:listserver:problem:invalid-item"
            case .invalidHeader: "urn:listserver:problem:invalid-header"
            case .listFull: "urn:listserver:problem:list-full"
            case .changesExpired: "urn:listserver:problem:changes-expired"
            case .preconditionFailed: "urn:listserver:problem:precondition-failed"
            case .unsupportedMediaType: "urn:listserver:problem:unsupported-media-type"
            case .idempotencyKeyReused: "urn:listserver:problem:idempotency-key-reused"
            case .storeUnavailable: "urn:listserver:problem:store-unavailable"
            case .storeFull: "urn:listserver:problem:store-full"
            case .datasetLimit: "urn:listserver:problem:dataset-limit"
            case .datasetFull: "urn:listserver:problem:dataset-full"
            case .imageBusy: "urn:listserver:problem:image-busy"
            case .imageFailed: "urn:listserver:problem:image-failed"
            case .invalidImage: "urn:listserver:problem:invalid-image"
            case .rangeNotSatisfiable: "urn:listserver:problem:range-not-satisfiable"
            case .webSocketVersion: "urn:listserver:problem:websocket-version"
            }
        }

        /// The `title` member: the same short summary for every occurrence of the kind.
        var title: StaticString {
            switch self {
            case .invalidRequestTarget: "Invalid request target"
            case .invalidParameter: "Invalid query parameter"
            case .invalidID: "Invalid item id"
            case .notFound: "Not found"
            case .methodNotAllowed: "Method not allowed"
            case .shuttingDown: "Server shutting down"
            case .injectedFault: "Injected fault"
            case .malformedRequest: "Malformed request"
            case .requestTimeout: "Request timeout"
            case .lengthRequired: "Length required"
            case .bodyTooLarge: "Request body too large"
            case .requestLineTooLong: "Request line too long"
            case .headersTooLarge: "Request header fields too large"
            case .notImplemented: "Method not implemented"
            case .versionNotSupported: "HTTP version not supported"
            case .expectationFailed: "Expectation failed"
            case .serverBusy: "Server busy"
            case .invalidBody: "Invalid request body"
            case .unauthorized: "Unauthorized"
            case .forbidden: "Forbidden"
            case .invalidItem: "Invalid item"
            case .invalidHeader: "Invalid header field"
            case .listFull: "List full"
            case .changesExpired: "Changes no longer kept"
            case .preconditionFailed: "Precondition failed"
            case .unsupportedMediaType: "Unsupported media type"
            case .idempotencyKeyReused: "Idempotency key reused"
            case .storeUnavailable: "Store unavailable"
            case .storeFull: "Insufficient storage"
            case .datasetLimit: "Too many datasets"
            case .datasetFull: "Dataset full"
            case .imageBusy: "Image workers busy"
            case .imageFailed: "Image could not be encoded"
            case .invalidImage: "Invalid image"
            case .rangeNotSatisfiable: "Range not satisfiable"
            case .webSocketVersion: "WebSocket version not supported"
            }
        }
    }

    /// The kind, which fixes `type` and `title`.
    var kind: Kind
    /// The HTTP status code: the kind's, unless the problem was made with another (an injected 503 or 429).
    package var status: Int
    /// The `detail` member: what went wrong with this request, in words a client developer can act on.
    var detail: String
    /// The `parameter` extension member: the query parameter at fault, if any.
    var parameter: String?
    /// Header fields the response needs besides `Content-Type` (`Allow` on a 405, `Retry-After` on a 503).
    var headers: HTTPHeaders
    /// A dataset the request found out of memory as it read it (`Router+Loading.swift`): the router reads it from
    /// the store and routes the request again rather than answer this problem, which is what a request gets when
    /// the dataset is still not in memory after that.
    var datasetToLoad: String?

    /// Creates a problem.
    ///
    /// - Parameters:
    ///   - kind: The kind of problem.
    ///   - detail: The `detail` member.
    ///   - parameter: The query parameter at fault, written as the `parameter` extension member; nil for none.
    ///   - headers: Extra response header fields; none by default.
    ///   - status: The status code, if not the kind's own (only ``Kind/injectedFault`` has a choice).
    init(
        _ kind: Kind, detail: String, parameter: String? = nil, headers: HTTPHeaders = HTTPHeaders(),
        status: Int? = nil
    ) {
        self.kind = kind
        self.status = status ?? kind.status
        self.detail = detail
        self.parameter = parameter
        self.headers = headers
    }

    /// The longest part of a client-supplied value quoted in a `detail`, in Unicode scalars.
    static let quotedValueLimit = 64

    /// `value` in double quotes, safe to show: `"` and `\` escaped, anything but printable ASCII as `\u{…}`,
    /// cut after ``quotedValueLimit`` scalars with `...`.
    ///
    /// Details echo what the client sent; escaping keeps control characters, bidirectional overrides and
    /// invisible characters from hiding in logs and consoles, and the limit keeps a 8 kB value from being echoed whole.
    static func quoted(_ value: some StringProtocol) -> String {
        var result = "\""
        var scalarsLeft = quotedValueLimit
        for scalar in value.unicodeScalars {
            guard scalarsLeft > 0 else {
                result += "\"..."
                return result
            }
            scalarsLeft -= 1
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case " "..."~": result.unicodeScalars.append(scalar)
            default: result += "\\u{" + String(scalar.value, radix: 16) + "}"
            }
        }
        return result + "\""
    }
}
