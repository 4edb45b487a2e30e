// swift-format-ignore-file: OrderedImports
import Foundation  // before CEvent: both define fd_set, and the other order fails to build
import CEvent

/// One `evhttp` on one event loop: accepts on its own listening socket, turns each request into an
/// `HTTPRequest`, asks the router, and replies on the loop thread.
///
/// Requests whose answer needs an `await` (slow details) are tracked until they are answered, so
/// that a shutdown can wait for them, answer the rest with 503 at its deadline, and free `evhttp`
/// only when no request is in flight: freeing it earlier frees requests the router still holds.
///
/// Invariant: every member is touched only on `loop`'s thread; the class is `@unchecked Sendable`
/// because tasks carry it across an `await` that resumes on that same thread.
final class LoopServer: @unchecked Sendable {
    let loop: EventLoop
    private let router: Router
    private var http: OpaquePointer?
    /// The accepting socket, removed at the start of a shutdown.
    private var boundSocket: OpaquePointer?
    /// Requests awaiting a deferred answer, by a per-loop token.
    private var pending: [UInt64: EvHTTPRequest] = [:]
    private var nextToken: UInt64 = 0
    /// Set once shutdown begins: new requests get 503 with `Connection: close`.
    private var draining = false
    private var onDrained: (() -> Void)?
    /// Answers sent while draining that evhttp has not finished writing yet.
    private var unwritten = 0
    private var drainDeadline: LoopTimer?
    /// The reply body buffer, reused: `evhttp_send_reply` moves its contents out.
    private let replyBuffer: OpaquePointer

    /// Creates the evhttp on the loop's base and starts accepting on `listeningFD` (which it now owns).
    /// Call before the loop thread starts, or on it.
    init(loop: EventLoop, router: Router, listeningFD: Int32) throws(EventError) {
        self.loop = loop
        self.router = router
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
        evhttp_set_gencb(http, loopServerRequestCallback, Unmanaged.passUnretained(self).toOpaque())
        boundSocket = evhttp_accept_socket_with_handle(http, listeningFD)
        guard boundSocket != nil else {
            let error = EventError.call("evhttp_accept_socket_with_handle", errno: cevent_errno())
            close(listeningFD)
            evhttp_free(http)
            evbuffer_free(buffer)
            throw error
        }
    }

    deinit {
        if let http { evhttp_free(http) }
        evbuffer_free(replyBuffer)
    }

    // MARK: Requests

    /// Handles one request from evhttp; loop thread.
    fileprivate func handle(_ raw: OpaquePointer) {
        let request = EvHTTPRequest(raw)
        if draining {
            sendWhileDraining(Self.shuttingDown, to: request)
            return
        }
        switch router.route(request.makeHTTPRequest()) {
        case .response(let response):
            request.send(response, buffer: replyBuffer)
        case .deferred(let work):
            let token = nextToken
            nextToken &+= 1
            pending[token] = request
            Task.immediate(executorPreference: loop) { [self] in
                let response = await work()
                finish(token, with: response)
            }
        }
    }

    /// Sends a deferred answer, unless shutdown already answered that request.
    private func finish(_ token: UInt64, with response: HTTPResponse) {
        guard loop.inLoop else {
            // Not expected (the task prefers this loop), but evhttp must never be touched elsewhere.
            loop.execute { [self] in finish(token, with: response) }
            return
        }
        guard let request = pending.removeValue(forKey: token) else { return }
        if draining {
            sendWhileDraining(response, to: request)
        } else {
            request.send(response, buffer: replyBuffer)
        }
    }

    // MARK: Shutdown

    /// Stops accepting, answers new requests on open connections with 503 and `Connection: close`,
    /// and calls `done` once every request in flight is answered and written out. At `deadline`
    /// the requests still waiting get 503, and evhttp is freed shortly after whatever is left.
    /// Loop thread.
    func beginDraining(deadline: Duration, done: @escaping () -> Void) {
        precondition(loop.inLoop)
        guard !draining else { return }
        draining = true
        onDrained = done
        if let http, let boundSocket {
            evhttp_del_accept_socket(http, boundSocket)
            self.boundSocket = nil
        }
        drainDeadline = loop.schedule(after: deadline) { [self] in
            drainDeadline = nil
            let late = pending.values
            pending.removeAll()
            for request in late { sendWhileDraining(Self.shuttingDown, to: request) }
            // Give those 503s a moment to reach the wire; slow readers are not waited for.
            loop.schedule(after: .milliseconds(100)) { [self] in freeHTTP() }
        }
        freeIfDrained()
    }

    /// Sends with `Connection: close` and counts the answer until evhttp has written it.
    private func sendWhileDraining(_ response: HTTPResponse, to request: EvHTTPRequest) {
        if request.onComplete(loopServerCompleteCallback, context: Unmanaged.passUnretained(self).toOpaque()) {
            unwritten += 1
        }
        request.send(response, closeConnection: true, buffer: replyBuffer)
        freeIfDrained()
    }

    /// evhttp calls this from inside its own write callback, which goes on using the connection
    /// afterwards: freeing evhttp here would pull it out from under it, so that waits for the
    /// next turn of the loop.
    fileprivate func answerWritten() {
        unwritten -= 1
        loop.execute { [self] in freeIfDrained() }
    }

    private func freeIfDrained() {
        if draining && pending.isEmpty && unwritten == 0 { freeHTTP() }
    }

    /// Frees evhttp (closing every connection) once nothing is in flight, then reports drained.
    private func freeHTTP() {
        guard let http else { return }
        self.http = nil
        drainDeadline?.cancel()
        drainDeadline = nil
        evhttp_free(http)
        let done = onDrained
        onDrained = nil
        done?()
    }

    private static let shuttingDown = Problem(
        .shuttingDown, detail: "The server is shutting down; retry on a new connection."
    ).response()
}

/// The evhttp request callback: C calling convention, captures nothing, the server comes in `context`.
private func loopServerRequestCallback(_ request: OpaquePointer?, _ context: UnsafeMutableRawPointer?) {
    guard let request, let context else { return }
    Unmanaged<LoopServer>.fromOpaque(context).takeUnretainedValue().handle(request)
}

/// Called by evhttp once an answer sent while draining has been written to the socket.
private func loopServerCompleteCallback(_ request: OpaquePointer?, _ context: UnsafeMutableRawPointer?) {
    guard let context else { return }
    Unmanaged<LoopServer>.fromOpaque(context).takeUnretainedValue().answerWritten()
}
