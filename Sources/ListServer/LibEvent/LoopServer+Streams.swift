// swift-format-ignore-file: OrderedImports
import Glibc  // before CEvent
import CEvent
import ListDomain

/// One open `GET /items/events` stream: an evhttp reply that stays open, chunked for HTTP/1.1 (HTTP/1.0's body ends
/// with the connection). Loop thread only (`@unchecked Sendable` because a replaying task holds it across an `await`
/// that resumes on the same loop).
final class EventStream: @unchecked Sendable {
    let request: EvHTTPRequest
    let list: String
    /// What the items' URLs in its events start with (``EventStreamRequest/basePath``).
    let basePath: [UInt8]?
    /// Set for a stream of `list`'s request journal (`LoopServer+JournalStreams.swift`), which changes never reach.
    var journal: JournalFollow?
    let token: UInt64
    /// The sequence number of the last change sent; live changes at or below it are not sent again.
    var lastSent: UInt64
    /// While the kept changes are being read (a reconnect): live changes wait here, then go out after them.
    var held: [Change]?
    /// Set when the connection went away (the close callback ran): the request must not be touched again.
    var closed = false
    /// How events go on the wire, fixed when the reply starts: as chunks (HTTP/1.1), or as they are (HTTP/1.0,
    /// whose body ends with the connection). Only GET opens a stream, so there is always a body.
    var chunked = true
    /// The gzip stream its events go out in, when the request accepted gzip (``encodeEvents(of:_:)``); nil sends
    /// them as they are.
    var compressor: EventStreamCompressor?
    /// Set for a WebSocket (`LoopServer+WebSockets.swift`): its frames' state. Its events are JSON messages, not
    /// Server-Sent Events, and it is never chunked or compressed.
    var webSocket: WebSocketSession?
    /// `GET /conversations/events`: only the chat's changes go out (the others still move ``lastSent``).
    var chatOnly = false
    /// A WebSocket's client (`X-Client-Id` of its upgrade, "" for none), named in the typing it announces.
    var client = ""
    /// A WebSocket's pings since its last pong (dropped at two), and its client's messages in the current second.
    var pingsUnanswered = 0
    /// Heartbeats since a WebSocket's close went out unanswered (dropped at two: a whole heartbeat to answer it).
    var heartbeatsClosing = 0
    /// The timer that lets a WebSocket go when its client has not answered the server's close in time
    /// (``LoopServer/closeWebSocket(_:code:reason:)``); cancelled when the stream goes first, so that no timer is
    /// left pending (holding the stream and the server) when the loop stops.
    var closeWait: LoopTimer?
    var messageSecond: Int64 = 0
    var messagesThisSecond = 0
    /// When a WebSocket's client last had its typing announced (milliseconds, monotonic): once a second at most.
    var typingAnnouncedAt: Int64?
    /// What the stream had not sent when last measured (after its last write), counted in the loop's
    /// ``LoopServer/streamBacklog``.
    var backlog = 0
    /// The server whose table holds the stream. Not weak, for the reason ``LoopServerReference`` gives: the stream
    /// is in that table until its connection closes, and connections close no later than the server's `deinit`
    /// (which frees evhttp, and with it every connection, while the server is still whole).
    unowned(unsafe) let server: LoopServer

    init(
        request: EvHTTPRequest, list: String, basePath: [UInt8]?, token: UInt64, lastSent: UInt64, server: LoopServer
    ) {
        self.request = request
        self.list = list
        self.basePath = basePath
        self.token = token
        self.lastSent = lastSent
        self.server = server
    }
}

