// swift-format-ignore-file: OrderedImports
import Glibc  // before CEvent
import CEvent
import ListDomain
import Synchronization

/// One `evhttp` on one event loop: accepts on its own listening socket, turns each request into an
/// `HTTPRequest`, asks the router, and replies on the loop thread.
///
/// Requests whose answer needs an `await` (an image render, a write until it is durable, a dataset load, a replica
/// catch-up), is delayed (`?delay_ms`, a detail miss until its store fetch is ready) or carries a wire fault are
/// tracked until they are answered, so that a shutdown can wait for them, answer the rest with 503 at its deadline,
/// and free `evhttp` only when no request is in flight: freeing it earlier frees requests the router still holds.
/// Every answer carries the request's `X-Request-Id`.
///
/// Invariant: every member is touched only on `loop`'s thread; the class is `@unchecked Sendable`
/// because tasks carry it across an `await` that resumes on that same thread.
final class LoopServer: @unchecked Sendable {
    let loop: EventLoop
    /// This loop's index among the server's loops.
    let loopIndex: Int
    /// Answers the requests: ``Router/match(_:)`` when one arrives, then ``Router/route(_:_:)``.
    let router: Router
    /// The writes: the change feed the streams follow, the lists they read, the queue a drain refuses.
    let writes: WriteCoordinator
    /// How event streams behave and what each may hold.
    let events: EventSettings
    var http: OpaquePointer?
    /// The accepting socket, removed at the start of a shutdown.
    var boundSocket: OpaquePointer?
    /// Requests awaiting a deferred, delayed or faulty answer, by a per-loop token.
    var pending: [UInt64: PendingRequest] = [:]
    private var nextToken: UInt64 = 0
    /// Set once shutdown begins: new requests get 503 with `Connection: close`.
    var draining = false
    var onDrained: (() -> Void)?
    /// Answers sent while draining that evhttp has not finished writing yet.
    var unwritten = 0
    var drainDeadline: LoopTimer?
    /// The reply body buffer, reused: `evhttp_send_reply` moves its contents out.
    let replyBuffer: OpaquePointer
    /// The `Date` of the answers this loop sends.
    let date = DateField()
    /// The compressor of this loop's JSON answers (``encode(_:for:)``), and the bodies it compressed.
    let compressor = BodyCompressor()
    let compressedBodies = CompressedBodies()
    let limits: HTTPLimits
    /// The bytes large uploads may hold at once, shared by every loop.
    let uploadBudget: UploadBudget
    /// Every open connection's guard, by its filter bufferevent.
    var connections: [OpaquePointer: ConnectionGuard] = [:]
    /// This loop's share of ``SettingKey/maxConnections``.
    let connectionLimit: Int
    /// This loop's share of ``SettingKey/reservedConnections``: accepted past ``connectionLimit``, for probes and
    /// admins.
    let reserveLimit: Int
    /// How many of the open connections are from the reserve.
    var reservedConnections = 0
    /// How many connections are open, readable from any thread (``HTTPServer/openConnections``).
    let connectionCount = StreamCount()
    /// Why accepting is paused, if it is.
    var acceptPause: AcceptPause = []
    var sweepTimer: OpaquePointer?
    /// Metrics, access log and journal records of this loop's requests and connections.
    let observer: LoopObserver
    /// The request journal whose streams this loop serves; nil when it is off.
    let journal: Journal?
    /// Makes the ids of requests that come without a usable `X-Request-Id`.
    var requestIDs: RequestIDGenerator
    /// Open event streams, by a per-loop token (`LoopServer+Streams.swift`).
    var streams: [UInt64: EventStream] = [:] {
        didSet { streamCount.value.store(streams.count, ordering: .sequentiallyConsistent) }
    }
    /// How many streams are open, for the feed's listener on the committing thread: a loop with none is not woken
    /// for a commit (with 2 loops and one writing client, that was one wake-up of the idle loop per write).
    let streamCount = StreamCount()
    /// How many of them follow a request journal: a loop with none is not woken when the journal takes requests in.
    let journalStreamCount = StreamCount()
    var nextStreamToken: UInt64 = 0
    /// Answers going out at a rate, by their request's token (`LoopServer+Throttle.swift`), and the bytes of
    /// their bodies not sent yet, held to ``outputBudget``.
    var throttled: [UInt64: ThrottledAnswer] = [:]
    var throttledBytes = 0
    /// The next heartbeat of the open streams, while any is open.
    var heartbeat: LoopTimer?
    /// What this loop's streams may hold unsent, together: its share of ``SettingKey/eventBufferedBytes``.
    let streamBudget: Int
    /// The unsent bytes of this loop's streams as last measured (each stream's ``EventStream/backlog``, summed).
    var streamBacklog = 0
    /// What this loop's connections may hold of answers not yet taken by the kernel: its share of
    /// ``SettingKey/maxOutputBytes`` (`LoopServer+Output.swift`).
    let outputBudget: Int
    /// What they hold, as last measured plus what was sent since (each ``ConnectionGuard/outputBacklog``, summed).
    var responseBacklog = 0 {
        didSet { observer.outputChanged(unsent: responseBacklog, dropped: droppedForOutput) }
    }
    /// How many connections were closed for not reading their answers.
    var droppedForOutput = 0
    /// Connections with an answer to flush this turn, and the event that flushes them (`LoopServer+Flush.swift`).
    var unflushed: [ConnectionGuard] = []
    var flushing: [ConnectionGuard] = []
    var flushEvent: OpaquePointer?
    /// Set while evhttp's request callback runs: answers made then are queued for the flush.
    var inRequestCallback = false

