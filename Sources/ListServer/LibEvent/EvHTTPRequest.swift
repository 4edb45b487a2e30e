// swift-format-ignore-file: OrderedImports
import Glibc  // before CEvent
import CEvent

/// A borrowed `evhttp_request`: reads it into an `HTTPRequest` and sends one `HTTPResponse` back.
///
/// evhttp owns the request; it stays valid until it is answered (evhttp stops reading the
/// connection meanwhile, and detaches the request if the client goes away). Answer it exactly once,
/// on the loop thread, and never touch it afterwards. `@unchecked Sendable` only so that a pending
/// request can sit in a task that resumes on the same loop thread.
struct EvHTTPRequest: @unchecked Sendable {
    /// The evhttp request; for this type and its extensions only.
    let raw: OpaquePointer

    init(_ raw: OpaquePointer) {
        self.raw = raw
    }

    /// Copies what the router needs: method, request-target, headers, body, whether the peer is on loopback, and
    /// the request id (the client's `X-Request-Id` if usable, see ``usableRequestID(_:)``, else one from `ids`).
    /// An HTTP/1.0 request's `Upgrade` is left out (RFC 9110 §7.8: a WebSocket asked for so gets the event stream,
    /// RFC 6455 needing HTTP/1.1); `isHTTP10` says whether the request came so, asked only of one with that field.
    func makeHTTPRequest(ids: inout RequestIDGenerator, isHTTP10: () -> Bool) -> HTTPRequest {
        let target = evhttp_request_get_uri(raw).map { String(cString: $0) } ?? ""
        // Room for a typical request's fields up front: grown from empty, the array was reallocated three times.
        var headers = HTTPHeaders(capacity: 12)
        var requestID: String?
        if let input = evhttp_request_get_input_headers(raw) {
            var header = cevent_headers_first(input)
            while let current = header {
                let key = current.pointee.key!
                // A byte compared first: this loop runs for every field of every request.
                let ignored =
                    UInt8(bitPattern: key.pointee) | 0x20 == UInt8(ascii: "u") && strcasecmp(key, "Upgrade") == 0
                    && isHTTP10()
                if !ignored { headers.add(Self.fieldName(key), String(cString: current.pointee.value)) }
                header = cevent_headers_next(current)
            }
            requestID = evhttp_find_header(input, "X-Request-Id").flatMap(Self.usableRequestID)
        }
        let (peer, port, fromLoopback) = self.peer
        var request = HTTPRequest(
            method: method, target: target, headers: headers, body: body, fromLoopback: fromLoopback,
            requestID: requestID ?? ids.next(), peer: peer)
        request.peerPort = port
        return request
    }

    /// The value of the request's first field called `name`, as the client sent it; nil for none.
    func inputHeader(_ name: String) -> String? {
        guard let input = evhttp_request_get_input_headers(raw) else { return nil }
        return evhttp_find_header(input, name).map { String(cString: $0) }
    }

    /// A field name as a `String`: the names clients send on nearly every request, spelled as they usually are, as
    /// the literal itself (no decoding, no copy), any other as decoded. Every request paid a `String(cString:)` per
    /// field name, about 200 instructions each (callgrind, issues 12 and 16).
    static func fieldName(_ key: UnsafePointer<CChar>) -> String {
        switch strlen(key) {
        case 4 where strcmp(key, "Host") == 0: "Host"
        case 6 where strcmp(key, "Accept") == 0: "Accept"
        case 9 where strcmp(key, "X-Dataset") == 0: "X-Dataset"
        case 10 where strcmp(key, "User-Agent") == 0: "User-Agent"
        case 10 where strcmp(key, "Connection") == 0: "Connection"
        case 12 where strcmp(key, "Content-Type") == 0: "Content-Type"
        case 13 where strcmp(key, "If-None-Match") == 0: "If-None-Match"
        case 13 where strcmp(key, "Cache-Control") == 0: "Cache-Control"
        case 14 where strcmp(key, "Content-Length") == 0: "Content-Length"
        case 15 where strcmp(key, "Idempotency-Key") == 0: "Idempotency-Key"
        case 15 where strcmp(key, "Accept-Encoding") == 0: "Accept-Encoding"
        default: String(cString: key)
        }
    }

    /// A client's `X-Request-Id` value if it is usable as the request's id: 1...128 visible ASCII characters
    /// (0x21...0x7E, so no spaces or control characters reach logs and headers); nil otherwise.
    static func usableRequestID(_ value: UnsafePointer<CChar>) -> String? {
        var length = 0
        while case let byte = UInt8(bitPattern: value[length]), byte != 0 {
            guard byte >= 0x21, byte <= 0x7E, length < 128 else { return nil }
            length += 1
        }
        return length == 0 ? nil : String(cString: value)
    }

    /// The body as received (evhttp has already held it to ``SettingKey/maxBodyBytes``); empty for most requests.
    private var body: [UInt8] {
        guard let input = evhttp_request_get_input_buffer(raw) else { return [] }
        let length = evbuffer_get_length(input)
        guard length > 0 else { return [] }
        return [UInt8](unsafeUninitializedCapacity: length) { buffer, count in
            count = max(0, evbuffer_copyout(input, buffer.baseAddress, length))
        }
    }