/// Event streams: opened from a route's `.stream`, fed from the change feed, kept alive by heartbeats, ended at
/// shutdown. Every evhttp call here runs on the loop thread.
///
/// The feed hands each commit's changes to every loop once (``ChangeFeed/addListener(_:)``); the loop encodes each
/// change once and writes the same bytes to each of its streams of that list. A subscriber that stops reading is
/// dropped once what it has not read passes ``SettingKey/eventBufferBytes``, and when what all of the loop's
/// subscribers have not read would pass the loop's share of ``SettingKey/eventBufferedBytes``, those furthest behind
/// are dropped first (1,000 subscribers that never read held 1 MiB each, 1.5 GB, before there was a shared bound).
/// Streams are not requests in flight: a drain ends them at once (clients reconnect elsewhere), waiting only for the
/// WebSockets' clients to answer their close, a second at most (``LoopServer/webSocketCloseWait``).
extension LoopServer {
    /// Starts answering `request` with an event stream; returns the answer's status and header fields.
    func openStream(_ request: EvHTTPRequest, _ stream: EventStreamRequest, requestID: String) -> HTTPResponse {
        if let follow = stream.journal { return openJournalStream(request, stream, follow, requestID: requestID) }
        if stream.webSocketAccept != nil { return openWebSocket(request, stream, requestID: requestID) }
        let opened = stream.opening
        guard let connection = evhttp_request_get_connection(request.raw) else { return opened }
        let token = nextStreamToken
        nextStreamToken &+= 1
        let open = EventStream(
            request: request, list: stream.list, basePath: stream.basePath, token: token, lastSent: 0, server: self)
        open.chatOnly = stream.chatOnly
        // Counted (``streamCount``) before the list is read: a commit whose changes the feed did not hand this loop
        // (it had no stream then) is one this read already sees, so the stream owes nothing from it.
        streams[token] = open
        guard let state = writes.lists.stateInMemory(of: stream.list) else {
            // The list left memory since the route read it (the memory budget): no stream rather than one of a
            // list that looks unwritten; EventSource reconnects, and its route reads the list again.
            streams[token] = nil
            let busy = Self.beingRead(stream.list)
            reply(busy, to: request, requestID: requestID)
            return busy
        }
        let lastSequence = state.header.lastSequence
        open.lastSent = stream.after ?? lastSequence
        if let bufferevent = request.connectionBufferevent {
            connections[bufferevent]?.streaming = true
            limitKernelBuffer(of: bufferevent)
        }
        // Told when the connection goes (the client left, the stream was dropped, or evhttp is freed).
        evhttp_connection_set_closecb(connection, loopServerStreamClosed, Unmanaged.passRetained(open).toOpaque())
        request.addHeaders(
            of: encodeEvents(of: open, opened), requestID: requestID, closeConnection: false, date: date.current)
        dropKeepAlive(request)
        evhttp_send_reply_start(request.raw, 200, "OK")
        // evhttp chose chunking as it started the reply; the events are framed here as it would frame them.
        open.chunked = evhttp_find_header(evhttp_request_get_output_headers(request.raw), "Transfer-Encoding") != nil
        write(EventFrame(Array("retry: \(stream.settings.retry.wholeMilliseconds)\n\n".utf8)), to: open)
        startHeartbeats(every: stream.settings.heartbeat)
        if let after = stream.after, after < lastSequence {
            replay(open, after: after)
        } else if let after = stream.after, after > lastSequence {
            write(EventFrame(Self.expiredEvent(last: lastSequence)), to: open)
            open.lastSent = lastSequence
        }
        return opened
    }

    /// Sends the kept changes after `after`, holding live ones meanwhile, then the held ones not yet sent.
    func replay(_ stream: EventStream, after: UInt64) {
        stream.held = []
        let feed = writes.feed
        Task.immediate(executorPreference: loop) { [self] in
            var position = after
            while streams[stream.token] != nil {
                let page: ChangePage
                do {
                    page = try await feed.changes(of: stream.list, after: position, limit: 1000)
                } catch {
                    end(stream, webSocketClose: (1011, "the change feed could not be read; reconnect"))
                    return
                }
                guard streams[stream.token] != nil else { return }
                switch page {
                case .expired(let last):
                    if stream.webSocket != nil {
                        send(Self.expiredMessage(last: last), to: stream)
                    } else {
                        write(EventFrame(Self.expiredEvent(last: last)), to: stream)
                    }
                    stream.lastSent = last
                case .changes(let changes, _):
                    for change in changes where change.sequence > stream.lastSent {
                        emit(change, to: stream)
                        stream.lastSent = change.sequence
                    }
                    position = stream.lastSent
                    if changes.count == 1000 { continue }
                }
                break
            }
            guard streams[stream.token] != nil, let held = stream.held else { return }
            stream.held = nil
            for change in held where change.sequence > stream.lastSent {
                emit(change, to: stream)
                stream.lastSent = change.sequence
            }
        }
    }

    /// Sends one change to one stream, as its kind of stream carries it.
    private func emit(_ change: Change, to stream: EventStream) {
        if stream.chatOnly && !change.event.isChat { return }
        if stream.webSocket != nil {
            send(change.webSocketMessage(basePath: stream.basePath), to: stream)
        } else {
            write(EventFrame(change.serverSentEvent(basePath: stream.basePath)), to: stream)
        }
    }

