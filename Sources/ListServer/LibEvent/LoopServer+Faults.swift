/// Delayed answers and wire faults: what happens to a response whose ``HTTPResponse/delay`` or
/// ``HTTPResponse/fault`` is set. Loop thread only.
///
/// Such a request stays in ``LoopServer/pending`` (like a deferred detail) while a loop timer holds it, so that
/// shutdown sees it: a drain waits for it or answers it 503 at its deadline, cancelling the timer, and a timer
/// only acts on a request still in `pending`, so it can never reach a request that was answered or freed. A client
/// that hangs up meanwhile makes evhttp detach the request, which the action then frees (see ``EvHTTPRequest``).
extension LoopServer {
    /// A request not answered yet.
    struct PendingRequest {
        let request: EvHTTPRequest
        let exchange: RequestExchange
        /// Echoed as `X-Request-Id`.
        let requestID: String
        /// The timer holding a delayed or faulty answer.
        var timer: LoopTimer?
        /// True for an injected hang, which shutdown answers at once: it would never answer by itself.
        var hangs = false
    }

    /// Holds `response` on a loop timer, then acts: sends it, or acts out its fault. A hang holds for its own
    /// duration after the delay; a hang that comes in while draining is answered 503 at once.
    func hold(_ response: HTTPResponse, for token: UInt64) {
        var wait = response.delay
        if case .hang(let duration) = response.fault {
            if draining {
                answer(token, with: Self.shuttingDown)
                return
            }
            wait += duration
            pending[token]?.hangs = true
        }
        pending[token]?.timer = loop.schedule(after: max(wait, .zero)) { [self] in act(token, response) }
    }

    /// The timer of `token` fired: send its response or act out the fault, unless shutdown answered it already.
    private func act(_ token: UInt64, _ response: HTTPResponse) {
        guard let entry = pending[token] else { return }
        var response = response
        encode(&response, for: entry.request)
        switch response.fault {
        case nil where response.bytesPerSecond != nil && startThrottled(token, response):
            break  // going out at its rate (LoopServer+Throttle.swift)
        case nil, .truncated:
            answer(token, with: response)
        case .reset, .hang:
            pending[token] = nil
            let none = HTTPResponse(status: 0, fault: response.fault)
            observer.journal(entry.exchange, none)  // before the client sees it
            entry.request.closeConnection(reset: response.fault == .reset)
            observer.end(entry.exchange, none, journaled: true)
            if draining { loop.execute { [self] in freeIfDrained() } }
        }
    }

    /// Answers a pending request now (cancelling its timer): normally, truncated if that is its fault, or with
    /// `Connection: close` while draining.
    ///
    /// Recorded in the journal before it is sent, as every answer is (``LoopObserver/journal(_:_:abandonedAt:)``).
    func answer(_ token: UInt64, with response: HTTPResponse) {
        guard let entry = pending.removeValue(forKey: token) else { return }
        var response = response
        encode(&response, for: entry.request)
        entry.timer?.cancel()
        if draining {
            observer.journal(entry.exchange, response)
            sendWhileDraining(response, to: entry.request, requestID: entry.requestID)
            observer.end(entry.exchange, response, journaled: true)
        } else if response.fault == .truncated {
            observer.journal(entry.exchange, response)
            entry.request.sendTruncated(
                response, requestID: entry.requestID, date: date.current, buffer: replyBuffer)
            observer.end(entry.exchange, response, journaled: true)
        } else {
            // The client left while its answer was being made or held: it is sent for nothing.
            let abandonedAt: Int? = entry.exchange.journaled && clientLeft(entry) ? 0 : nil
            let response = admitted(response, for: entry.request)
            observer.journal(entry.exchange, response, abandonedAt: abandonedAt)
            reply(response, to: entry.request, requestID: entry.requestID)
            observer.end(entry.exchange, response, journaled: true)
        }
    }

    /// Whether the client of a request answered only now has left meanwhile. Asked of requests that waited at least
    /// ``abandonmentCheckAfter`` (a detail miss, an image, a delayed answer: what a client cancels), so a write
    /// answered within a millisecond pays no system call for it.
    private func clientLeft(_ entry: PendingRequest) -> Bool {
        guard let start = entry.exchange.start, start.duration(to: RequestInstant.now) >= Self.abandonmentCheckAfter
        else {
            return false
        }
        guard let bufferevent = entry.request.connectionBufferevent else { return true }
        return connections[bufferevent]?.peerHasClosed ?? false
    }

    /// How long a request must have waited for its answer before the journal checks whether its client left.
    static let abandonmentCheckAfter = Duration.milliseconds(20)

    /// Answers every injected hang with 503; called when draining begins.
    func answerHangs() {
        for (token, entry) in pending where entry.hangs {
            answer(token, with: Self.shuttingDown)
        }
    }
}

extension HTTPResponse {
    /// Whether the response goes out at once and whole: no delay, no wire fault, and no rate, or a body that is
    /// no more than the first slice at that rate (which would go at once too).
    var isPlain: Bool {
        delay <= .zero && fault == nil
            && (bytesPerSecond.map { body.count <= LoopServer.firstSlice(atRate: $0) } ?? true)
    }
}