    /// The client's address and port, and whether the address is a loopback one: 127.0.0.0/8, `::1` or IPv4-mapped
    /// `::ffff:127.x.y.z`.
    ///
    /// Reads the numeric address evhttp stored when it accepted the connection: no system call per request (and
    /// an IPv4 address fits a small string: no allocation).
    private var peer: (address: String, port: UInt16, loopback: Bool) {
        guard let connection = evhttp_request_get_connection(raw) else { return ("", 0, false) }
        var address: UnsafeMutablePointer<CChar>?
        var port: UInt16 = 0
        evhttp_connection_get_peer(connection, &address, &port)
        guard let address else { return ("", 0, false) }
        let loopback =
            strncmp(address, "127.", 4) == 0 || strcmp(address, "::1") == 0 || strncmp(address, "::ffff:127.", 11) == 0
        return (String(cString: address), port, loopback)
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

    /// Answers the request with `X-Request-Id: requestID` (unless empty) and `Date: date`; `buffer` is a reusable
    /// evbuffer that comes back empty. Returns the connection's bufferevent, whose output the caller flushes
    /// (``LoopServer/flushSoon(_:)``), or nil when the client is gone.
    ///
    /// evhttp queues the answer before it enables writing, which is when the connection guard's filter would have
    /// moved it: without a flush it waits for the next sweep. For HEAD the body is left out and `Content-Length`
    /// states the length GET would send (evhttp writes none for HEAD on its own).
    @discardableResult
    func send(
        _ response: HTTPResponse, requestID: String, closeConnection: Bool = false, date: UnsafePointer<CChar>,
        buffer: OpaquePointer
    ) -> OpaquePointer? {
        addHeaders(of: response, requestID: requestID, closeConnection: closeConnection, date: date)
        if evhttp_request_get_command(raw) == EVHTTP_REQ_HEAD {
            evhttp_add_header(evhttp_request_get_output_headers(raw), "Content-Length", String(response.body.count))
        } else if !response.body.isEmpty {
            response.body.withUnsafeBytes { bytes in
                _ = evbuffer_add(buffer, bytes.baseAddress, bytes.count)
            }
        }
        let connection = connectionBufferevent  // before sending: the request may be freed by it
        evhttp_send_reply(raw, Int32(response.status), HTTPReasonPhrase.of(response.status), buffer)
        return connection
    }

    /// `RateLimit-Policy` and `RateLimit` (``RateLimitFields``), each value written on the stack as C text: no
    /// string is made for them.
    private static func addRateLimitFields(_ limits: RateLimitFields, to output: UnsafeMutablePointer<evkeyvalq>?) {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { buffer in
            Self.write(buffer, "q", limits.quota, "w", limits.window)
            _ = evhttp_add_header(output, "RateLimit-Policy", buffer.baseAddress)
            Self.write(buffer, "r", limits.remaining, "t", limits.reset)
            _ = evhttp_add_header(output, "RateLimit", buffer.baseAddress)
        }
    }

    /// `"profile";<first>=<a>;<second>=<b>` and a NUL into `buffer`: 10 + 2 × (2 + 20) + 1 + 1 bytes at most, 56.
    private static func write(
        _ buffer: UnsafeMutableBufferPointer<CChar>, _ first: Unicode.Scalar, _ a: Int, _ second: Unicode.Scalar,
        _ b: Int
    ) {
        var count = 0
        func put(_ byte: UInt8) {
            buffer[count] = CChar(bitPattern: byte)
            count += 1
        }
        func put(_ number: Int) {
            if number < 0 { put(UInt8(ascii: "-")) }
            let start = count
            var value = number.magnitude
            repeat {
                put(UInt8(ascii: "0") + UInt8(value % 10))
                value /= 10
            } while value > 0
            buffer[start..<count].reverse()
        }
        for byte in "\"profile\";".utf8 { put(byte) }
        put(UInt8(first.value))
        put(UInt8(ascii: "="))
        put(a)
        put(UInt8(ascii: ";"))
        put(UInt8(second.value))
        put(UInt8(ascii: "="))
        put(b)
        put(UInt8(0))  // the C string ends
    }

    /// Adds `Date` (`date`, the loop's ``DateField``: evhttp finds one and adds none of its own), the response's
    /// header fields, `X-Request-Id` and, if asked, `Connection: close`.
    func addHeaders(of response: HTTPResponse, requestID: String, closeConnection: Bool, date: UnsafePointer<CChar>) {
        let output = evhttp_request_get_output_headers(raw)
        _ = evhttp_add_header(output, "Date", date)
        for (name, value) in response.headers {
            // `withCString` rather than passing the Strings as pointer arguments: for a small string (up to 15
            // bytes, most names and many values) that conversion allocates a NUL-terminated copy each time, 14
            // allocations per page answer; `withCString` copies a small string to the stack.
            name.withCString { name in
                value.withCString { value in _ = evhttp_add_header(output, name, value) }
            }
        }
        if let limits = response.rateLimit { Self.addRateLimitFields(limits, to: output) }
        if let vary = response.vary.fieldValue {
            vary.withCString { vary in _ = evhttp_add_header(output, "Vary", vary) }
        }
        if !requestID.isEmpty {
            requestID.withCString { requestID in _ = evhttp_add_header(output, "X-Request-Id", requestID) }
        }
        if closeConnection {
            evhttp_add_header(output, "Connection", "close")
        }
    }
}