    /// Hands a commit's changes to this loop's streams of `list` (called on the loop thread).
    func deliver(_ changes: [Change], of list: String, dropped: Bool) {
        guard !streams.isEmpty else { return }
        if changes.isEmpty && dropped {
            // The list was removed (an idle dataset expired) and its sequence numbers start over: its streams end,
            // and a client that reconnects with its Last-Event-ID is told to reload.
            for stream in Array(streams.values) where stream.list == list && stream.journal == nil {
                end(stream, webSocketClose: (1001, "dataset removed"))
            }
            return
        }
        // A dropped dataset's feed goes on with a `reset` change, like a reset's: its streams see it and stay.
        let followers = streams.values.filter { $0.list == list && $0.journal == nil }
        guard !followers.isEmpty else { return }  // nothing to frame for a list no stream here follows
        // Framed once for all of them, and once more for each base path some follow under (`/d/<name>/`): as
        // Server-Sent Events for the event streams, as messages for the WebSockets, each only when one needs it.
        var events: [[UInt8]?: [EventFrame]] = [:]
        var messages: [[UInt8]?: [[UInt8]]] = [:]
        for stream in followers {
            if stream.held != nil {
                stream.held! += changes
                continue
            }
            let basePath = stream.basePath
            if stream.webSocket != nil {
                let framed: [[UInt8]]
                if let known = messages[basePath] {
                    framed = known
                } else {
                    framed = changes.map { $0.webSocketMessage(basePath: basePath) }
                    messages[basePath] = framed
                }
                for (index, change) in changes.enumerated() where change.sequence > stream.lastSent {
                    if !stream.chatOnly || change.event.isChat { send(framed[index], to: stream) }
                    stream.lastSent = change.sequence
                }
            } else {
                let framed: [EventFrame]
                if let known = events[basePath] {
                    framed = known
                } else {
                    framed = changes.map { EventFrame($0.serverSentEvent(basePath: basePath)) }
                    events[basePath] = framed
                }
                for (index, change) in changes.enumerated() where change.sequence > stream.lastSent {
                    if !stream.chatOnly || change.event.isChat { write(framed[index], to: stream) }
                    stream.lastSent = change.sequence
                }
            }
        }
    }

    /// An HTTP/1.0 request with `Connection: keep-alive` would get `Content-Length: 0` from evhttp (which frames
    /// a persistent HTTP/1.0 answer by its length, and the stream's buffer is empty as it starts), and the events
    /// after a body its client thinks has ended. Without the field evhttp adds no length and closes the connection
    /// when the stream ends; on HTTP/1.1 the field changes nothing (persistence is the default, chunks frame it).
    func dropKeepAlive(_ request: EvHTTPRequest) {
        let fields = evhttp_request_get_input_headers(request.raw)
        // evhttp looks at the first field only, and takes any value that starts with "keep-alive" (2.1.12,
        // evhttp_is_connection_keepalive): so while the first one does, it goes.
        while let value = evhttp_find_header(fields, "Connection"), strncasecmp(value, "keep-alive", 10) == 0,
            evhttp_remove_header(fields, "Connection") == 0
        {}
    }

    /// Writes one event, unless the client has fallen too far behind: then the stream is dropped instead.
    ///
    /// The backlog is measured before the event is added, so what one commit adds in one turn of the loop (which
    /// the socket sends on its next write event) never counts against a client that reads.
    ///
    /// The framed chunk goes straight into the connection's output, as one piece, where `evhttp_send_reply_chunk`
    /// would add a size line, the data and a CRLF one by one (three `writev`s per event, seen with strace) from a
    /// fresh buffer per call (whose chain, sized to a power of two, nearly doubled what a stream held). evhttp keeps
    /// no count of a reply's chunks, so bytes added beside it are sent as its own; `evhttp_send_reply_end` adds
    /// the last chunk after them.
    func write(_ frame: EventFrame, to stream: EventStream) {
        guard streams[stream.token] != nil, let bufferevent = stream.request.connectionBufferevent else { return }
        // A compressed stream's bytes are its own: its compressor's state is.
        guard let frame = stream.compressor.map({ compressed(frame, by: $0) }) ?? frame else {
            drop(stream)
            return
        }
        measureBacklog(of: stream, bufferevent)
        let count = frame.count(chunked: stream.chunked)
        if stream.backlog > events.maxBufferBytes || !makeRoom(for: count, writing: stream)
            || !frame.append(to: bufferevent_get_output(bufferevent), chunked: stream.chunked)
        {
            drop(stream)
            return
        }
        // Adding ran the guard's output filter, which wrote what the kernel would take; the flush is what every
        // answer gets (LoopServer+Flush.swift), at once here, and finds nothing more to move.
        bufferevent_flush(bufferevent, Int16(EV_WRITE), BEV_NORMAL)
        // The flush wrote to the kernel what it would take: what is left is what the stream holds here.
        measureBacklog(of: stream, bufferevent)
    }

