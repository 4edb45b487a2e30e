// swift-format-ignore-file: OrderedImports
import Glibc  // before CEvent
import CEvent
import ListDomain

/// One answer going out at a set rate (``HTTPResponse/bytesPerSecond``: a profile's `bandwidth`, `?kbps=`). Loop
/// thread only.
final class ThrottledAnswer {
    let request: EvHTTPRequest
    let exchange: RequestExchange
    let response: HTTPResponse
    let token: UInt64
    /// How much of the body is sent.
    var offset = 0
    /// When the body started (``MonotonicClock``): what is due is counted from here, so late timers catch up.
    let started = MonotonicClock.milliseconds()
    /// The next slice's timer.
    var timer: LoopTimer?
    /// Set when the connection went away (the close callback ran): the request must not be touched again.
    var closed = false
    /// The server whose table holds it; unowned for the reason ``EventStream/server`` gives.
    unowned(unsafe) let server: LoopServer

    init(request: EvHTTPRequest, exchange: RequestExchange, response: HTTPResponse, token: UInt64, server: LoopServer) {
        self.request = request
        self.exchange = exchange
        self.response = response
        self.token = token
        self.server = server
    }
}

/// Answers sent at a rate: the head at once (with the whole `Content-Length`), then the body in slices on a loop
/// timer, ``throttleInterval`` apart, each a rate's worth of that interval. No thread waits, and a client that
/// hangs up frees everything at once (the connection's close callback, as for a stream). A drain sends what is
/// left at once. What paced bodies hold is bounded like unread answers: the loop's share of
/// ``SettingKey/maxOutputBytes`` (``LoopServer/outputBudget``); one more that would pass it is answered 503
/// `server-busy` with `Retry-After`, not sent faster than it asked (a client at `?kbps=1` holds its body for
/// minutes).
extension LoopServer {
    /// The time between two slices of a throttled answer.
    static let throttleInterval: Duration = .milliseconds(50)

    /// The bytes that go at once when a paced answer starts: a slice's worth at `rate` bytes a second.
    static func firstSlice(atRate rate: Int) -> Int {
        Int((Double(rate) * (throttleInterval / .seconds(1))).rounded(.up))
    }

    /// Starts sending `response` for pending request `token` at its rate, or answers it 503 when the paced bodies
    /// hold the loop's share of the output budget; false (nothing done) when there is nothing to pace: no body on
    /// the wire (HEAD), a body within the first slice, or a drain under way.
    func startThrottled(_ token: UInt64, _ response: HTTPResponse) -> Bool {
        guard let entry = pending[token], !draining,
            response.body.count > Self.firstSlice(atRate: response.bytesPerSecond ?? response.body.count),
            evhttp_request_get_command(entry.request.raw) != EVHTTP_REQ_HEAD,
            let connection = evhttp_request_get_connection(entry.request.raw)
        else { return false }
        guard throttledBytes + response.body.count <= outputBudget else {
            answer(
                token,
                with: Problem(
                    .serverBusy,
                    detail: "the server holds \(throttledBytes) bytes of answers going out at a rate "
                        + "(\(SettingKey.maxOutputBytes.name)), and this one is \(response.body.count) bytes; "
                        + "retry shortly",
                    headers: ["Retry-After": "1"]
                ).response())
            return true
        }
        throttledBytes += response.body.count
        pending[token] = nil
        entry.timer?.cancel()
        let answer = ThrottledAnswer(
            request: entry.request, exchange: entry.exchange, response: response, token: token, server: self)
        throttled[token] = answer
        if let bufferevent = entry.request.connectionBufferevent {
            connections[bufferevent]?.streaming = true  // answering, slowly: not idle, not stuck
        }
        evhttp_connection_set_closecb(connection, loopServerThrottledClosed, Unmanaged.passRetained(answer).toOpaque())
        entry.request.addHeaders(
            of: response, requestID: entry.requestID, closeConnection: false, date: date.current)
        // With its length stated, evhttp sends the body as it is given, unchunked.
        evhttp_add_header(
            evhttp_request_get_output_headers(entry.request.raw), "Content-Length", String(response.body.count))
        evhttp_send_reply_start(entry.request.raw, Int32(response.status), HTTPReasonPhrase.of(response.status))
        sendSlice(of: answer)
        return true
    }

