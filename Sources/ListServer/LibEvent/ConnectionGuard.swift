// swift-format-ignore-file: OrderedImports
import Glibc  // before CEvent
import CEvent

/// Stands between one client connection and evhttp: a libevent filter bufferevent that lets evhttp
/// see only request heads that `RequestHeadScanner` has checked in full.
///
/// evhttp 2.1 has no head size limit, no deadlines, answers its own errors in HTML, and lets
/// several malformed requests through. So every connection's bytes pass this filter first: it holds a
/// head back until it is complete, validates it, then hands head and body (by `Content-Length`) to
/// evhttp. A rejected head never reaches evhttp's parser; instead the filter hands evhttp a fixed
/// marker request, which evhttp queues behind the requests already on the connection, and the
/// server answers the marker with the rejection's problem+json and `Connection: close`. That keeps
/// answers in order on pipelined connections with no second writer on the socket.
///
/// Deadlines (head, body, idle) are checked by the loop's periodic sweep, not per-request timers, so a
/// request costs no timer operations. A body that misses its deadline (``SettingKey/bodyTimeoutMs``, or
/// ``SettingKey/minBodyRate`` once its first second is over) is answered 408 straight on the socket, since
/// evhttp is reading it, and the connection closed; a large upload takes from the shared
/// ``UploadBudget`` byte by byte as its body arrives, not what its head declares, so heads that send
/// nothing hold nothing. A connection of the reserve (``HTTPLimits/reservedConnections``) serves only
/// ``isReservedTarget(_:_:)``. Loop thread only.
final class ConnectionGuard {
    /// What the connection is doing, for the sweep's deadlines.
    enum Phase: Equatable {
        /// Waiting for the first byte of a head since `since` (milliseconds, monotonic).
        case idle(since: Int64)
        /// Receiving a head whose first byte came at `since`.
        case head(since: Int64)
        /// A complete head was handed to evhttp; it is reading the body or answering.
        case busy
        /// Rejected: the marker is queued, everything else the client sends is dropped.
        case rejected
        /// A body failed (too slow, or no room in the upload budget): its answer went straight to the socket, the
        /// connection is being closed, and everything else the client sends is dropped.
        case closing
    }

    /// The request line evhttp gets in place of a rejected head. It can only be recognised together
    /// with the connection's own `pendingRejection`, so a client sending it gets a plain 404.
    static let markerTarget = "/.listserver/rejected-request"
    private static let marker = Array(
        "GET \(markerTarget) HTTP/1.1\r\nHost: listserver\r\nConnection: close\r\n\r\n".utf8)

    /// The filter bufferevent evhttp owns (and frees, which frees this guard's context).
    private(set) var bufferevent: OpaquePointer?
    /// The socket bufferevent under the filter.
    private var socket: OpaquePointer?
    private(set) var phase: Phase
    /// The answer owed for the marker request, if the connection was rejected.
    private(set) var pendingRejection: HeadRejection?
    /// Whether the head last passed to evhttp said `HTTP/1.0`: the request evhttp is answering, unless the client
    /// pipelined further heads behind it in the same read (the filter passes every complete head it has). Only an
    /// `Upgrade` is judged by it (``EvHTTPRequest/makeHTTPRequest(ids:isHTTP10:)``): a client that pipelines requests
    /// of both versions behind an upgrade on one connection may have it judged by the wrong one, a case no client
    /// makes and left so (evhttp 2.1 has no getter for the version, and its struct, imported, makes every
    /// `evhttp_request` pointer a typed one).
    private(set) var headIsHTTP10 = false
    private var scanner: RequestHeadScanner
    private var bodyRemaining = 0
    /// When the body being received started (its head was complete), and how many of its bytes have come since.
    private var bodyStarted: Int64 = 0
    private var bodyReceived = 0
    /// Whether the body being received takes from ``uploadBudget`` as its bytes come (one over its free size).
    private var takesUploadBudget = false
    /// Whether the body being received is an upload (over ``SettingKey/maxBodyBytes``).
    private var isUpload = false
    /// Whether the connection was accepted into the reserve, past ``SettingKey/maxConnections`` (until an ordinary one
    /// is free when its next head comes).
    private(set) var isReserved: Bool
    /// Whether the body being received is dropped rather than passed on (see where a head completes).
    private var dropsBody = false
    /// Whether the connection carries an event stream: evhttp keeps reading while it writes one (to see the
    /// client leave), which the sweep would otherwise take for an idle keep-alive connection and close.
    var streaming = false
    /// Whether the connection is a WebSocket's (`LoopServer+WebSockets.swift`): its bytes are frames, not requests,
    /// and pass on unread.
    private(set) var passesThrough = false