    /// Brings `stream`'s ``EventStream/backlog`` (and the loop's total) up to date: the bytes queued in its
    /// connection's buffers that the kernel has not taken yet.
    func measureBacklog(of stream: EventStream, _ bufferevent: OpaquePointer) {
        var unsent = evbuffer_get_length(bufferevent_get_output(bufferevent))
        if let underlying = bufferevent_get_underlying(bufferevent) {
            unsent += evbuffer_get_length(bufferevent_get_output(underlying))
        }
        streamBacklog += unsent - stream.backlog
        stream.backlog = unsent
    }

    /// Makes room in the loop's share of ``SettingKey/eventBufferedBytes`` for `count` more bytes, dropping the streams
    /// furthest behind first; false when `writing` is itself one to drop (it then must not be written to).
    ///
    /// Only when the total as last measured would pass the share are the other streams measured again (they may
    /// have sent since), so a loop whose subscribers read pays one comparison per write.
    func makeRoom(for count: Int, writing: EventStream) -> Bool {
        guard streamBacklog + count > streamBudget else { return true }
        for other in streams.values {
            if let bufferevent = other.request.connectionBufferevent { measureBacklog(of: other, bufferevent) }
        }
        while streamBacklog + count > streamBudget {
            guard let furthest = streams.values.max(by: { $0.backlog < $1.backlog }), furthest.backlog > 0 else {
                return true  // nothing held here: the bytes go to the kernel, which may take them
            }
            if furthest === writing { return false }
            drop(furthest)
        }
        return true
    }

    /// Ends a stream cleanly (the terminating chunk); an HTTP/1.1 connection stays for further requests, an HTTP/1.0
    /// one closes (its stream's end is the connection's). The chunk is
    /// pushed to the kernel at once (the guard's output filter writes synchronously), so a drain that frees evhttp
    /// right after cannot discard it.
    ///
    /// A WebSocket is closed instead, with `webSocketClose`'s code and reason (1001 "server shutting down" by
    /// default: the drain).
    func end(_ stream: EventStream, webSocketClose: (code: UInt16, reason: String) = (1001, "server shutting down")) {
        if stream.webSocket != nil {
            closeWebSocket(stream, code: webSocketClose.code, reason: webSocketClose.reason)
            return
        }
        let wasOpen = streams[stream.token] != nil
        forget(stream)
        guard wasOpen, !stream.closed else { return }
        if let bufferevent = stream.request.connectionBufferevent {
            connections[bufferevent]?.streaming = false
        }
        if let connection = evhttp_request_get_connection(stream.request.raw) {
            evhttp_connection_set_closecb(connection, nil, nil)
            Unmanaged.passUnretained(stream).release()  // the close callback's reference
        }
        let bufferevent = stream.request.connectionBufferevent  // before: ending may free the request
        // A gzip stream's last bytes end its member (checksum and length), so the client sees a whole body.
        if let compressor = stream.compressor, let bufferevent,
            let last = compressor.compress(UnsafeRawBufferPointer(start: nil, count: 0), finishing: true),
            !last.isEmpty
        {
            _ = EventFrame(last).append(to: bufferevent_get_output(bufferevent), chunked: stream.chunked)
        }
        // As for every answer (LoopServer+Flush.swift), at once: the guard's filter moves output only when pushed.
        // Chunked (HTTP/1.1), the end adds the last chunk and waits for it to be written: pushed after. Unchunked
        // (HTTP/1.0, whose end is the connection's), evhttp frees the connection inside the end when the output
        // is empty: pushed before, and not touched after.
        if stream.chunked {
            evhttp_send_reply_end(stream.request.raw)
            if let bufferevent { bufferevent_flush(bufferevent, Int16(EV_WRITE), BEV_NORMAL) }
        } else {
            if let bufferevent { bufferevent_flush(bufferevent, Int16(EV_WRITE), BEV_NORMAL) }
            evhttp_send_reply_end(stream.request.raw)
        }
    }