    /// Creates the evhttp on the loop's base and starts accepting on `listeningFD` (which it now owns).
    /// Call before the loop thread starts, or on it. `loopIndex` tells this loop's request ids apart.
    ///
    /// The router answers; the rest is handed over here rather than reached through it, so that the transport
    /// depends on what it uses and the router knows nothing of the loops: `observability` gives this loop its
    /// recorder, `writes` its change feed and lists, `events` the limits of its streams.
    init(
        loop: EventLoop, loopIndex: Int = 0, router: Router, observability: Observability, writes: WriteCoordinator,
        events: EventSettings, limits: HTTPLimits, connectionLimit: Int, uploadBudget: UploadBudget? = nil,
        loopCount: Int = 1, listeningFD: Int32
    ) throws(EventError) {
        self.loop = loop
        reserveLimit = (limits.reservedConnections + max(1, loopCount) - 1) / max(1, loopCount)
        streamBudget = max(1, events.maxBufferedBytes / max(1, loopCount))
        outputBudget = max(1, limits.maxOutputBytes / max(1, loopCount))
        self.uploadBudget = uploadBudget ?? UploadBudget(limits: limits)
        requestIDs = RequestIDGenerator(loopIndex: loopIndex)
        self.loopIndex = loopIndex
        self.router = router
        self.writes = writes
        self.events = events
        self.limits = limits
        self.connectionLimit = connectionLimit
        observer = observability.makeLoopObserver()
        journal = observability.journal
        if observability.journal != nil {
            observer.scheduleCollect = { [loop, weak observer] in
                _ = loop.schedule(after: Journal.collectAfter) { observer?.collectDue() }
            }
        }
        guard let buffer = evbuffer_new() else { throw EventError.call("evbuffer_new", errno: cevent_errno()) }
        replyBuffer = buffer
        guard let http = evhttp_new(loop.base) else {
            evbuffer_free(buffer)
            close(listeningFD)
            throw EventError.call("evhttp_new", errno: cevent_errno())
        }
        self.http = http
        // Let every method through to the router, which answers 405 with Allow (evhttp would say 501).
        let allMethods =
            EVHTTP_REQ_GET.rawValue | EVHTTP_REQ_POST.rawValue | EVHTTP_REQ_HEAD.rawValue | EVHTTP_REQ_PUT.rawValue
            | EVHTTP_REQ_DELETE.rawValue | EVHTTP_REQ_OPTIONS.rawValue | EVHTTP_REQ_TRACE.rawValue
            | EVHTTP_REQ_CONNECT.rawValue | EVHTTP_REQ_PATCH.rawValue
        evhttp_set_allowed_methods(http, UInt16(allMethods))
        evhttp_set_default_content_type(http, nil)
        let context = Unmanaged.passUnretained(self).toOpaque()
        evhttp_set_gencb(http, loopServerRequestCallback, context)
        // Every connection goes through a ConnectionGuard; these are backstops that never fire first.
        evhttp_set_bevcb(http, loopServerNewConnectionCallback, context)
        evhttp_set_max_headers_size(http, 2 * limits.maxHeaderBytes + 1024)
        evhttp_set_max_body_size(http, limits.largestBody)
        boundSocket = evhttp_accept_socket_with_handle(http, listeningFD)
        guard let boundSocket, let listener = evhttp_bound_socket_get_listener(boundSocket) else {
            let error = EventError.call("evhttp_accept_socket_with_handle", errno: cevent_errno())
            close(listeningFD)
            evhttp_free(http)
            evbuffer_free(buffer)
            throw error
        }
        evconnlistener_set_error_cb(listener, loopServerAcceptErrorCallback)
        startSweeping()
        flushEvent = makeFlushEvent()
        registerForAcceptErrors(listener)
        // Each commit's changes reach this loop once, and go out to its streams on its own thread.
        let server = LoopServerReference(self)  // the feed must not keep a loop's server alive
        if let journal = observability.journal {
            journal.addListener { [loop, journalStreamCount] dataset, entries, origin in
                guard journalStreamCount.value.load(ordering: .sequentiallyConsistent) > 0 else { return }
                loop.execute { server.value.deliverJournal(entries, of: dataset, origin: origin) }
            }
        }
        writes.feed.addListener { [loop, streamCount] list, changes, dropped in
            // Skipping is safe: a stream counts itself before it reads where the list is (``openStream``), and
            // the commit was installed before this runs, so a stream not yet counted starts after these changes.
            guard streamCount.value.load(ordering: .sequentiallyConsistent) > 0 else { return }
            loop.execute { server.value.deliver(changes, of: list, dropped: dropped) }
        }
        writes.feed.addSignalListener { [loop, streamCount] list, signal in
            guard streamCount.value.load(ordering: .sequentiallyConsistent) > 0 else { return }
            loop.execute { server.value.deliver(signal, of: list) }
        }
    }

