import FoundationEssentials
import Glibc

/// `ListServer --health-check`: asks a running server on this machine for `GET /healthz` and reports in one line.
///
/// It is what the Docker image's `HEALTHCHECK` runs: a short-lived second process next to the server, so the image
/// needs no curl. It is given the host and port ``ServerCommand`` read from the same configuration as the server
/// (flags, environment, file, defaults), connects to the loopback address of that host's family (`127.0.0.1` for `0.0.0.0` or
/// `localhost`, `::1` for `::`; a specific address as it is), sends `GET /healthz`, and exits 0 when the status line
/// says 200, 1 otherwise: refused, reset, another status, or nothing within 2 seconds all-in.
///
/// It lives in `System/`, the room of libc (its sockets here), not in `LibEvent/`: it uses no libevent. (It sees
/// libc's socket constants whatever the order of files in a whole-module build because `CEvent`'s shim imports
/// Glibc's module rather than copying libc's headers; see `Sources/CEvent/shim.h`.)
///
/// Plain non-blocking POSIX sockets with `poll` deadlines, no URLSession: FoundationNetworking would pull libcurl
/// into the runtime image, and a probe must never hang past its timeout.
enum HealthProbe {
    /// What one probe found.
    struct Outcome: Sendable, Equatable {
        /// Whether the server answered `/healthz` with 200 in time.
        var healthy: Bool
        /// One line saying what happened, e.g. `healthy: GET http://127.0.0.1:8080/healthz answered 200 in 1 ms`.
        var line: String
    }

    /// How long the whole probe may take, from resolving the address to the status line.
    static let defaultTimeout: Duration = .seconds(2)

    /// Probes the server configured to listen on `host:port` (``SettingKey/host``, ``SettingKey/port``), prints the
    /// outcome line, and exits 0 (healthy) or 1.
    static func run(host: String, port: Int) -> Never {
        let outcome: Outcome
        if port == 0 {
            outcome = Outcome(
                healthy: false,
                line:
                    "unhealthy: the port configured is 0 (any free port), so the probe cannot know where the server listens"
            )
        } else {
            outcome = check(host: host, port: port)
        }
        FileDescriptorOutput.standardOutput(outcome.line + "\n")  // unbuffered: written before exit
        exit(outcome.healthy ? 0 : 1)
    }

    /// Sends `GET /healthz` to the server listening on `host:port` and reads its status line.
    ///
    /// - Parameters:
    ///   - host: The server's ``SettingKey/host``: an IPv4 or IPv6 literal or `localhost`; a wildcard address is
    ///     replaced by the loopback address of its family.
    ///   - port: The server's port, 1...65535.
    ///   - timeout: The deadline for everything together.
    /// - Returns: Healthy exactly when the status is 200.
    static func check(host: String, port: Int, timeout: Duration = defaultTimeout) -> Outcome {
        let deadline = ContinuousClock.now + timeout
        let started = ContinuousClock.now
        guard var target = Target(listeningHost: host, port: port) else {
            return Outcome(healthy: false, line: "unhealthy: \(host) is not an address the probe can connect to")
        }
        let url = "http://\(target.authority)/healthz"
        do throws(Failure) {
            let fd = try target.openConnection(before: deadline)
            defer { close(fd) }
            let request =
                "GET /healthz HTTP/1.1\r\nHost: \(target.authority)\r\n"
                + "User-Agent: ListServer-health-check\r\nConnection: close\r\n\r\n"
            try write(Array(request.utf8), to: fd, before: deadline)
            let status = try readStatus(from: fd, before: deadline)
            let milliseconds = (ContinuousClock.now - started).wholeMilliseconds
            return Outcome(
                healthy: status == 200,
                line: "\(status == 200 ? "healthy" : "unhealthy"): GET \(url) answered \(status) in \(milliseconds) ms")
        } catch .timedOut {
            return Outcome(healthy: false, line: "unhealthy: GET \(url): no answer within \(timeout)")
        } catch {
            return Outcome(healthy: false, line: "unhealthy: GET \(url): \(error)")
        }
    }

    /// Why a probe failed.
    enum Failure: Error, CustomStringConvertible {
        /// The deadline passed.
        case timedOut
        /// A system call failed with `errno`.
        case system(String, Int32)
        /// The server closed the connection or sent something that is not an HTTP/1.x status line.
        case protocolError(String)

        var description: String {
            switch self {
            case .timedOut: "timed out"
            case .system(let call, let code): "\(call): \(String(cString: strerror(code)))"
            case .protocolError(let what): what
            }
        }
    }

    /// The socket address to connect to, with its `host:port` text.
    private struct Target {
        var storage = sockaddr_storage()
        var length: socklen_t = 0
        var family: Int32 = 0
        /// `127.0.0.1:8080` or `[::1]:8080`.
        var authority = ""