    /// The connection is a WebSocket's from now on: what comes is passed on unread, and it is busy for as long as
    /// it lasts (no head or idle deadline: its heartbeats show it alive).
    func beginPassThrough() {
        passesThrough = true
        scanner.reset()
        phase = .busy
    }
    /// The bytes of answers queued on the connection and not yet taken by the kernel, as last measured or since
    /// added: its part of the loop's share of ``SettingKey/maxOutputBytes`` (`LoopServer+Output.swift`).
    var outputBacklog = 0
    /// What the last sweep found unsent, and whether it found the same the sweep before (nothing taken since: the
    /// client does not read).
    var outputBacklogAtSweep = 0
    var outputStuck = false
    /// Whether an answer of this connection waits in its loop's flush queue (`LoopServer+Flush.swift`).
    var flushPending = false
    private let limits: HTTPLimits
    private let uploadBudget: UploadBudget
    /// What the request being handled took from ``uploadBudget`` (a large upload), returned when it is done.
    private var reservedUpload = 0
    private unowned let server: LoopServer

    init(server: LoopServer, limits: HTTPLimits, uploadBudget: UploadBudget, now: Int64, reserved: Bool = false) {
        self.server = server
        self.limits = limits
        isReserved = reserved
        self.uploadBudget = uploadBudget
        scanner = RequestHeadScanner(limits: limits)
        phase = .idle(since: now)
    }

    /// Creates the socket bufferevent (evhttp sets its fd) and the filter over it.
    /// - Parameter context: the unretained pointer the filter callbacks get (`self`, retained by the caller).
    func makeBufferevent(base: OpaquePointer, context: UnsafeMutableRawPointer) -> OpaquePointer? {
        let options = Int32(BEV_OPT_CLOSE_ON_FREE.rawValue)
        guard let socket = bufferevent_socket_new(base, -1, options) else { return nil }
        // A client that stops reading its answer is dropped after the write timeout.
        var writeTimeout = limits.writeTimeout.timeval
        bufferevent_set_timeouts(socket, nil, &writeTimeout)
        guard
            let filter = bufferevent_filter_new(
                socket, connectionGuardInputFilter, connectionGuardOutputFilter, options, connectionGuardFree, context)
        else {
            bufferevent_free(socket)
            return nil
        }
        bufferevent = filter
        self.socket = socket
        return filter
    }

    // MARK: Output

    /// Moves evhttp's answer (`source`) towards the socket, writing straight to the kernel.
    ///
    /// evhttp frees a `Connection: close` connection as soon as *our* output buffer is empty, and
    /// then shuts the socket down: bytes still queued in the socket bufferevent would be lost. So the
    /// answer goes to the kernel here, synchronously; only what the kernel cannot take now is queued
    /// on the socket bufferevent, and one byte stays behind in `source` until that queue has drained,
    /// so evhttp does not consider the answer written before it is.
    func filterOutput(source: OpaquePointer, destination: OpaquePointer) -> bufferevent_filter_result {
        if evbuffer_get_length(destination) > 0 { return BEV_NEED_MORE }  // called again once it drains
        let fd = socket.map { bufferevent_getfd($0) } ?? -1
        var failed = fd < 0
        while !failed && evbuffer_get_length(source) > 0 {
            if evbuffer_write(source, fd) <= 0 {
                let code = cevent_errno()
                failed = code != EAGAIN && code != EWOULDBLOCK && code != EINTR
                if !failed { break }  // the kernel is full for now
            }
        }
        let left = evbuffer_get_length(source)
        if failed || left == 1 {
            // An error is for the socket bufferevent to find and report; a single byte cannot be
            // held back without stalling (nothing would call us again), so it is queued too.
            evbuffer_remove_buffer(source, destination, left)
        } else if left > 1 {
            evbuffer_remove_buffer(source, destination, left - 1)
        }
        return BEV_OK
    }