    deinit {
        unregisterForAcceptErrors()
        if let http {
            flushQueued()
            evhttp_free(http)
        }
        if let sweepTimer { event_free(sweepTimer) }
        if let flushEvent { event_free(flushEvent) }
        evbuffer_free(replyBuffer)
    }

    // MARK: Requests

    /// Handles one request from evhttp; loop thread.
    fileprivate func handle(_ raw: OpaquePointer) {
        // libevent 2.1 hands evhttp the next pipelined request from a deferred callback, not from inside this one;
        // restoring what was there keeps the flag right if a version ever did.
        let outer = inRequestCallback
        inRequestCallback = true
        defer { inRequestCallback = outer }
        let request = EvHTTPRequest(raw)
        var httpRequest = request.makeHTTPRequest(ids: &requestIDs) {
            request.connectionBufferevent.flatMap { connections[$0] }?.headIsHTTP10 ?? false
        }
        httpRequest.loop = loopIndex
        let requestID = httpRequest.requestID
        // The conditions on a compressed representation's tags, stripped for the router; nil for none to strip.
        let routed = Self.routed(httpRequest)
        // The target is parsed here, once.
        let match = if let routed { router.match(routed) } else { router.match(httpRequest) }
        let exchange = observer.begin(httpRequest, route: match.label, journaled: match.journaled)
        if draining {
            sendWhileDraining(Self.shuttingDown, to: request, requestID: requestID)
            observer.end(exchange, Self.shuttingDown)
            return
        }
        if httpRequest.target == ConnectionGuard.markerTarget, let rejection = takeRejection(for: request) {
            reply(rejection.response, to: request, requestID: requestID)  // with Connection: close
            observer.rejected(exchange, rejection)
            return
        }
        let outcome = if let routed { router.route(routed, match) } else { router.route(httpRequest, match) }
        dispatch(outcome, request, exchange, requestID)
    }

