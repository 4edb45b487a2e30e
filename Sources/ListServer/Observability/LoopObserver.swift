import Metrics

/// What a ``LoopObserver`` remembers about a request between receiving and answering it.
struct RequestExchange: Sendable {
    /// The route template it counts under.
    let route: RouteLabel
    /// When it arrived; nil when nothing is recorded.
    let start: RequestInstant?
    /// The request, kept for the access log only.
    let request: HTTPRequest?
    /// Whether the journal records it: its route is one a client's app uses, the journal is on and the request names
    /// a dataset the journal can keep.
    var journaled = false
    /// Its slot in the journal, opened as it arrived (``Journal/open(_:route:slot:tag:)``), and the slot's tag, when
    /// ``journaled``.
    var journalSlot = JournalSlot.empty
    var journalTag: Journal.SlotTag?
}

/// One event loop's recorder of requests and connections, for the metrics, the access log and the journal.
///
/// The LibEvent layer calls it at a handful of points: ``begin(_:route:)`` when evhttp hands over a request,
/// ``end(_:_:)`` once the answer is handed back (or ``rejected(_:_:)`` for a refused head),
/// ``connectionsChanged(to:)`` when a connection opens or closes.
///
/// Per request, with metrics on, that costs two clock reads, two
/// plain stores to this loop's ``LoopGauges``, one atomic increment of a counter found by array index (created on
/// first use of its route and status, then kept here) and one histogram update. No strings are built and no
/// dictionary is consulted unless the access log is on. With the journal on, a request to a route a client's app
/// uses is also appended to this loop's ``JournalShard`` as a ``JournalSlot`` (plain bytes), under a lock no other
/// thread takes on the request path; ``Journal/collect()`` moves them into the journal later.
///
/// Loop thread only: it is a plain class with no locks, owned by its ``LoopServer``.
final class LoopObserver {
    /// Status codes a counter slot exists for; any other code gets a counter that is not kept.
    private static let statusSlots = 600

    private let metrics: ServerMetrics?
    private let gauges: LoopGauges?
    private let accessLog: AccessLog?
    /// The journal and this loop's buffer of it; nil when the journal is off. Two properties, not an optional pair:
    /// reading the pair copied it, a retain and a release of each (callgrind: 60 instructions a request).
    private let journal: Journal?
    private let journalShard: JournalShard?
    /// Asks the loop to call ``collectDue()`` in ``Journal/collectAfter`` (set by the loop that owns this observer).
    var scheduleCollect: (() -> Void)?
    /// Whether this loop has asked for a collection that has not come yet: one at a time. A collection empties every
    /// loop's buffer, so "the first record since a collection" comes again soon after another loop's; asking then
    /// for another, each pending one made more, until the loops collected every few requests (and made a timer
    /// each time): with two loops under callgrind, 240 collections a second of five requests each, 2,500
    /// instructions a page.
    private(set) var collectScheduled = false
    private let durations: [Metrics.Timer]
    /// Request counters by `metrics.slot(of: route) * statusSlots + status`, made on first use.
    private var requestCounters: [Metrics.Counter?]
    /// Counters of refused heads by status, made on first use.
    private var rejectionCounters: [Int: Metrics.Counter] = [:]

    init(metrics: ServerMetrics?, accessLog: AccessLog?, journal: Journal? = nil) {
        self.metrics = metrics
        self.accessLog = accessLog
        self.journal = journal
        journalShard = journal?.makeShard()
        gauges = metrics?.makeLoopGauges()
        durations = metrics?.durations ?? []
        requestCounters = Array(
            repeating: nil, count: (metrics?.routeNames.count ?? 0) * Self.statusSlots)
    }

    /// Whether anything is recorded at all.
    var isRecording: Bool { metrics != nil || accessLog != nil || journal != nil }

    /// A request has arrived: note its route (from the router's ``Router/match(_:)``) and the time; `journaled` says
    /// whether its route is one the journal records.
    func begin(_ request: HTTPRequest, route: RouteLabel, journaled: Bool = false) -> RequestExchange {
        guard isRecording else { return RequestExchange(route: .other, start: nil, request: nil) }
        gauges?.addInFlight(1)
        var exchange = RequestExchange(
            route: route, start: RequestInstant.now, request: accessLog == nil ? nil : request)
        if journaled, let journal {
            journalShard?.prefetchNext()
            exchange.journaled = journal.open(
                request, route: route.index, slot: &exchange.journalSlot, tag: &exchange.journalTag)
        }
        return exchange
    }

    /// The request's answer is about to go: the journal records it now, before the client has it (once it has, it
    /// may ask again on another loop, and the journal must hold this request first). ``end(_:_:abandonedAt:journaled:)``
    /// follows with `journaled: true`.
    func journal(_ exchange: borrowing RequestExchange, _ response: borrowing HTTPResponse, abandonedAt: Int? = nil) {
        guard exchange.journaled, let start = exchange.start else { return }
        record(exchange, response, start: start, end: RequestInstant.now, abandonedAt: abandonedAt)
    }

