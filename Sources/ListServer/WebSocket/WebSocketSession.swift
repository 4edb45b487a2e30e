import CWslay

/// One WebSocket connection's protocol state (RFC 6455), server side: bytes from the client go in, the messages they
/// carry come out, and the frames to send collect in ``output`` for the loop to write.
///
/// The framing is wslay's (Debian `libwslay-dev`; the WebSocket/ room alone imports it): unmasking, fragments put
/// back together, control frames between them, the answer to a ping, the close handshake, and the bound on a
/// message's size (a larger one is refused with 1009). It never touches the socket: its callbacks read from the
/// bytes handed to ``receive(_:)`` and write to ``output``, so the connection stays the loop's. Loop thread only.
///
/// What wslay leaves to its user, done here: a text message must be UTF-8 (else 1007), and a binary one is refused
/// (1003: the protocol's messages are JSON text).
package final class WebSocketSession {
    /// A message from the client.
    package enum Received: Equatable {
        case text([UInt8])
        case pong
    }

    // `wslay_event_context_ptr`: made in `init`, freed in `deinit`; nil only if wslay could not allocate it.
    private var context: OpaquePointer?
    /// The bytes ``receive(_:)`` was given, as wslay's receive callback reads them.
    private var input = UnsafeRawBufferPointer(start: nil, count: 0)
    private var consumed = 0
    private var messages: [Received] = []
    /// Framed bytes for the client, not yet taken by ``takeOutput()``.
    private(set) var output: [UInt8] = []

    /// A session that accepts messages of at most `maxMessageBytes` (wslay sends 1009 and closes for a larger one);
    /// nil when wslay could not allocate its context.
    package init?(maxMessageBytes: Int) {
        var callbacks = wslay_event_callbacks(
            recv_callback: webSocketReceive, send_callback: webSocketSend, genmask_callback: nil,
            on_frame_recv_start_callback: nil, on_frame_recv_chunk_callback: nil, on_frame_recv_end_callback: nil,
            on_msg_recv_callback: webSocketMessage)
        var made: OpaquePointer?
        // Unretained: the session owns the context, which lives no longer than it.
        let user = Unmanaged.passUnretained(self).toOpaque()
        guard wslay_event_context_server_init(&made, &callbacks, user) == 0, let made else { return nil }
        context = made
        wslay_event_config_set_max_recv_msg_length(made, UInt64(maxMessageBytes))
    }

    deinit {
        if let context { wslay_event_context_free(context) }
    }

    /// Reads what the client sent (all of `bytes`, unless the session stopped reading: after a close, or an error)
    /// and returns the messages it completed; the frames owed in return (a pong, a close) are in ``output``.
    package func receive(_ bytes: UnsafeRawBufferPointer) -> [Received] {
        guard let context, wslay_event_want_read(context) != 0 else { return [] }
        input = bytes
        consumed = 0
        // A protocol error makes wslay queue its close (1002) and stop reading; the result says no more than that.
        _ = wslay_event_recv(context)
        input = UnsafeRawBufferPointer(start: nil, count: 0)
        flush()
        defer { messages.removeAll(keepingCapacity: true) }
        return messages
    }

    /// Queues a text message (`text` must be UTF-8: the protocol's events are JSON) and frames it into ``output``;
    /// false once the session sends no more (closing).
    @discardableResult
    func send(text: [UInt8]) -> Bool {
        queue(opcode: UInt8(WSLAY_TEXT_FRAME.rawValue), text)
    }

    /// Queues a ping (the heartbeat: a client that answers none is gone).
    @discardableResult
    func ping() -> Bool {
        queue(opcode: UInt8(WSLAY_PING.rawValue), [])
    }

    /// Starts the close handshake with `code` and a short `reason` (at most 123 bytes are sent); nothing is sent
    /// after it.
    func close(code: UInt16, reason: String) {
        guard let context else { return }
        queueClose(context, code: code, reason: reason)
        flush()
    }

    /// Whether the connection has nothing more to do: both sides' closes were exchanged (or reading and writing
    /// both failed), so the loop closes the socket (the server closes first, RFC 6455 §7.1.1).
    package var isFinished: Bool {
        guard let context else { return true }
        return wslay_event_want_read(context) == 0 && wslay_event_want_write(context) == 0
    }

    /// Whether a close has been queued, sent or received (either side's, or wslay's for a framing error): no more
    /// messages go out, and none that come are acted on.
    var isClosing: Bool {
        guard let context else { return true }
        return closeQueued || wslay_event_get_close_sent(context) != 0
            || wslay_event_get_close_received(context) != 0
    }
    private var closeQueued = false

    /// The status code of the client's close, once it came (1005 when it carried none).
    var closeCodeReceived: UInt16? {
        guard let context, wslay_event_get_close_received(context) != 0 else { return nil }
        return wslay_event_get_status_code_received(context)
    }

    /// Takes the framed bytes waiting to go.
    package func takeOutput() -> [UInt8] {
        defer { output.removeAll(keepingCapacity: true) }
        return output
    }

    private func queueClose(_ context: OpaquePointer, code: UInt16, reason: String) {
        let bytes = Array(reason.utf8.prefix(123))
        closeQueued = true
        _ = bytes.withUnsafeBufferPointer { wslay_event_queue_close(context, code, $0.baseAddress, $0.count) }
    }

    private func queue(opcode: UInt8, _ payload: [UInt8]) -> Bool {
        guard let context, !isClosing, wslay_event_get_write_enabled(context) != 0 else { return false }
        let queued = payload.withUnsafeBufferPointer { payload in
            var message = wslay_event_msg(opcode: opcode, msg: payload.baseAddress, msg_length: payload.count)
            return wslay_event_queue_msg(context, &message)
        }
        guard queued == 0 else { return false }
        flush()
        return true
    }

    /// Frames everything queued into ``output`` (the send callback takes all it is given, so nothing stays queued).
    private func flush() {
        guard let context, wslay_event_want_write(context) != 0 else { return }
        _ = wslay_event_send(context)
    }

    // MARK: wslay's callbacks

    fileprivate func read(into buffer: UnsafeMutablePointer<UInt8>, count: Int) -> Int {
        let available = input.count - consumed
        guard available > 0, let base = input.baseAddress else { return 0 }
        let taken = min(available, count)
        buffer.update(from: base.assumingMemoryBound(to: UInt8.self) + consumed, count: taken)
        consumed += taken
        return taken
    }

    fileprivate func write(_ bytes: UnsafeBufferPointer<UInt8>) {
        output.append(contentsOf: bytes)
    }

    fileprivate func received(opcode: UInt8, _ payload: UnsafeBufferPointer<UInt8>) {
        guard let context else { return }
        switch UInt32(opcode) {
        case WSLAY_TEXT_FRAME.rawValue:
            // wslay checks the framing, not the text: invalid UTF-8 ends the connection (RFC 6455 §8.1).
            guard let text = String(validating: payload, as: UTF8.self) else {
                queueClose(context, code: 1007, reason: "text is not UTF-8")
                return
            }
            messages.append(.text(Array(text.utf8)))
        case WSLAY_BINARY_FRAME.rawValue:
            queueClose(context, code: 1003, reason: "binary messages are not accepted; send JSON text")
        case WSLAY_PONG.rawValue:
            messages.append(.pong)
        case WSLAY_CONNECTION_CLOSE.rawValue:
            closeQueued = true  // wslay answers it
        default:
            break  // a ping is answered by wslay
        }
    }
}