    /// Sends what is due by now (a slice at once, then the rate's worth of the time since; while draining, the
    /// rest), and schedules the next slice or ends the answer. Counted from the start rather than slice by slice,
    /// so timers that fire late (a busy loop) do not make the answer slower than its rate.
    private func sendSlice(of answer: ThrottledAnswer) {
        guard throttled[answer.token] != nil, !answer.closed else { return }
        let body = answer.response.body
        let rate = answer.response.bytesPerSecond ?? body.count
        let elapsed = Double(MonotonicClock.milliseconds() - answer.started) / 1000
        let due = min(Double(body.count), Double(Self.firstSlice(atRate: rate)) + (Double(rate) * elapsed).rounded(.up))
        let end = draining ? body.count : max(answer.offset + 1, Int(due))
        body[answer.offset..<end].withUnsafeBytes { bytes in
            _ = evbuffer_add(replyBuffer, bytes.baseAddress, bytes.count)
        }
        throttledBytes -= end - answer.offset
        answer.offset = end
        evhttp_send_reply_chunk(answer.request.raw, replyBuffer)
        evbuffer_drain(replyBuffer, evbuffer_get_length(replyBuffer))  // what evhttp did not take: the next reply's
        // Pushed now (the guard's filter moves output only when pushed), and before the end: for a connection
        // that closes after its answer (`Connection: close`, HTTP/1.0), evhttp frees it inside
        // `evhttp_send_reply_end` when the output is empty, and it must not be touched after that.
        if let bufferevent = answer.request.connectionBufferevent {
            bufferevent_flush(bufferevent, Int16(EV_WRITE), BEV_NORMAL)
        }
        if answer.offset == body.count {
            finishThrottled(answer)
        } else {
            answer.timer = loop.schedule(after: Self.throttleInterval) { [self] in sendSlice(of: answer) }
        }
    }

    /// The whole body is handed over: the answer ends, and the connection serves the next request.
    private func finishThrottled(_ answer: ThrottledAnswer) {
        throttled[answer.token] = nil
        answer.timer = nil  // its closure holds the answer: the cycle ends here
        if let bufferevent = answer.request.connectionBufferevent {
            connections[bufferevent]?.streaming = false
        }
        if let connection = evhttp_request_get_connection(answer.request.raw) {
            evhttp_connection_set_closecb(connection, nil, nil)
            Unmanaged.passUnretained(answer).release()  // the close callback's reference
        }
        // While draining, evhttp must not be freed before the rest is written (it would cut the body short).
        if draining { countUntilWritten(answer.request) }
        observer.journal(answer.exchange, answer.response)  // before the last bytes go
        evhttp_send_reply_end(answer.request.raw)  // may free the request and its connection: neither is used after
        observer.end(answer.exchange, answer.response, journaled: true)
        if draining { loop.execute { [self] in freeIfDrained() } }
    }

    /// Sends what every throttled answer has left at once (a drain begins).
    func finishThrottledAnswers() {
        for answer in Array(throttled.values) {
            answer.timer?.cancel()
            sendSlice(of: answer)
        }
    }

    /// The connection of `answer` went away before its body did: it is forgotten, and its request, which evhttp
    /// detached from the connection without freeing it (a reply in progress belongs to its sender), freed.
    fileprivate func throttledClosed(_ answer: ThrottledAnswer) {
        answer.closed = true
        answer.timer?.cancel()
        answer.timer = nil
        guard throttled.removeValue(forKey: answer.token) != nil else { return }
        throttledBytes -= answer.response.body.count - answer.offset
        observer.end(answer.exchange, HTTPResponse(status: 0), abandoned: answer.response, at: answer.offset)
        if evhttp_request_get_connection(answer.request.raw) == nil {
            evhttp_request_free(answer.request.raw)
        }
        if draining { loop.execute { [self] in freeIfDrained() } }
    }
}

/// evhttp's connection close callback for a throttled answer: the answer comes retained in `context`.
private func loopServerThrottledClosed(_ connection: OpaquePointer?, _ context: UnsafeMutableRawPointer?) {
    guard let context else { return }
    let answer = Unmanaged<ThrottledAnswer>.fromOpaque(context).takeRetainedValue()
    answer.server.throttledClosed(answer)
}
