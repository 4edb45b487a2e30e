// swift-format-ignore-file: OrderedImports
import Foundation  // before CEvent: both define fd_set, and the other order fails to build
import CEvent

extension LoopServer {
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
            evhttp_del_accept_socket(http, boundSocket)  // closes the listening socket: new connections are refused
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
    func sendWhileDraining(_ response: HTTPResponse, to request: EvHTTPRequest) {
        if request.onComplete(loopServerCompleteCallback, context: Unmanaged.passUnretained(self).toOpaque()) {
            unwritten += 1
        }
        request.send(response, closeConnection: true, buffer: replyBuffer)
        freeIfDrained()
    }

    /// evhttp calls this from inside its own write callback, which goes on using the connection
    /// afterwards: freeing evhttp here would pull it out from under it, so that waits for the
    /// next turn of the loop.
    func answerWritten() {
        unwritten -= 1
        loop.execute { [self] in freeIfDrained() }
    }

    func freeIfDrained() {
        if draining && pending.isEmpty && unwritten == 0 { freeHTTP() }
    }

    /// Frees evhttp (closing every connection) once nothing is in flight, then reports drained.
    func freeHTTP() {
        guard let http else { return }
        self.http = nil
        drainDeadline?.cancel()
        drainDeadline = nil
        if let sweepTimer { event_free(sweepTimer) }
        sweepTimer = nil
        evhttp_free(http)
        let done = onDrained
        onDrained = nil
        done?()
    }

    static let shuttingDown = Problem(
        .shuttingDown, detail: "The server is shutting down; retry on a new connection."
    ).response()
}

/// Called by evhttp once an answer sent while draining has been written to the socket.
private func loopServerCompleteCallback(_ request: OpaquePointer?, _ context: UnsafeMutableRawPointer?) {
    guard let context else { return }
    Unmanaged<LoopServer>.fromOpaque(context).takeUnretainedValue().answerWritten()
}