        /// Resolves the numeric `listeningHost` (no DNS) and turns a wildcard into loopback; nil if it does not parse.
        init?(listeningHost: String, port: Int) {
            var hints = addrinfo()
            hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
            let numeric = listeningHost.lowercased() == "localhost" ? "127.0.0.1" : listeningHost
            var found: UnsafeMutablePointer<addrinfo>?
            guard (1...65535).contains(port), getaddrinfo(numeric, String(port), &hints, &found) == 0,
                let info = found
            else { return nil }
            defer { freeaddrinfo(found) }
            family = info.pointee.ai_family
            length = info.pointee.ai_addrlen
            withUnsafeMutableBytes(of: &storage) { destination in
                destination.copyMemory(from: UnsafeRawBufferPointer(start: info.pointee.ai_addr, count: Int(length)))
            }
            var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            withUnsafeMutablePointer(to: &storage) { pointer in
                if family == AF_INET6 {
                    pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { address in
                        let bytes = withUnsafeBytes(of: address.pointee.sin6_addr) { Array($0) }
                        if bytes.allSatisfy({ $0 == 0 }) {  // "::" → "::1"
                            withUnsafeMutableBytes(of: &address.pointee.sin6_addr) { $0[15] = 1 }
                        }
                        _ = inet_ntop(AF_INET6, &address.pointee.sin6_addr, &text, socklen_t(text.count))
                    }
                } else {
                    pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { address in
                        if address.pointee.sin_addr.s_addr == 0 {  // "0.0.0.0" → "127.0.0.1"
                            address.pointee.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
                        }
                        _ = inet_ntop(AF_INET, &address.pointee.sin_addr, &text, socklen_t(text.count))
                    }
                }
            }
            let address = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            authority = family == AF_INET6 ? "[\(address)]:\(port)" : "\(address):\(port)"
        }

        /// A connected non-blocking socket; the caller closes it.
        mutating func openConnection(before deadline: ContinuousClock.Instant) throws(Failure) -> Int32 {
            let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
            let fd = socket(family, type, 0)
            guard fd >= 0 else { throw .system("socket", errno) }
            let length = length
            let status = withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, length) }
            }
            do throws(Failure) {
                if status != 0 {
                    guard errno == EINPROGRESS else { throw Failure.system("connect", errno) }
                    try HealthProbe.wait(for: Int16(POLLOUT), on: fd, before: deadline)
                    var error: Int32 = 0
                    var size = socklen_t(MemoryLayout<Int32>.size)
                    guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size) == 0 else {
                        throw Failure.system("getsockopt(SO_ERROR)", errno)
                    }
                    guard error == 0 else { throw Failure.system("connect", error) }
                }
            } catch {
                close(fd)
                throw error
            }
            return fd
        }
    }

    /// Writes all of `bytes`, waiting for the socket to take them.
    private static func write(
        _ bytes: [UInt8], to fd: Int32, before deadline: ContinuousClock.Instant
    ) throws(Failure) {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count > 0 {
                sent += count
            } else if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR {
                try wait(for: Int16(POLLOUT), on: fd, before: deadline)
            } else {
                throw .system("send", errno)
            }
        }
    }

    /// Reads up to the end of the status line and returns its status code.
    private static func readStatus(from fd: Int32, before deadline: ContinuousClock.Instant) throws(Failure) -> Int {
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 512)
        while !received.contains(UInt8(ascii: "\n")) {
            guard received.count < 4096 else { throw .protocolError("no status line in the first 4 KiB") }
            try wait(for: Int16(POLLIN), on: fd, before: deadline)
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                received += chunk[..<count]
            } else if count == 0 {
                throw .protocolError("the server closed the connection without an answer")
            } else if errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR {
                throw .system("recv", errno)
            }
        }
        let lineBytes = received.prefix { $0 != UInt8(ascii: "\r") && $0 != UInt8(ascii: "\n") }
        let line = String(decoding: lineBytes, as: UTF8.self)
        let parts = line.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), parts[1].count == 3, let status = Int(parts[1]) else {
            throw .protocolError("not an HTTP/1.x status line: \(line.prefix(80))")
        }
        return status
    }

    /// Waits until `fd` is ready for `events` (`POLLIN` or `POLLOUT`), or throws `.timedOut` at `deadline`.
    ///
    /// An error or hang-up on the socket counts as ready: the next `recv`, `send` or `SO_ERROR` reports it.
    fileprivate static func wait(
        for events: Int16, on fd: Int32, before deadline: ContinuousClock.Instant
    ) throws(Failure) {
        while true {
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { throw .timedOut }
            // Round up so that a last fraction of a millisecond is waited for, not spun on.
            var poller = pollfd(fd: fd, events: events, revents: 0)
            let ready = poll(&poller, 1, Int32(clamping: left.wholeMilliseconds + 1))
            if ready > 0 { return }
            if ready < 0 && errno != EINTR { throw .system("poll", errno) }
        }
    }
}
