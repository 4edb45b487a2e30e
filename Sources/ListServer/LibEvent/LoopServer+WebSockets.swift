// swift-format-ignore-file: OrderedImports
import Glibc  // before CEvent
import CEvent
import ListDomain

/// The change feed over a WebSocket (RFC 6455): `GET /items/events` with `Upgrade: websocket`.
///
/// evhttp 2.1 cannot hand a connection over (2.2's `evws` is not in Debian's libevent), so the server takes it: the
/// 101 goes out through evhttp as the start of a reply, which leaves evhttp waiting for that reply's end with no
/// read callback of its own (it only watches for the close); then the connection's bufferevent gets this file's
/// callbacks, the ``ConnectionGuard`` passes its bytes through unread, and evhttp never sees the connection again
/// until the server frees it (`evhttp_connection_free`, which runs the stream's close callback and frees the
/// request). Frames are wslay's (``WebSocketSession``), on the loop thread.
///
/// A WebSocket is an ``EventStream`` otherwise: the same table, replay with `?since=`, the same bounds (a subscriber
/// too far behind is dropped, the loop's share of ``SettingKey/eventBufferedBytes``), heartbeats (a ping; a client
/// that answers none of two is dropped), and ends at shutdown or when its dataset goes (a close, 1001).
extension LoopServer {
    /// The largest message a client may send (wslay answers a larger one with 1009): its messages are small JSON
    /// notices (`{"type":"typing","conversation":C}`).
    static let webSocketMessageLimit = 4096
    /// The most messages a client may send in a second before it is closed with 1008.
    static let webSocketMessagesPerSecond = 20

    /// Answers `request` with 101 and makes its connection a WebSocket of `stream`'s list; returns the answer as
    /// noted (101, or the 503 sent when the dataset left memory meanwhile).
    func openWebSocket(_ request: EvHTTPRequest, _ stream: EventStreamRequest, requestID: String) -> HTTPResponse {
        let switching = stream.opening
        let busy = Self.beingRead(stream.list)
        guard let connection = evhttp_request_get_connection(request.raw),
            let bufferevent = request.connectionBufferevent, let guardian = connections[bufferevent],
            let session = WebSocketSession(maxMessageBytes: Self.webSocketMessageLimit)
        else {
            reply(busy, to: request, requestID: requestID)
            return busy
        }
        let token = nextStreamToken
        nextStreamToken &+= 1
        let open = EventStream(
            request: request, list: stream.list, basePath: stream.basePath, token: token, lastSent: 0, server: self)
        open.webSocket = session
        open.chatOnly = stream.chatOnly
        open.client = stream.client
        // Counted (``streamCount``) before the list is read, as an event stream is (``openStream``): a commit whose
        // changes the feed did not hand this loop is one this read already sees.
        streams[token] = open
        guard let state = writes.lists.stateInMemory(of: stream.list) else {
            // The list left memory since the route read it (the memory budget): the client retries.
            streams[token] = nil
            reply(busy, to: request, requestID: requestID)
            return busy
        }
        let lastSequence = state.header.lastSequence
        open.lastSent = stream.after ?? lastSequence
        guardian.streaming = true
        guardian.beginPassThrough()
        limitKernelBuffer(of: bufferevent)
        evhttp_connection_set_closecb(connection, loopServerStreamClosed, Unmanaged.passRetained(open).toOpaque())
        request.addHeaders(of: switching, requestID: requestID, closeConnection: false, date: date.current)
        // A 1xx has no body: evhttp adds no length and no chunking, and writes the head at once.
        evhttp_send_reply_start(request.raw, 101, "Switching Protocols")
        // From here the connection is the WebSocket's (see the type's comment). No read or write timeout: the
        // heartbeat's pings find a client that is gone, and the socket's write timeout one that stopped reading.
        bufferevent_setcb(
            bufferevent, loopServerWebSocketReadable, nil, loopServerWebSocketEvent,
            Unmanaged.passUnretained(open).toOpaque())
        bufferevent_set_timeouts(bufferevent, nil, nil)
        bufferevent_enable(bufferevent, Int16(EV_READ | EV_WRITE))
        bufferevent_flush(bufferevent, Int16(EV_WRITE), BEV_NORMAL)
        startHeartbeats(every: stream.settings.heartbeat)
        if let after = stream.after, after < lastSequence {
            replay(open, after: after)
        } else if let after = stream.after, after > lastSequence {
            send(Self.expiredMessage(last: lastSequence), to: open)
            open.lastSent = lastSequence
        }
        // A client sends nothing before the 101 (RFC 6455 §4.1): bytes that came with the upgrade were read as a
        // request by the connection guard (refused), so there is nothing here to read yet.
        return switching
    }

