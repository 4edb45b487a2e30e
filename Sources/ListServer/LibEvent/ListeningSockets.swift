// swift-format-ignore-file: OrderedImports
import Glibc  // before CEvent
import CEvent

/// Bound, listening, non-blocking TCP sockets with `SO_REUSEPORT`, one per event loop.
///
/// Every loop gets a socket of its own on the same address and port, and the kernel spreads new
/// connections across them: no accept lock, no hand-over between threads.
///
/// `SO_REUSEPORT` would also let a second server on the same port share it silently, so the port is
/// first claimed by a probe socket without that option: a port already in use fails as `EADDRINUSE`,
/// and port 0 learns the kernel's choice, which the real sockets then bind.
enum ListeningSockets {
    /// Opens `count` sockets on `host:port` (an IPv4 or IPv6 literal, or `localhost`).
    /// - Returns: the descriptors (the caller owns them) and the port actually bound.
    static func open(host: String, port: Int, count: Int, backlog: Int32 = 1024) throws(EventError) -> (
        fds: [Int32], port: Int
    ) {
        let probe = try bound(host: host, port: port, reusePort: false)
        let actualPort: Int
        do { actualPort = try boundPort(probe) } catch {
            close(probe)
            throw error
        }
        close(probe)
        var fds: [Int32] = []
        do {
            for _ in 0..<count {
                let fd = try bound(host: host, port: actualPort, reusePort: true)
                fds.append(fd)
                try EventError.check(listen(fd, backlog), "listen")
                try EventError.check(evutil_make_socket_nonblocking(fd), "evutil_make_socket_nonblocking")
            }
        } catch {
            for fd in fds { close(fd) }
            throw error
        }
        return (fds, actualPort)
    }

    private static func bound(host: String, port: Int, reusePort: Bool) throws(EventError) -> Int32 {
        var hints = addrinfo()
        hints.ai_flags = AI_NUMERICHOST | AI_PASSIVE | AI_NUMERICSERV
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        let numericHost = host == "localhost" ? "127.0.0.1" : host
        var found: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(numericHost, String(port), &hints, &found)
        guard status == 0, let address = found else {
            throw EventError.call("getaddrinfo", errno: 0, context: "\(host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(found) }

        let fd = socket(address.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw EventError.call("socket", errno: cevent_errno()) }
        do {
            var on: Int32 = 1
            let size = socklen_t(MemoryLayout<Int32>.size)
            try EventError.check(setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, size), "setsockopt(SO_REUSEADDR)")
            if reusePort {
                try EventError.check(setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &on, size), "setsockopt(SO_REUSEPORT)")
            }
            try EventError.check(
                bind(fd, address.pointee.ai_addr, address.pointee.ai_addrlen), "bind", context: "\(host):\(port)")
        } catch {
            close(fd)
            throw error
        }
        return fd
    }

    private static func boundPort(_ fd: Int32) throws(EventError) -> Int {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let status = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        try EventError.check(status, "getsockname")
        let family = storage.ss_family
        return withUnsafePointer(to: &storage) { pointer in
            if family == sa_family_t(AF_INET6) {
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    Int(UInt16(bigEndian: $0.pointee.sin6_port))
                }
            }
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                Int(UInt16(bigEndian: $0.pointee.sin_port))
            }
        }
    }
}