    // MARK: Input

    /// Moves checked bytes from the socket (`source`) to evhttp (`destination`).
    ///
    /// Greedy: every complete message available is passed on in one call, because libevent calls the
    /// filter again only when new bytes arrive from the socket.
    func filter(source: OpaquePointer, destination: OpaquePointer, now: Int64) -> bufferevent_filter_result {
        while true {
            let available = evbuffer_get_length(source)
            if available == 0 { return BEV_OK }
            if passesThrough {
                return evbuffer_remove_buffer(source, destination, available) == available ? BEV_OK : BEV_ERROR
            }
            switch phase {
            case .rejected:
                evbuffer_drain(source, available)
                return BEV_OK
            case .busy where bodyRemaining > 0 && dropsBody:
                let dropped = min(available, bodyRemaining)
                evbuffer_drain(source, dropped)
                bodyRemaining -= dropped
                bodyReceived += dropped
                continue
            case .busy where bodyRemaining > 0:
                let chunk = min(available, bodyRemaining)
                guard takeUploadBudget(chunk) else {
                    failBody(budgetRejection)
                    return BEV_OK
                }
                let moved = evbuffer_remove_buffer(source, destination, chunk)
                guard moved > 0 else { return BEV_ERROR }
                bodyRemaining -= Int(moved)
                bodyReceived += Int(moved)
                continue
            case .closing:
                evbuffer_drain(source, available)
                return BEV_OK
            case .idle, .busy:
                phase = .head(since: now)
            case .head:
                break
            }
            // Look at no more than a head may hold (plus one byte, to see it overflow).
            let window = min(available, limits.maxHeaderBytes + 1)
            guard let bytes = evbuffer_pullup(source, window) else { return BEV_ERROR }
            switch scanner.scan(UnsafeBufferPointer(start: bytes, count: window).span) {
            case .needMore:
                // Not BEV_OK: libevent calls the filter again at once while it reports progress
                // and bytes remain, which would spin on an incomplete head.
                return BEV_NEED_MORE
            case .complete(let head):
                scanner.reset()
                headIsHTTP10 = !head.isHTTP11
                if isReserved && !Self.isReservedTarget(UnsafeRawBufferPointer(start: bytes, count: window), head)
                    && !server.leaveReserve(self)
                {
                    reject(.serverBusy(limit: limits.maxConnections), source: source, destination: destination)
                    return BEV_OK
                }
                // A body is held in memory until it is answered, so each byte of one over the budget's free size
                // (or of any upload: only an upload may pass http.max_body_bytes, the scanner saw to that) must fit
                // the budget before it is read. A connection holds one reservation: a body behind another whose answer the sweep
                // has not seen yet takes the place of the earlier one (a client pipelining counts as one).
                releaseUpload()
                takesUploadBudget = head.bodyLength > min(UploadBudget.freeBodyBytes, limits.maxBodyBytes)
                isUpload = head.bodyLength > limits.maxBodyBytes
                // evhttp reads no body for HEAD and TRACE (libevent 2.1's evhttp_method_may_have_body), so one
                // passed on would be parsed as the next request: evhttp's own HTML 400 and a closed connection
                // (schemathesis found it). Such a body has no meaning (RFC 9110 §9.3.2): it is dropped here.
                dropsBody = head.method == .head || head.method == .trace
                // The head and as much of the body as has arrived move in one call: when that is all the source
                // holds (the usual request), libevent relinks its chains instead of copying the head's bytes out
                // of a chain it keeps for the body (callgrind: 850 instructions fewer a POST than two calls).
                let bodyHere = dropsBody ? 0 : min(available - head.headLength, head.bodyLength)
                guard takeUploadBudget(bodyHere) else {
                    reject(budgetRejection, source: source, destination: destination)
                    return BEV_OK
                }
                bodyStarted = now
                bodyReceived = bodyHere
                // Empty lines before the request line go: evhttp would read one as an empty request line and
                // answer its own HTML 400.
                if head.skippedBytes > 0 { evbuffer_drain(source, head.skippedBytes) }
                let passed = head.headLength - head.skippedBytes + bodyHere
                guard evbuffer_remove_buffer(source, destination, passed) == passed else { return BEV_ERROR }
                bodyRemaining = head.bodyLength - bodyHere
                phase = .busy
            case .reject(let rejection):
                reject(rejection, source: source, destination: destination)
                return BEV_OK
            }
        }
    }

