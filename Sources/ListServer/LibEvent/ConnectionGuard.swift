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
/// Deadlines (head, idle) are checked by the loop's periodic sweep, not per-request timers, so a
/// request costs no timer operations. Loop thread only.
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
    private var scanner: RequestHeadScanner
    private var bodyRemaining = 0
    /// Whether the body being received is dropped rather than passed on (see where a head completes).
    private var dropsBody = false
    /// Whether the connection carries an event stream: evhttp keeps reading while it writes one (to see the
    /// client leave), which the sweep would otherwise take for an idle keep-alive connection and close.
    var streaming = false
    private let limits: HTTPLimits
    private let uploadBudget: UploadBudget
    /// What the request being handled took from ``uploadBudget`` (a large upload), returned when it is done.
    private var reservedUpload = 0
    private unowned let server: LoopServer

    init(server: LoopServer, limits: HTTPLimits, uploadBudget: UploadBudget, now: Int64) {
        self.server = server
        self.limits = limits
        self.uploadBudget = uploadBudget
        scanner = RequestHeadScanner(limits: limits)
        phase = .idle(since: now)
    }

    /// Set while an event-stream chunk is added: evhttp adds its size line, its data and its CRLF one by one, and
    /// each add calls the output filter, which wrote each to the kernel, three TCP segments per event per
    /// subscriber (seen with strace: three `writev`s). Held, the bytes wait in the filter's buffer, and the flush
    /// that follows the chunk writes them in one `writev`.
    var holdsOutput = false

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
        if holdsOutput { return BEV_NEED_MORE }  // the flush after the chunk writes it
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
            switch phase {
            case .rejected:
                evbuffer_drain(source, available)
                return BEV_OK
            case .busy where bodyRemaining > 0 && dropsBody:
                let dropped = min(available, bodyRemaining)
                evbuffer_drain(source, dropped)
                bodyRemaining -= dropped
                continue
            case .busy where bodyRemaining > 0:
                let moved = evbuffer_remove_buffer(source, destination, min(available, bodyRemaining))
                guard moved > 0 else { return BEV_ERROR }
                bodyRemaining -= Int(moved)
                continue
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
                // Only an upload may pass http.max_body_bytes (the scanner saw to that); such a body is held in
                // memory until it is answered, so it must fit the budget before a byte of it is read.
                if head.bodyLength > limits.maxBodyBytes {
                    // A connection holds one reservation: an upload behind another whose answer the sweep has not
                    // seen yet takes the place of the earlier one (a client pipelining uploads counts as one).
                    releaseUpload()
                    guard uploadBudget.reserve(head.bodyLength) else {
                        reject(
                            .uploadsBusy(limit: UploadBudget.uploadsInFlight), source: source,
                            destination: destination)
                        return BEV_OK
                    }
                    reservedUpload = head.bodyLength
                }
                // evhttp reads no body for HEAD and TRACE (libevent 2.1's evhttp_method_may_have_body), so one
                // passed on would be parsed as the next request: evhttp's own HTML 400 and a closed connection
                // (schemathesis found it). Such a body has no meaning (RFC 9110 §9.3.2): it is dropped here.
                dropsBody = head.method == .head || head.method == .trace
                // The head and as much of the body as has arrived move in one call: when that is all the source
                // holds (the usual request), libevent relinks its chains instead of copying the head's bytes out
                // of a chain it keeps for the body (callgrind: 850 instructions fewer a POST than two calls).
                let bodyHere = dropsBody ? 0 : min(available - head.headLength, head.bodyLength)
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
        // writing is enabled: answers sent through EvHTTPRequest are flushed at once; this catches
        // any evhttp writes of its own (e.g. "100 Continue").
        if evbuffer_get_length(bufferevent_get_output(bufferevent)) > 0 {
            bufferevent_flush(bufferevent, Int16(EV_WRITE), BEV_NORMAL)
        }
        switch phase {
        case .busy where streaming:
            break  // answering for as long as the stream lasts; heartbeats show it alive
        case .busy:
            // evhttp reads again once it has answered: from then on the connection is idle.
            if evhttpReading && bodyRemaining == 0 && outputIsEmpty {
                phase = .idle(since: now)
                releaseUpload()
            }
        case .idle(let since):
            if now - since >= Int64(limits.idleTimeout.wholeMilliseconds) && evhttpReading && outputIsEmpty {
                // Closed quietly, as an idle keep-alive connection should be.
                bufferevent_trigger_event(bufferevent, Int16(BEV_EVENT_EOF), 0)
            }
        case .head(let since):
            if now - since >= Int64(limits.headerTimeout.wholeMilliseconds) {
                let input = bufferevent_get_input(bufferevent)
                let socketInput = bufferevent_get_input(bufferevent_get_underlying(bufferevent))
                reject(HeadRejection.requestTimeout(limits: limits), source: socketInput!, destination: input!)
                // If evhttp waits for a head, wake it; if it is busy, it reads the marker when done.
                if evhttpReading { bufferevent_trigger(bufferevent, Int16(EV_READ), 0) }
            }
        case .rejected:
            break
        }
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