    /// Sends one text message on a WebSocket stream, unless its client has fallen too far behind: then the
    /// stream is dropped instead.
    func send(_ message: [UInt8], to stream: EventStream) {
        guard streams[stream.token] != nil, let session = stream.webSocket else { return }
        guard session.send(text: message) else { return }  // closing: nothing more goes out
        writeWebSocketOutput(of: stream)
    }

    /// Moves what the session framed to the connection, within the stream's bounds (as ``write(_:to:)`` does for
    /// an event).
    func writeWebSocketOutput(of stream: EventStream) {
        guard let session = stream.webSocket, let bufferevent = stream.request.connectionBufferevent else { return }
        let bytes = session.takeOutput()
        guard !bytes.isEmpty else { return }
        measureBacklog(of: stream, bufferevent)
        if stream.backlog > events.maxBufferBytes || !makeRoom(for: bytes.count, writing: stream)
            || bytes.withUnsafeBytes({ evbuffer_add(bufferevent_get_output(bufferevent), $0.baseAddress, $0.count) })
                != 0
        {
            drop(stream)
            return
        }
        bufferevent_flush(bufferevent, Int16(EV_WRITE), BEV_NORMAL)
        measureBacklog(of: stream, bufferevent)
    }

    /// The client sent bytes: wslay reads them, the messages they complete are handled, and what is owed in return
    /// (pongs, a close) goes out; a connection whose close handshake is done is closed.
    fileprivate func webSocketReadable(_ stream: EventStream) {
        guard streams[stream.token] != nil, let session = stream.webSocket,
            let bufferevent = stream.request.connectionBufferevent
        else { return }
        let input = bufferevent_get_input(bufferevent)
        while evbuffer_get_length(input) > 0 {
            let count = evbuffer_get_contiguous_space(input)
            guard let bytes = evbuffer_pullup(input, count) else { break }
            let messages = session.receive(UnsafeRawBufferPointer(start: bytes, count: count))
            evbuffer_drain(input, count)
            for message in messages { received(message, on: stream) }
        }
        writeWebSocketOutput(of: stream)
        if session.isFinished { drop(stream) }
    }

    /// One message from the client.
    private func received(_ message: WebSocketSession.Received, on stream: EventStream) {
        guard let session = stream.webSocket else { return }
        switch message {
        case .pong:
            stream.pingsUnanswered = 0
        case .text(let text):
            guard !session.isClosing else { return }  // after a close, nothing more is acted on
            let second = MonotonicClock.milliseconds() / 1000
            if second != stream.messageSecond {
                stream.messageSecond = second
                stream.messagesThisSecond = 0
            }
            stream.messagesThisSecond += 1
            guard stream.messagesThisSecond <= Self.webSocketMessagesPerSecond else {
                session.close(code: 1008, reason: "more than \(Self.webSocketMessagesPerSecond) messages a second")
                return
            }
            if let answer = clientMessage(text, on: stream) { _ = session.send(text: answer) }
        }
    }

    /// A ping to each WebSocket stream (the heartbeat); one that left two unanswered, or that is closing (its
    /// client has not answered the close since the last heartbeat), is dropped.
    func pingWebSockets() {
        for stream in Array(streams.values) {
            guard let session = stream.webSocket else { continue }
            // A close not answered within a whole heartbeat, or two pings: the client is gone, or ignores the close.
            // Not at the first heartbeat after the close: one queued just before it could be freed unsent, and the
            // client saw the connection end without it (the CI's full test run did once).
            if session.isClosing {
                stream.heartbeatsClosing += 1
                if stream.heartbeatsClosing >= 2 { drop(stream) }
                continue
            }
            if stream.pingsUnanswered >= 2 {
                drop(stream)
                continue
            }
            stream.pingsUnanswered += 1
            if session.ping() { writeWebSocketOutput(of: stream) }
        }
    }