    /// Drops what the client sent and queues the marker for evhttp, behind any request it already has.
    private func reject(_ rejection: HeadRejection, source: OpaquePointer, destination: OpaquePointer) {
        pendingRejection = rejection
        phase = .rejected
        evbuffer_drain(source, evbuffer_get_length(source))
        _ = Self.marker.withUnsafeBytes { evbuffer_add(destination, $0.baseAddress, $0.count) }
    }

    /// Ends a body evhttp is reading: `rejection` goes straight to the socket (evhttp, waiting for the body, has no
    /// request to answer yet; nothing else is queued for the client, or the answer is left out), the upload budget
    /// taken is returned at once, and evhttp is told the client went away, which frees the connection.
    ///
    /// The bytes the client sent that are still waiting are read and dropped first (a bounded amount): closing a
    /// socket with unread input sends a reset, which could make the client lose the answer.
    private func failBody(_ rejection: HeadRejection) {
        releaseUpload()
        phase = .closing
        bodyRemaining = 0
        guard let bufferevent, let socket else { return }
        let socketInput = bufferevent_get_input(socket)
        evbuffer_drain(socketInput, evbuffer_get_length(socketInput))
        let fd = bufferevent_getfd(socket)
        if fd >= 0 {
            if evbuffer_get_length(bufferevent_get_output(socket)) == 0 && outputIsEmpty {
                rejection.wireBytes.withUnsafeBytes { bytes in
                    _ = send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
                }
            }
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 16_384) { scratch in
                for _ in 0..<16 where recv(fd, scratch.baseAddress, scratch.count, Int32(MSG_DONTWAIT)) > 0 {}
            }
            shutdown(fd, Int32(SHUT_WR))
        }
        // Deferred: this may run inside the filter's own callback, which must not see the bufferevent freed.
        bufferevent_trigger_event(bufferevent, Int16(BEV_EVENT_EOF), Int32(BEV_TRIG_DEFER_CALLBACKS.rawValue))
    }

    /// The answer to a body the budget has no room for.
    private var budgetRejection: HeadRejection {
        isUpload
            ? .uploadsBusy(limit: UploadBudget.uploadsInFlight) : .bodiesBusy(capacity: uploadBudget.capacity)
    }

    /// Takes `bytes` of the upload budget for a large body; true at once for any other body.
    private func takeUploadBudget(_ bytes: Int) -> Bool {
        guard takesUploadBudget, bytes > 0 else { return true }
        guard uploadBudget.reserve(bytes) else { return false }
        reservedUpload += bytes
        return true
    }

    /// The paths a connection of the reserve serves: `/healthz`, `/readyz`, `/metrics` and `/admin/…`, with or
    /// without a query, in origin-form, also under a dataset's `/d/<name>`.
    static func isReservedTarget(_ bytes: UnsafeRawBufferPointer, _ head: RequestHead) -> Bool {
        let whole = bytes[head.targetRange]
        let target = whole.dropFirst(DatasetName.basePrefixLength(count: whole.count) { whole[whole.startIndex + $0] })
        func isPath(_ path: StaticString, prefixOnly: Bool = false) -> Bool {
            let path = UnsafeRawBufferPointer(start: path.utf8Start, count: path.utf8CodeUnitCount)
            guard target.starts(with: path) else { return false }
            if prefixOnly { return true }
            let rest = target.dropFirst(path.count)
            return rest.isEmpty || rest.first == UInt8(ascii: "?")
        }
        return isPath("/healthz") || isPath("/readyz") || isPath("/metrics") || isPath("/admin/", prefixOnly: true)
    }

    /// Counts the connection as an ordinary one from now on (its loop has made room for it).
    func leftReserve() { isReserved = false }

    /// Whether the client has closed its side of the connection (or reset it): a look at the socket that takes
    /// nothing from it (`MSG_PEEK`). evhttp reads nothing while it waits for an answer, so it has not seen the end.
    /// A client that only shut down writing (and still reads) looks the same.
    var peerHasClosed: Bool {
        guard let socket else { return true }
        let fd = bufferevent_getfd(socket)
        guard fd >= 0 else { return true }
        var byte: UInt8 = 0
        let received = recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        if received == 0 { return true }
        if received < 0 {
            let code = cevent_errno()
            return code != EAGAIN && code != EWOULDBLOCK && code != EINTR
        }
        return false
    }

    /// Hands over the rejection owed for the marker request (once).
    func takeRejection() -> HeadRejection? {
        defer { pendingRejection = nil }
        return pendingRejection
    }

    // MARK: Deadlines

    /// Applies the head and idle deadlines; called by the loop's sweep.
    func sweep(now: Int64) {
        guard let bufferevent else { return }
        let evhttpReading = bufferevent_get_enabled(bufferevent) & Int16(EV_READ) != 0
        // evhttp queues an answer before it enables writing, and the filter only moves output while
        // writing is enabled: answers sent through the loop server are flushed on the same turn of the loop
        // (LoopServer+Flush.swift); this catches any evhttp writes of its own (e.g. "100 Continue").
        if evbuffer_get_length(bufferevent_get_output(bufferevent)) > 0 {
            bufferevent_flush(bufferevent, Int16(EV_WRITE), BEV_NORMAL)
        }
        switch phase {
        case .busy where streaming:
            break  // answering for as long as the stream lasts; heartbeats show it alive
        case .busy where bodyRemaining > 0:
            checkBodyDeadline(now: now)
        case .busy:
            // evhttp reads again once it has answered: from then on the connection is idle.
            if evhttpReading && bodyRemaining == 0 && outputIsEmpty {
                phase = .idle(since: now)
                releaseUpload()
            }
        case .idle(let since):
            if now - since >= deadline(limits.idleTimeout) && evhttpReading && outputIsEmpty {
                // Closed quietly, as an idle keep-alive connection should be.
                bufferevent_trigger_event(bufferevent, Int16(BEV_EVENT_EOF), 0)
            }
        case .head(let since):
            if now - since >= deadline(limits.headerTimeout) {
                let input = bufferevent_get_input(bufferevent)
                let socketInput = bufferevent_get_input(bufferevent_get_underlying(bufferevent))
                reject(HeadRejection.requestTimeout(limits: limits), source: socketInput!, destination: input!)
                // If evhttp waits for a head, wake it; if it is busy, it reads the marker when done.
                if evhttpReading { bufferevent_trigger(bufferevent, Int16(EV_READ), 0) }
            }
        case .rejected, .closing:
            break
        }
    }

    /// A head or idle deadline in milliseconds: at most a second on a connection of the reserve, whose clients (a
    /// probe, an operator's curl) send at once, so that nobody holds a reserved connection by sending nothing.
    private func deadline(_ timeout: Duration) -> Int64 {
        Int64(isReserved ? min(timeout.wholeMilliseconds, 1000) : timeout.wholeMilliseconds)
    }

    /// Fails the body being received when it is late: not all there ``SettingKey/bodyTimeoutMs`` after its head, or,
    /// once its first second is over, behind ``SettingKey/minBodyRate`` on average since its head.
    private func checkBodyDeadline(now: Int64) {
        let elapsed = now - bodyStarted
        let timedOut = elapsed >= Int64(limits.bodyTimeout.wholeMilliseconds)
        let tooSlow =
            limits.minBodyRate > 0 && elapsed > 1000
            && Int64(bodyReceived) * 1000 < Int64(limits.minBodyRate) * (elapsed - 1000)
        guard timedOut || tooSlow else { return }
        failBody(
            .bodyTimeout(
                limits: limits, received: bodyReceived, declared: bodyReceived + bodyRemaining,
                tooSlow: tooSlow && !timedOut))
    }

    /// The bytes queued on the connection that the kernel has not taken yet: in the filter, and under it.
    var unsentBytes: Int {
        guard let bufferevent else { return 0 }
        return evbuffer_get_length(bufferevent_get_output(bufferevent))
            + evbuffer_get_length(bufferevent_get_output(bufferevent_get_underlying(bufferevent)))
    }

    /// Closes the connection because its client does not read what it was sent: evhttp is told the client went
    /// away (deferred, as a body's failure is), which frees the connection and what it queued.
    func dropUnread() {
        guard let bufferevent, phase != .closing else { return }
        phase = .closing
        bufferevent_trigger_event(bufferevent, Int16(BEV_EVENT_EOF), Int32(BEV_TRIG_DEFER_CALLBACKS.rawValue))
    }

    private var outputIsEmpty: Bool {
        guard let bufferevent else { return true }
        return evbuffer_get_length(bufferevent_get_output(bufferevent)) == 0
            && evbuffer_get_length(bufferevent_get_output(bufferevent_get_underlying(bufferevent))) == 0
    }

    /// Returns the request's reservation of the upload budget, if it took one.
    private func releaseUpload() {
        guard reservedUpload > 0 else { return }
        uploadBudget.release(reservedUpload)
        reservedUpload = 0
    }

    /// evhttp freed the connection (and so the filter).
    fileprivate func freed() {
        releaseUpload()
        if let bufferevent { server.connectionClosed(bufferevent) }
        bufferevent = nil
        socket = nil
    }
}

