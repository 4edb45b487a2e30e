// swift-format-ignore-file: OrderedImports
import Glibc  // before CEvent
import CEvent

/// Injected wire faults (``WireFault``): answers that go wrong on purpose. Like ``send(_:requestID:closeConnection:buffer:)``
/// each ends the request: never touch it afterwards.
///
/// All of them close the connection through evhttp (`evhttp_connection_free`, or `Connection: close` once written),
/// exactly as when a client hangs up: evhttp frees the requests and the connection guard's filter with it, and the
/// guard leaves its loop's registry from the filter's free callback. Nothing is closed behind evhttp's back.
extension EvHTTPRequest {
    /// Closes the connection without answering: with a TCP reset if `reset`, else with an ordinary FIN.
    ///
    /// A reset needs care, because `evhttp_connection_free` shuts the socket down for writing (a FIN) before
    /// libevent closes it on a later turn of the loop, and a client that sees the FIN first reads a clean end of
    /// stream. So the socket is aborted here first: `SO_LINGER` {1, 0}, then `connect` to `AF_UNSPEC`, which on
    /// Linux drops the connection with a RST at once (connect(2)); evhttp's `shutdown` then finds it unconnected and
    /// sends nothing, and its `close` of the still-valid descriptor happens as usual.
    func closeConnection(reset: Bool) {
        guard let connection = evhttp_request_get_connection(raw) else {
            // The client left first: evhttp detached the request and left it to whoever answers it.
            evhttp_request_free(raw)
            return
        }
        if reset, let bufferevent = evhttp_connection_get_bufferevent(connection) {
            let fd = bufferevent_getfd(bufferevent)  // a filter answers for the socket under it
            if fd >= 0 { Self.abort(fd) }
        }
        evhttp_connection_free(connection)  // frees this request too
    }

    /// Sends the status line and header fields with the `Content-Length` of the whole body, then only the first
    /// half of the body (at least one byte short), then closes the connection once that is written
    /// (`Connection: close`). A HEAD answer has no body to cut and goes out whole, then the connection closes.
    func sendTruncated(
        _ response: HTTPResponse, requestID: String, date: UnsafePointer<CChar>, buffer: OpaquePointer
    ) {
        addHeaders(of: response, requestID: requestID, closeConnection: true, date: date)
        evhttp_add_header(evhttp_request_get_output_headers(raw), "Content-Length", String(response.body.count))
        let connection = connectionBufferevent
        // With a Content-Length, evhttp sends the body as it comes, not chunked.
        evhttp_send_reply_start(raw, Int32(response.status), HTTPReasonPhrase.of(response.status))
        if evhttp_request_get_command(raw) != EVHTTP_REQ_HEAD {
            response.body.withUnsafeBytes { bytes in
                _ = evbuffer_add(buffer, bytes.baseAddress, bytes.count / 2)
            }
            evhttp_send_reply_chunk(raw, buffer)
            evbuffer_drain(buffer, evbuffer_get_length(buffer))  // left there if the client is gone
        }
        // Through the guard's filter to the kernel now (see send), so that evhttp finds its output written and
        // closes the connection as soon as the answer ends; whatever the kernel cannot take yet goes out first.
        if let connection { bufferevent_flush(connection, Int16(EV_WRITE), BEV_NORMAL) }
        evhttp_send_reply_end(raw)
    }

    /// Makes closing `fd` send a RST, and sends it now.
    private static func abort(_ fd: Int32) {
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        var unspecified = sockaddr()
        unspecified.sa_family = sa_family_t(AF_UNSPEC)
        _ = connect(fd, &unspecified, socklen_t(MemoryLayout<sockaddr>.size))
    }
}