    /// Ends a WebSocket stream from the server's side: its close (`code`, `reason`) goes out, and the connection is
    /// closed when the client answers it (``webSocketReadable(_:)``), or after ``webSocketCloseWait``: the server
    /// closes the TCP connection after the client's close (RFC 6455 §7.1.1). Closed at once, the close could be
    /// lost: with bytes from the client still unread (a pong, a message on its way), Linux answers the socket's
    /// close with a reset, and the client's system may drop what its reader had not yet taken.
    func closeWebSocket(_ stream: EventStream, code: UInt16, reason: String) {
        guard streams[stream.token] != nil, let session = stream.webSocket else { return }
        session.close(code: code, reason: reason)
        writeWebSocketOutput(of: stream)
        guard streams[stream.token] != nil, stream.closeWait == nil else { return }  // dropped, or already waiting
        stream.closeWait = loop.schedule(after: Self.webSocketCloseWait) { [self] in
            stream.closeWait = nil
            if streams[stream.token] != nil { drop(stream) }
        }
    }

    /// How long a client has to answer the server's close: a drain waits as long for it (``freeIfDrained()``).
    static let webSocketCloseWait = Duration.seconds(1)

    /// The connection failed or the client closed it without a close frame.
    fileprivate func webSocketEnded(_ stream: EventStream) {
        drop(stream)
    }

    /// A client's message (``Router/webSocketMessage(_:list:client:)``): a typing signal is announced to every
    /// stream of the dataset (the sender's too), once a second at most; returns the answer owed, an error, or nil.
    private func clientMessage(_ text: [UInt8], on stream: EventStream) -> [UInt8]? {
        do throws(Problem) {
            let signal = try router.webSocketMessage(text, list: stream.list, client: stream.client)
            // Once a second at most: each goes to every subscriber of the dataset (a typing indicator lasts 5 s).
            let now = MonotonicClock.milliseconds()
            if let last = stream.typingAnnouncedAt, now - last < 1000 { return nil }
            stream.typingAnnouncedAt = now
            writes.feed.announce(signal, of: stream.list)
            return nil
        } catch {
            return Array("{\"kind\":\"error\",\"problem\":".utf8) + error.response().body + Array("}".utf8)
        }
    }

    /// Hands a typing signal to this loop's streams of `list` (called on the loop thread): to a WebSocket as a
    /// message, to an event stream as an event with no `id:`.
    func deliver(_ signal: TypingSignal, of list: String) {
        var event: EventFrame?
        var message: [UInt8]?
        for stream in Array(streams.values) where stream.list == list && stream.journal == nil {
            if stream.webSocket != nil {
                message = message ?? signal.webSocketMessage
                send(message!, to: stream)
            } else {
                event = event ?? EventFrame(signal.serverSentEvent)
                write(event!, to: stream)
            }
        }
    }

    /// `{"kind":"expired","last_sequence":N}`: the changes asked for are not kept; reload, then go on from N.
    static func expiredMessage(last: UInt64) -> [UInt8] {
        Array("{\"kind\":\"expired\",\"last_sequence\":\(last)}".utf8)
    }
}

/// The WebSocket's read callback: C calling convention, the stream comes unretained in `context` (the close
/// callback holds it).
private func loopServerWebSocketReadable(_ bufferevent: OpaquePointer?, _ context: UnsafeMutableRawPointer?) {
    guard let context else { return }
    let stream = Unmanaged<EventStream>.fromOpaque(context).takeUnretainedValue()
    stream.server.webSocketReadable(stream)
}

/// The WebSocket's event callback: the end of the input, an error or a timeout all end it.
private func loopServerWebSocketEvent(_ bufferevent: OpaquePointer?, _ what: Int16, _ context: UnsafeMutableRawPointer?)
{
    guard let context else { return }
    let stream = Unmanaged<EventStream>.fromOpaque(context).takeUnretainedValue()
    let ends = Int32(what) & (BEV_EVENT_EOF | BEV_EVENT_ERROR | BEV_EVENT_TIMEOUT) != 0
    if ends { stream.server.webSocketEnded(stream) }
}
