/// One request as the journal keeps it: what the client asked, what it got, and when.
///
/// What the journal's readers get: read from a ``JournalSlot`` (how the journal keeps a request) when the journal is
/// read. Times are microseconds since the journal's epoch on the monotonic clock; the entries of one dataset are
/// numbered by ``seq`` in the order the journal took them in.
struct JournalEntry: Sendable, Equatable {
    /// The entry's number in its dataset's journal, from 1; never reused while the server runs (a `DELETE` empties
    /// the journal and numbering goes on).
    var seq: UInt64 = 0
    /// When the request arrived, in microseconds on the journal's clock.
    var start: Int64
    /// How long from its arrival until its answer was handed over (or the client left), in microseconds.
    var duration: Int64
    /// `X-Client-Id`, or `peer:<address>:<port>` for a client that sends none.
    var client: String
    var method: HTTPMethod
    /// The request-target as the client sent it (with its `/d/<name>` base, if any).
    var target: String
    /// The route's path template (`/items/{id}/detail`), or `other`.
    var route: String
    /// The status of the answer; 0 when none was sent (an injected `reset` or `hang`).
    var status: Int
    /// The body bytes of the answer (0 for HEAD and for no answer), as sent: compressed, if it was.
    var bytes: Int
    /// The body's length before it was compressed (``bytes`` is what went out); nil when it went as it was made.
    var identityBytes: Int?
    /// Set when the client left before the whole answer was handed to it: the body bytes it had got by then.
    var abandonedAt: Int?
    /// What ListServer injected: `500`, `503`, `429`, `outage`, `rate_limit`, `scripted`, `reset`, `truncated`,
    /// `hang`.
    var fault: String?
    /// The request fields that matter to list clients.
    var ifNoneMatch: String?
    var ifMatch: String?
    var idempotencyKey: String?
    var range: String?
    var lastEventID: String?
    /// The answer's `Content-Type` (for the HAR export), `ETag` and `Retry-After` (in seconds, for the report card).
    var contentType: String?
    var etag: String?
    var retryAfter: Int?
    /// A hash of the request body of a POST (nil otherwise): two POSTs of the same body have the same hash.
    var bodyHash: Int?
    /// The ids of a list page the answer held (``ResponseNote/listed(lowest:highest:last:)``).
    var listed: ListedIDs?

    /// The ids a list page held (the lowest and highest, both 0 when it held none), how many, and whether it was
    /// the last.
    struct ListedIDs: Sendable, Equatable {
        var lowest: UInt64
        var highest: UInt64
        var count: Int
        var last: Bool
    }

    /// Whether the client left before its answer was whole.
    var aborted: Bool { abandonedAt != nil }

    /// When the answer was done, in microseconds on the journal's clock.
    var end: Int64 { start &+ duration }
}