// The C callbacks: the session comes as the context's user data (unretained: the session owns the context).

private func webSocketReceive(
    _ context: OpaquePointer?, _ buffer: UnsafeMutablePointer<UInt8>?, _ length: Int, _ flags: Int32,
    _ user: UnsafeMutableRawPointer?
) -> Int {
    guard let user, let buffer else { return -1 }
    let session = Unmanaged<WebSocketSession>.fromOpaque(user).takeUnretainedValue()
    let read = session.read(into: buffer, count: length)
    if read == 0 {
        // All of it has been read: wslay stops until the next `receive`.
        wslay_event_set_error(context, WSLAY_ERR_WOULDBLOCK.rawValue)
        return -1
    }
    return read
}

private func webSocketSend(
    _ context: OpaquePointer?, _ data: UnsafePointer<UInt8>?, _ length: Int, _ flags: Int32,
    _ user: UnsafeMutableRawPointer?
) -> Int {
    guard let user, let data else { return -1 }
    Unmanaged<WebSocketSession>.fromOpaque(user).takeUnretainedValue()
        .write(UnsafeBufferPointer(start: data, count: length))
    return length
}

private func webSocketMessage(
    _ context: OpaquePointer?, _ argument: UnsafePointer<wslay_event_on_msg_recv_arg>?,
    _ user: UnsafeMutableRawPointer?
) {
    guard let user, let argument else { return }
    let message = argument.pointee
    Unmanaged<WebSocketSession>.fromOpaque(user).takeUnretainedValue()
        .received(opcode: message.opcode, UnsafeBufferPointer(start: message.msg, count: message.msg_length))
}