    /// Answers, holds, streams or tracks a request as its route's outcome says.
    private func dispatch(
        _ outcome: RouteOutcome, _ request: EvHTTPRequest, _ exchange: RequestExchange, _ requestID: String
    ) {
        switch outcome {
        case .response(var response) where response.isPlain:
            encode(&response, for: request)
            response = admitted(response, for: request)
            observer.journal(exchange, response)  // before the client has it
            reply(response, to: request, requestID: requestID)
            observer.end(exchange, response, journaled: true)
        case .response(let response):
            hold(response, for: track(request, exchange, requestID))
        case .stream(let stream):
            observer.end(exchange, openStream(request, stream, requestID: requestID))
        case .deferred(let work):
            let token = track(request, exchange, requestID)
            Task.immediate(executorPreference: loop) { [self] in
                let response = await work()
                finish(token, with: response)
            }
        case .pending(let pending):
            // The work is started before the request is noted, so a write reaches the committing thread sooner;
            // its answer cannot come first, as `execute` queues it for later, never runs it inline.
            let token = takeToken()
            pending.start { [self] make in
                loop.execute { [self] in finish(token, with: pending.finish(make)) }
            }
            track(request, exchange, requestID, as: token)
        case .after(let next):
            // Tracked meanwhile, so a drain waits for it (or answers it 503 at its deadline, which ends it here).
            let token = track(request, exchange, requestID)
            Task.immediate(executorPreference: loop) { [self] in
                let outcome = await next()
                guard let waiting = pending.removeValue(forKey: token) else { return }
                if draining {
                    sendWhileDraining(Self.shuttingDown, to: waiting.request, requestID: waiting.requestID)
                    observer.end(waiting.exchange, Self.shuttingDown)
                    return
                }
                dispatch(outcome, waiting.request, waiting.exchange, waiting.requestID)
            }
        }
    }

    /// Notes a request that is not answered yet, under a new token.
    private func track(_ request: EvHTTPRequest, _ exchange: RequestExchange, _ requestID: String) -> UInt64 {
        let token = takeToken()
        track(request, exchange, requestID, as: token)
        return token
    }

    /// Notes a request that is not answered yet, under `token` (from ``takeToken()``).
    private func track(_ request: EvHTTPRequest, _ exchange: RequestExchange, _ requestID: String, as token: UInt64) {
        pending[token] = PendingRequest(request: request, exchange: exchange, requestID: requestID)
    }

    /// A token no request in flight has.
    private func takeToken() -> UInt64 {
        defer { nextToken &+= 1 }
        return nextToken
    }

    /// Sends a deferred answer (or holds it, if it is delayed or faulty), unless shutdown already answered that
    /// request.
    func finish(_ token: UInt64, with response: HTTPResponse) {
        guard loop.inLoop else {
            // Not expected (the task prefers this loop), but evhttp must never be touched elsewhere.
            loop.execute { [self] in finish(token, with: response) }
            return
        }
        guard pending[token] != nil else { return }
        if response.isPlain {
            answer(token, with: response)
        } else {
            hold(response, for: token)
        }
    }
}

/// The evhttp request callback: C calling convention, captures nothing, the server comes in `context`.
private func loopServerRequestCallback(_ request: OpaquePointer?, _ context: UnsafeMutableRawPointer?) {
    guard let request, let context else { return }
    Unmanaged<LoopServer>.fromOpaque(context).takeUnretainedValue().handle(request)
}

/// The number of a loop's open streams (or connections), readable from any thread.
final class StreamCount: Sendable {
    let value = Atomic<Int>(0)
}

/// A reference to a loop server that closures on other threads may hold without keeping it alive; read only on
/// its loop thread, in work that loop runs.
///
/// Unowned, not weak: a weak reference gives the server a side table, and every retain of it (each answer that
/// waits for work elsewhere captures it, on two threads) then goes the slow way, through a cache line both threads
/// write (perf at one writing client: about 0.5 µs a write). It is as safe as the unretained context evhttp's
/// callbacks already carry: a loop server outlives every callback and job its loop runs, because
/// ``HTTPServer/shutdown(grace:)`` stops and waits for the loops before the servers go, and work queued on a loop
/// that has stopped never runs.
final class LoopServerReference: @unchecked Sendable {
    unowned(unsafe) let value: LoopServer

    init(_ value: LoopServer) { self.value = value }
}