    /// Closes a stream's connection (a subscriber that stopped reading), on the next turn of the loop: this may run
    /// inside an evhttp callback for the same connection (a replay written while the stream opens), which must not
    /// see its connection freed under it.
    func drop(_ stream: EventStream) {
        forget(stream)  // nothing more is written to it
        loop.execute { [self] in
            if !stream.closed, let connection = evhttp_request_get_connection(stream.request.raw) {
                // The close callback marks the stream closed and releases its reference; evhttp frees the request.
                evhttp_connection_free(connection)
            }
            freeIfDrained()  // a drain may have waited for this one (a WebSocket's close)
        }
    }

    /// The connection of `stream` went away. When the client left, evhttp has detached the streamed request from
    /// the connection without freeing it (a reply in progress belongs to its sender): it is freed here.
    fileprivate func streamClosed(_ stream: EventStream) {
        forget(stream)
        stream.closed = true
        if evhttp_request_get_connection(stream.request.raw) == nil {
            evhttp_request_free(stream.request.raw)
        }
    }

    /// Takes `stream` out of the loop's table and its backlog out of the loop's total.
    private func forget(_ stream: EventStream) {
        stream.closeWait?.cancel()
        stream.closeWait = nil
        guard streams.removeValue(forKey: stream.token) != nil else { return }
        if stream.journal != nil {
            journalStreamCount.value.wrappingSubtract(1, ordering: .sequentiallyConsistent)
            journal?.followers.wrappingSubtract(1, ordering: .sequentiallyConsistent)
        }
        streamBacklog -= stream.backlog
        stream.backlog = 0
    }

    /// Ends every stream (shutdown: clients reconnect elsewhere).
    func endStreams() {
        for stream in Array(streams.values) { end(stream) }
        heartbeat?.cancel()
        heartbeat = nil
    }

    /// A `:` comment to every stream every `interval` while any is open, so proxies and clients see it alive.
    func startHeartbeats(every interval: Duration) {
        guard heartbeat == nil else { return }
        heartbeat = loop.schedule(after: interval) { [self] in
            heartbeat = nil
            guard !streams.isEmpty, !draining else { return }
            let beat = EventFrame(Array(":\n\n".utf8))
            for stream in Array(streams.values) where stream.webSocket == nil { write(beat, to: stream) }
            pingWebSockets()
            startHeartbeats(every: interval)
        }
    }

    /// Caps the kernel's send buffer of a stream's socket (`SO_SNDBUF`, ``streamSocketBuffer``): left to
    /// autotuning it grows to 4 MiB on Linux for a client that stops reading, so that much per subscriber would sit
    /// in the kernel, unseen by ``SettingKey/eventBufferBytes``, before the subscriber could be dropped.
    func limitKernelBuffer(of bufferevent: OpaquePointer) {
        let socket = bufferevent_get_underlying(bufferevent) ?? bufferevent
        let fd = bufferevent_getfd(socket)
        guard fd >= 0 else { return }
        var size = Self.streamSocketBuffer
        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    }

    /// The kernel send buffer of a stream's socket: room for a few hundred events (Linux doubles the value).
    static let streamSocketBuffer: Int32 = 64 * 1024

    /// The 503 a stream gets when its list left memory between its route and its opening: it retries (an
    /// `EventSource` after `retry`), and its route reads the list again.
    static func beingRead(_ list: String) -> HTTPResponse {
        Problem(
            .storeUnavailable, detail: "dataset \(Problem.quoted(list)) is being read from the store",
            headers: ["Retry-After": "1"]
        ).response()
    }

    /// `event: expired`: the changes asked for are not kept; reload the list, then go on from `last`.
    static func expiredEvent(last: UInt64) -> [UInt8] {
        Array("event: expired\nid: \(last)\ndata: {\"last_sequence\":\(last)}\n\n".utf8)
    }
}

/// evhttp's connection close callback for a stream: C calling convention, the stream comes retained in `context`.
func loopServerStreamClosed(_ connection: OpaquePointer?, _ context: UnsafeMutableRawPointer?) {
    guard let context else { return }
    let stream = Unmanaged<EventStream>.fromOpaque(context).takeRetainedValue()
    stream.server.streamClosed(stream)
}
