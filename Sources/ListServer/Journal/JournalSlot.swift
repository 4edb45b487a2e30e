/// One request as the journal stores it: a fixed-size value with no references (its bytes are all there is to copy);
/// a request that carried a field list clients rarely send, or text longer than the slot holds, has an ``Extra``
/// kept beside it.
///
/// Why not the ``JournalEntry`` itself: its strings made every entry a handful of reference counts, taken when it was
/// made, again at each copy on its way into the journal, and given back when a full journal wrote over it, from
/// memory long gone cold; its 330 bytes and their strings, 10,000 per dataset, pushed the pages' own data out of the
/// cache. With the journal on, a page took 15 % more CPU so (Benchmarks/journal/cost.sh). A slot is copied as bytes:
/// the request-target, the client and the answer's `ETag` go into ``text``, the rest are numbers and codes. It is
/// read back into a ``JournalEntry`` only when someone reads the journal.
struct JournalSlot: Sendable {
    var seq: UInt64 = 0
    /// When the request arrived and when its answer was done: nanoseconds on the requests' clock
    /// (``RequestInstant``), converted to ``JournalEntry``'s microseconds when read.
    ///
    /// Plain integers. As `Duration`s since the clock's anchor they cost two 128-bit multiplies and two checks of a
    /// lazy global a request, and 16 bytes of the slot; as `ContinuousClock.Instant`s, whose layout is the standard
    /// library's to change, every field read or copy went through the type's metadata (callgrind: a ring took 470
    /// instructions to add a slot so).
    var start: Int64
    var end: Int64
    var listedLowest: UInt64 = 0
    var listedHighest: UInt64 = 0
    var bodyHash: Int64 = 0
    /// The answer's body bytes (at most 4 GiB noted).
    var bytes: UInt32
    /// The body bytes an abandoned request's client got; ``whole`` for an answer handed over whole.
    var abandonedAt: UInt32 = Self.whole
    var listedCount: UInt32 = 0
    /// The body's length before it was compressed; ``whole`` for a body sent as it was made.
    var identityBytes: UInt32 = Self.whole
    /// The answer's `Retry-After` in seconds; ``noRetryAfter`` for none.
    var retryAfter: UInt16 = Self.noRetryAfter
    var status: UInt16
    /// The client's port, for a client that sent no id (``Flags/peer``).
    var port: UInt16 = 0
    var method: UInt8
    /// The route's place in the route table; ``otherRoute`` for none.
    var route: UInt8
    /// ``faultNames``'s index of the fault ListServer injected, plus one; 0 for none.
    var fault: UInt8 = 0
    /// ``contentTypes``'s index of the answer's `Content-Type`, plus one; 0 for none, ``otherContentType`` for
    /// one in ``Extra``.
    var contentType: UInt8 = 0
    var flags: Flags = []
    /// The lengths of the request-target, the client (its id, or its address when it sent none) and the `ETag` in
    /// ``text``, one after the other; ``elsewhere`` for one kept in ``Extra``.
    var targetLength: UInt8 = 0
    var clientLength: UInt8 = 0
    var etagLength: UInt8 = 0
    /// ``textCapacity`` bytes, as words: a tuple's layout is fixed where it is compiled (see ``start``).
    var text: Text = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)

    typealias Text = (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64)

    /// The continuous clock's instant at the requests' clock's anchor: what converts between the two.
    static var clockZero: ContinuousClock.Instant { RequestInstant.anchor.instant }

    /// `instant` as a slot time.
    static func time(_ instant: RequestInstant) -> Int64 { instant.nanoseconds }

    /// `instant` (of the continuous clock) as a slot time.
    static func time(_ instant: ContinuousClock.Instant) -> Int64 {
        let (seconds, attoseconds) = clockZero.duration(to: instant).components
        return RequestInstant.anchorNanoseconds &+ seconds &* 1_000_000_000 &+ attoseconds / 1_000_000_000
    }

    /// Slot time `time` as an instant of the continuous clock.
    static func instant(_ time: Int64) -> ContinuousClock.Instant {
        clockZero + .nanoseconds(time &- RequestInstant.anchorNanoseconds)
    }

    /// A slot with nothing in it yet.
    static let empty = JournalSlot(start: 0, end: 0, bytes: 0, status: 0, method: 0, route: 0)

    static let whole: UInt32 = .max
    static let noRetryAfter: UInt16 = .max

    struct Flags: OptionSet, Sendable {
        let rawValue: UInt8
        /// ``listedLowest`` and the rest say what a list page held.
        static let listed = Flags(rawValue: 1)
        static let listedLast = Flags(rawValue: 2)
        static let bodyHash = Flags(rawValue: 4)
        /// The client sent no id: ``text`` holds its address, ``port`` its port.
        static let peer = Flags(rawValue: 8)
        /// The request has an ``Extra``, kept beside the slot (a slot holds no reference, so it is copied as plain
        /// bytes).
        static let extra = Flags(rawValue: 16)
    }

    /// The fields list clients send now and then, and what did not fit in the slot.
    final class Extra: Sendable {
        let ifNoneMatch, ifMatch, idempotencyKey, range, lastEventID: String?
        let target, client, etag, contentType, methodName: String?

        init(
            ifNoneMatch: String?, ifMatch: String?, idempotencyKey: String?, range: String?, lastEventID: String?,
            target: String?, client: String?, etag: String?, contentType: String?, methodName: String?
        ) {
            self.ifNoneMatch = ifNoneMatch
            self.ifMatch = ifMatch
            self.idempotencyKey = idempotencyKey
            self.range = range
            self.lastEventID = lastEventID
            self.target = target
            self.client = client
            self.etag = etag
            self.contentType = contentType
            self.methodName = methodName
        }

        /// What its strings take, roughly (for ``SettingKey/journalMaxBytes``).
        var footprint: Int {
            var bytes = 16 + 10 * 16
            for text in [ifNoneMatch, ifMatch, idempotencyKey, range, lastEventID, target, client, etag, contentType] {
                if let count = text?.utf8.count, count > 15 { bytes += 32 + count }
            }
            return bytes
        }
    }

    static let otherRoute: UInt8 = .max
    static let elsewhere: UInt8 = .max
    static let otherContentType: UInt8 = .max
    /// The faults ListServer notes (``ResponseNote/injected(_:)`` and the wire faults).
    static let faultNames = ["500", "503", "429", "outage", "rate_limit", "scripted", "reset", "truncated", "hang"]
    /// The `Content-Type`s ListServer answers with.
    static let contentTypes = [
        MediaType.json, MediaType.problemJSON, "image/jpeg", "image/png", "image/webp",
        "text/event-stream; charset=utf-8", "text/plain; version=0.0.4; charset=utf-8",
    ]
    static let methods: [HTTPMethod] = [.get, .head, .post, .put, .delete, .options, .patch, .trace, .connect]

    /// What a slot takes in memory, with its ``Extra`` if it has one.
    static func footprint(extra: Extra?) -> Int { MemoryLayout<JournalSlot>.stride + (extra?.footprint ?? 0) }
}
