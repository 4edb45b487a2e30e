import Foundation

/// A deliberately plain HTTP/1.1 client over a blocking TCP socket, for end-to-end tests.
///
/// It writes exactly the bytes a test gives it (so tests can pipeline, send garbage, or hang up
/// half-way) and parses responses itself. Blocking calls run on a thread of their own (see
/// `offPool`), never on Swift's cooperative pool, which the server under test may need.
final class RawHTTPConnection: @unchecked Sendable {
    /// A parsed response.
    struct Response: Sendable {
        var status: Int
        var headers: [(name: String, value: String)]
        var body: [UInt8]

        /// The first value of a header, case-insensitively.
        func header(_ name: String) -> String? {
            headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
        }

        /// Every value of a header, case-insensitively.
        func headers(named name: String) -> [String] {
            headers.filter { $0.name.caseInsensitiveCompare(name) == .orderedSame }.map(\.value)
        }

        var text: String { String(decoding: body, as: UTF8.self) }
    }

    private let fd: Int32
    private var buffer: [UInt8] = []

    /// Connects to 127.0.0.1:`port`; reads time out after `timeout` seconds. `receiveBuffer` shrinks the socket's
    /// receive buffer (`SO_RCVBUF`, before connecting), for a client that stalls after little.
    ///
    /// 30 s by default: on a slow two-core machine the full suite's parallel servers once kept one from answering a
    /// detail for 10 s (a test that waits for an end or a silence sets its own).
    init(port: Int, timeout: Int = 30, receiveBuffer: Int32? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("socket: \(errno)") }
        var tv = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        if var size = receiveBuffer {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard status == 0 else {
            // No close here: a class whose init throws once fully initialized still runs deinit, which closes
            // it. Closing twice would close whatever socket another test opened with the same number meanwhile.
            throw TestFailure("connect to \(port): errno \(errno)")
        }
    }

    deinit { close(fd) }

    /// Shuts the socket down both ways (the server sees the client leave); the descriptor is closed by deinit.
    func shutDown() {
        shutdown(fd, Int32(SHUT_RDWR))
    }

    /// Writes raw bytes.
    func write(_ text: String) throws {
        try write(bytes: Array(text.utf8))
    }

    /// Writes raw bytes.
    func write(bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes {
                Foundation.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard n > 0 else { throw TestFailure("send: errno \(errno)") }
            sent += n
        }
    }

    /// Sends a GET-style request with `Host` and the given extra header lines.
    func request(_ method: String = "GET", _ target: String, headers: [String] = []) throws {
        var text = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for line in headers { text += line + "\r\n" }
        try write(text + "\r\n")
    }

    /// Reads one response; `head` for the answer to a HEAD request (no body follows).
    func readResponse(head: Bool = false) throws -> Response {
        var response = try readStreamHead()
        if head || response.status == 304 || response.status == 204 { return response }
        if let length = response.header("Content-Length").flatMap(Int.init) {
            while buffer.count < length { guard try fill() else { throw TestFailure("eof inside body") } }
            response.body = Array(buffer[..<length])
            buffer.removeFirst(length)
        } else {
            while try fill() {}
            response.body = buffer
            buffer = []
        }
        return response
    }

    /// Reads a response's head, leaving its body unread: `readResponse` goes on with the body; for a stream
    /// (`text/event-stream`, chunked) ``readEvents(_:)`` does.
    func readStreamHead() throws -> Response {
        let headEnd = try readUntilHeadEnd()
        let headText = String(decoding: buffer[..<headEnd], as: UTF8.self)
        buffer.removeFirst(headEnd + 4)
        var lines = headText.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else {
            throw TestFailure("bad status line in: \(headText)")
        }
        let headers = lines.compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        return Response(status: status, headers: headers, body: [])
    }

    /// The decoded stream so far, not yet split into events.
    private var streamText = ""
    /// Whether the stream's last chunk has arrived.
    private(set) var streamEnded = false
    /// The `:` comments (heartbeats) read so far.
    private(set) var heartbeatsSeen = 0

    /// Reads Server-Sent Events (after ``readStreamHead()``) until `count` of them have come; comments
    /// (heartbeats) and the `retry:` block are skipped. Each event is its fields: `event`, `id`, `data`.
    /// `chunked` false reads an HTTP/1.0 stream, whose body is the events as they are.
    func readEvents(_ count: Int, chunked: Bool = true) throws -> [[String: String]] {
        var events: [[String: String]] = []
        while events.count < count {
            if let end = streamText.range(of: "\n\n") {
                let block = streamText[..<end.lowerBound]
                streamText.removeSubrange(..<end.upperBound)
                var fields: [String: String] = [:]
                if block.hasPrefix(":") { heartbeatsSeen += 1 }
                for line in block.split(separator: "\n") where !line.hasPrefix(":") {
                    guard let colon = line.firstIndex(of: ":") else { continue }
                    fields[String(line[..<colon])] = String(line[line.index(after: colon)...].drop { $0 == " " })
                }
                if fields["event"] != nil || fields["data"] != nil { events.append(fields) }
                continue
            }
            guard !streamEnded else { throw TestFailure("the stream ended after \(events.count) events") }
            if chunked {
                try readChunk()
            } else if !buffer.isEmpty {
                streamText += String(decoding: buffer, as: UTF8.self)
                buffer = []
            } else if try !fill() {
                streamEnded = true
            }
        }
        return events
    }

