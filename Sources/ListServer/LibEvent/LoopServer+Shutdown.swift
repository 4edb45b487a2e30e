// swift-format-ignore-file: OrderedImports
import Glibc  // before CEvent
import CEvent
import ListDomain

/// A loop's part of a shutdown: stop accepting, answer what is in flight (503 at the deadline), then free evhttp.
extension LoopServer {
    /// Stops accepting, answers new requests on open connections with 503 and `Connection: close`,
    /// and calls `done` once every request in flight is answered and written out and every WebSocket's client has
    /// answered its close (or had a second to). Injected hangs get 503 at once; delayed answers go out when due. At
    /// `deadline` the requests still waiting get 503 (their timers cancelled), and evhttp is freed shortly after
    /// whatever is left. Loop thread.
    func beginDraining(deadline: Duration, done: @escaping () -> Void) {
        precondition(loop.inLoop)
        guard !draining else { return }
        draining = true
        onDrained = done
        endStreams()  // at once: clients reconnect elsewhere; a WebSocket's close is answered within a second
        finishThrottledAnswers()  // what they have left goes at once
        writes.feed.endWaits()  // long-polls answer now, empty (every loop asks; the first one does it)
        if let http, let boundSocket {
            evhttp_del_accept_socket(http, boundSocket)  // closes the listening socket: new connections are refused
            self.boundSocket = nil
        }
        answerHangs()
        drainDeadline = loop.schedule(after: deadline) { [self] in
            drainDeadline = nil
            // Writes still queued for a group are taken out first, so that none answered 503 below is committed
            // afterwards (those of a group already committing may be: only a store stuck past the deadline leaves
            // one, and a retry with its Idempotency-Key tells). Every loop asks; the first one takes them all.
            writes.refuseQueued(Self.refusedWhileDraining)
            for token in Array(pending.keys) {
                answer(token, with: Self.shuttingDown)
            }
            // Give those 503s a moment to reach the wire; slow readers are not waited for.
            loop.schedule(after: .milliseconds(100)) { [self] in freeHTTP() }
        }
        freeIfDrained()
    }

    /// Sends with `Connection: close` (truncated, if that is the response's fault) and counts the
    /// answer until evhttp has written it.
    func sendWhileDraining(_ response: HTTPResponse, to request: EvHTTPRequest, requestID: String) {
        countUntilWritten(request)
        if response.fault == .truncated {
            request.sendTruncated(response, requestID: requestID, date: date.current, buffer: replyBuffer)
        } else {
            reply(response, to: request, requestID: requestID, closeConnection: true)
        }
        // Never free evhttp from here: at the deadline this runs in a loop over the requests still waiting,
        // and freeing evhttp would free the ones not yet answered under it.
        loop.execute { [self] in freeIfDrained() }
    }

    /// Counts `request`'s answer, about to be sent, until evhttp has written it: a drain waits for it.
    func countUntilWritten(_ request: EvHTTPRequest) {
        if request.onComplete(loopServerCompleteCallback, context: Unmanaged.passUnretained(self).toOpaque()) {
            unwritten += 1
        }
    }

    /// evhttp calls this from inside its own write callback, which goes on using the connection
    /// afterwards: freeing evhttp here would pull it out from under it, so that waits for the
    /// next turn of the loop.
    func answerWritten() {
        unwritten -= 1
        loop.execute { [self] in freeIfDrained() }
    }

    /// Frees evhttp once nothing is in flight: no request waiting, no answer unwritten, and no WebSocket waiting for
    /// its client's close (the drain ended every other stream at once; each WebSocket is let go within
    /// ``webSocketCloseWait``).
    func freeIfDrained() {
        if draining && pending.isEmpty && unwritten == 0 && streams.isEmpty { freeHTTP() }
    }

    /// Frees evhttp (closing every connection) once nothing is in flight, then reports drained.
    func freeHTTP() {
        guard let http else { return }
        self.http = nil
        drainDeadline?.cancel()
        drainDeadline = nil
        if let sweepTimer { event_free(sweepTimer) }
        sweepTimer = nil
        flushQueued()  // answers waiting for the turn's flush go out before evhttp closes their connections
        evhttp_free(http)
        let done = onDrained
        onDrained = nil
        done?()
    }

    static let refusedWhileDraining = StoreFailure(
        .unavailable, "the server is shutting down; the write was not applied")

    static let shuttingDown = Problem(
        .shuttingDown, detail: "The server is shutting down; retry on a new connection."
    ).response()
}

/// Called by evhttp once an answer sent while draining has been written to the socket.
private func loopServerCompleteCallback(_ request: OpaquePointer?, _ context: UnsafeMutableRawPointer?) {
    guard let context else { return }
    Unmanaged<LoopServer>.fromOpaque(context).takeUnretainedValue().answerWritten()
}
