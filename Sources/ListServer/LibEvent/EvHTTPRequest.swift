// swift-format-ignore-file: OrderedImports
import Foundation  // before CEvent: both define fd_set, and the other order fails to build
import CEvent

/// A borrowed `evhttp_request`: reads it into an `HTTPRequest` and sends one `HTTPResponse` back.
///
/// evhttp owns the request; it stays valid until it is answered (evhttp stops reading the
/// connection meanwhile, and detaches the request if the client goes away). Answer it exactly once,
/// on the loop thread, and never touch it afterwards. `@unchecked Sendable` only so that a pending
/// request can sit in a task that resumes on the same loop thread.
struct EvHTTPRequest: @unchecked Sendable {
    private let raw: OpaquePointer

    init(_ raw: OpaquePointer) {
        self.raw = raw
    }

    /// Copies what the router needs: method, request-target and headers.
    func makeHTTPRequest() -> HTTPRequest {
        let target = evhttp_request_get_uri(raw).map { String(cString: $0) } ?? ""
        var headers = HTTPHeaders()
        if let input = evhttp_request_get_input_headers(raw) {
            var header = cevent_headers_first(input)
            while let current = header {
                headers.add(String(cString: current.pointee.key), String(cString: current.pointee.value))
                header = cevent_headers_next(current)
            }
        }
        return HTTPRequest(method: method, target: target, headers: headers)
    }

    private var method: HTTPMethod {
        switch evhttp_request_get_command(raw) {
        case EVHTTP_REQ_GET: .get
        case EVHTTP_REQ_HEAD: .head
        case EVHTTP_REQ_POST: .post
        case EVHTTP_REQ_PUT: .put
        case EVHTTP_REQ_DELETE: .delete
        case EVHTTP_REQ_OPTIONS: .options
        case EVHTTP_REQ_PATCH: .patch
        case EVHTTP_REQ_TRACE: .trace
        case EVHTTP_REQ_CONNECT: .connect
        default: .other("UNKNOWN")
        }
    }

    /// The connection's bufferevent (the guard's filter), while the client is connected.
    var connectionBufferevent: OpaquePointer? {
        evhttp_request_get_connection(raw).flatMap { evhttp_connection_get_bufferevent($0) }
    }

    /// Asks evhttp to call `callback` once the answer is fully written; false when the client is
    /// already gone (the answer will then be dropped and the request freed at once, with no call).
    func onComplete(
        _ callback: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Void,
        context: UnsafeMutableRawPointer
    ) -> Bool {
        guard evhttp_request_get_connection(raw) != nil else { return false }
        evhttp_request_set_on_complete_cb(raw, callback, context)
        return true
    }

    /// Answers the request; `buffer` is a reusable evbuffer that comes back empty.
    ///
    /// For HEAD the body is left out and `Content-Length` states the length GET would send
    /// (evhttp writes none for HEAD on its own).
    func send(_ response: HTTPResponse, closeConnection: Bool = false, buffer: OpaquePointer) {
        let output = evhttp_request_get_output_headers(raw)
        for (name, value) in response.headers {
            evhttp_add_header(output, name, value)
        }
        if closeConnection {
            evhttp_add_header(output, "Connection", "close")
        }
        if evhttp_request_get_command(raw) == EVHTTP_REQ_HEAD {
            evhttp_add_header(output, "Content-Length", String(response.body.count))
        } else if !response.body.isEmpty {
            response.body.withUnsafeBytes { bytes in
                _ = evbuffer_add(buffer, bytes.baseAddress, bytes.count)
            }
        }
        let connection = connectionBufferevent  // before sending: the request may be freed by it
        evhttp_send_reply(raw, Int32(response.status), nil, buffer)
        // evhttp queued the answer before enabling writes, which is when the connection guard's filter
        // would have moved it; push it through now (for a connection without a guard this is a no-op).
        if let connection { bufferevent_flush(connection, Int16(EV_WRITE), BEV_NORMAL) }
    }
}