    /// The request's answer has been handed to evhttp; `abandonedAt`, when the client had left before it was whole,
    /// is how many of its body bytes the client got; `journaled` when ``journal(_:_:abandonedAt:)`` recorded it.
    func end(
        _ exchange: RequestExchange, _ response: HTTPResponse, abandonedAt: Int? = nil, journaled: Bool = false
    ) {
        guard let start = exchange.start else { return }
        let now = RequestInstant.now
        let elapsed = start.duration(to: now)
        if exchange.journaled && !journaled {
            record(exchange, response, start: start, end: now, abandonedAt: abandonedAt)
        }
        if let metrics {
            gauges?.addInFlight(-1)
            requestCounter(metrics, exchange.route, response.status).increment()
            durations[metrics.slot(of: exchange.route)].record(duration: elapsed)
        }
        accessLog?.log(exchange, response, elapsed: elapsed)
    }

    /// The client left while `answer` was going out, after `got` of its body bytes: `response` (no answer, status
    /// 0) is what the metrics and the access log count, `answer` what the journal notes as abandoned.
    func end(_ exchange: RequestExchange, _ response: HTTPResponse, abandoned answer: HTTPResponse, at got: Int) {
        var journaled = exchange
        journaled.journaled = false
        end(journaled, response)
        if exchange.journaled, let start = exchange.start {
            record(exchange, answer, start: start, end: RequestInstant.now, abandonedAt: got)
        }
    }

    /// Appends the request to this loop's journal buffer; a record with no collection asked for asks the loop for
    /// one soon (a live view sees requests within ``Journal/collectAfter``), a full buffer is collected now.
    /// Borrowing its exchange and answer, and inlined into its callers on the request path: neither is copied.
    @inline(__always) private func record(
        _ exchange: borrowing RequestExchange, _ response: borrowing HTTPResponse, start: RequestInstant,
        end: RequestInstant, abandonedAt: Int?
    ) {
        guard let shard = journalShard else { return }
        let held = shard.record(
            exchange.journalSlot, tag: exchange.journalTag, response,
            times: (JournalSlot.time(start), JournalSlot.time(end)), abandonedAt: abandonedAt)
        if held >= JournalShard.limit {
            _ = journal?.collectUnlessBusy()  // else the collection under way, or the next, takes them
        } else if !collectScheduled, let scheduleCollect {
            collectScheduled = true
            scheduleCollect()
        }
    }

    /// The collection this loop asked for is due: takes every loop's records into the journal, or, while another
    /// loop's collection is under way, asks again (a loop never waits for another's: with the loops sharing a CPU,
    /// one that waited for a collection whose loop had been switched out waited out that loop's turn).
    func collectDue() {
        guard let journal else { return }
        if journal.collectUnlessBusy() {
            collectScheduled = false
        } else {
            scheduleCollect?()
        }
    }

    /// A refused request head has been answered (through the marker request that stands in for it).
    func rejected(_ exchange: RequestExchange, _ rejection: HeadRejection) {
        guard let start = exchange.start else { return }
        let elapsed = start.duration(to: RequestInstant.now)
        if let metrics {
            gauges?.addInFlight(-1)
            requestCounter(metrics, .other, rejection.status).increment()
            durations[metrics.slot(of: .other)].record(duration: elapsed)
            if rejectionCounters[rejection.status] == nil {
                rejectionCounters[rejection.status] = metrics.rejectionCounter(status: rejection.status)
            }
            rejectionCounters[rejection.status]?.increment()
        }
        accessLog?.log(rejection, exchange, elapsed: elapsed)
    }

    /// This loop now holds `count` client connections.
    func connectionsChanged(to count: Int) {
        gauges?.connections.store(count, ordering: .relaxed)
    }

    /// This loop's connections now hold `bytes` of answers their clients have not read, and it has closed `dropped`
    /// connections so far for not reading.
    func outputChanged(unsent bytes: Int, dropped: Int) {
        gauges?.unsentOutput.store(bytes, ordering: .relaxed)
        gauges?.droppedUnread.store(dropped, ordering: .relaxed)
    }

    /// The counter for `route` and `status`, made and kept on first use.
    private func requestCounter(_ metrics: ServerMetrics, _ route: RouteLabel, _ status: Int) -> Metrics.Counter {
        guard (0..<Self.statusSlots).contains(status) else {
            return metrics.requestCounter(route: route, status: status)
        }
        let slot = metrics.slot(of: route) &* Self.statusSlots &+ status
        if let counter = requestCounters[slot] { return counter }
        let counter = metrics.requestCounter(route: route, status: status)
        requestCounters[slot] = counter
        return counter
    }
}