    /// The bytes of the next chunk of a chunked body (after ``readStreamHead()``), as they are: for a stream whose
    /// bytes are not text (a compressed one).
    /// Exactly `count` bytes after what was read so far (a WebSocket's frames, after its head).
    func readBytes(_ count: Int) throws -> [UInt8] {
        while buffer.count < count {
            guard try fill() else { throw TestFailure("the connection ended after \(buffer.count) of \(count) bytes") }
        }
        defer { buffer.removeFirst(count) }
        return Array(buffer[..<count])
    }

    func readRawChunk() throws -> [UInt8] {
        while true {
            if let lineEnd = (0..<max(0, buffer.count - 1)).first(where: { buffer[$0] == 13 && buffer[$0 + 1] == 10 }) {
                let sizeText = String(decoding: buffer[..<lineEnd], as: UTF8.self)
                guard let size = Int(sizeText, radix: 16) else { throw TestFailure("bad chunk size \(sizeText)") }
                if buffer.count >= lineEnd + 2 + size + 2 {
                    let bytes = Array(buffer[(lineEnd + 2)..<(lineEnd + 2 + size)])
                    buffer.removeFirst(lineEnd + 2 + size + 2)
                    return bytes
                }
            }
            guard try fill() else { throw TestFailure("the stream ended before a chunk") }
        }
    }

    /// Decodes one chunk of a chunked body into ``streamText``.
    private func readChunk() throws {
        while true {
            if let lineEnd = (0..<max(0, buffer.count - 1)).first(where: { buffer[$0] == 13 && buffer[$0 + 1] == 10 }) {
                let sizeText = String(decoding: buffer[..<lineEnd], as: UTF8.self)
                guard let size = Int(sizeText, radix: 16) else { throw TestFailure("bad chunk size \(sizeText)") }
                if buffer.count >= lineEnd + 2 + size + 2 {
                    streamText += String(decoding: buffer[(lineEnd + 2)..<(lineEnd + 2 + size)], as: UTF8.self)
                    buffer.removeFirst(lineEnd + 2 + size + 2)
                    if size == 0 { streamEnded = true }
                    return
                }
            }
            guard try fill() else {
                streamEnded = true
                return
            }
        }
    }

    /// True when the server closed the connection (reads end of stream) within the read timeout.
    func readsEndOfStream() -> Bool {
        (try? fill()) == false
    }

    /// Reads everything until the server closes the connection: the raw bytes (including any not yet parsed), and
    /// 0 for a clean end of stream or the `errno` that ended it (`ECONNRESET` for a reset, `EAGAIN` for a timeout).
    func readUntilClosed() -> (bytes: [UInt8], errno: Int32) {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 { return (buffer, errno) }
            if n == 0 { return (buffer, 0) }
            buffer += chunk[..<n]
        }
    }

    /// True when the server has sent something (or closed) that has not been read yet.
    var hasPendingInput: Bool {
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, 0) > 0
    }

    /// Closes the socket now (the server sees the client hang up).
    func hangUp() {
        shutdown(fd, Int32(SHUT_RDWR))
    }

    private func readUntilHeadEnd() throws -> Int {
        let marker: [UInt8] = [13, 10, 13, 10]
        while true {
            if buffer.count >= 4 {
                for i in 0...(buffer.count - 4) where buffer[i..<(i + 4)].elementsEqual(marker) { return i }
            }
            guard try fill() else { throw TestFailure("connection closed before a response head") }
        }
    }

    /// Reads more bytes; false at end of stream.
    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n == 0 { return false }
        guard n > 0 else { throw TestFailure("recv: errno \(errno) (timeout?)") }
        buffer += chunk[..<n]
        return true
    }
}

/// An error with a message, for test helpers.
struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Runs blocking work on a new thread and awaits it, keeping Swift's cooperative pool free.
func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Result { try body() }) }
        thread.start()
    }
}

/// One request on a fresh connection, off the pool.
func fetch(
    port: Int, _ target: String, method: String = "GET", headers: [String] = []
) async throws -> RawHTTPConnection.Response {
    try await offPool {
        let connection = try RawHTTPConnection(port: port)
        try connection.request(method, target, headers: headers)
        return try connection.readResponse(head: method == "HEAD")
    }
}