/// The filter's input callback: C calling convention, the guard comes in `context`.
private func connectionGuardInputFilter(
    _ source: OpaquePointer?, _ destination: OpaquePointer?, _ limit: Int, _ mode: bufferevent_flush_mode,
    _ context: UnsafeMutableRawPointer?
) -> bufferevent_filter_result {
    guard let source, let destination, let context else { return BEV_ERROR }
    let guardian = Unmanaged<ConnectionGuard>.fromOpaque(context).takeUnretainedValue()
    return guardian.filter(source: source, destination: destination, now: MonotonicClock.milliseconds())
}

/// The filter's output callback.
private func connectionGuardOutputFilter(
    _ source: OpaquePointer?, _ destination: OpaquePointer?, _ limit: Int, _ mode: bufferevent_flush_mode,
    _ context: UnsafeMutableRawPointer?
) -> bufferevent_filter_result {
    guard let source, let destination, let context else { return BEV_ERROR }
    return Unmanaged<ConnectionGuard>.fromOpaque(context).takeUnretainedValue()
        .filterOutput(source: source, destination: destination)
}

/// Called when the filter bufferevent is freed: the guard leaves its loop's registry.
private func connectionGuardFree(_ context: UnsafeMutableRawPointer?) {
    guard let context else { return }
    let guardian = Unmanaged<ConnectionGuard>.fromOpaque(context).takeRetainedValue()
    guardian.freed()
}
