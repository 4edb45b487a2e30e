// swift-format-ignore-file: OrderedImports
import Glibc  // before CEvent
import CEvent
import ListDomain

/// The whole HTTP server: one event loop per thread, each with its own `evhttp` and its own
/// `SO_REUSEPORT` listening socket on the shared port.
///
/// No evhttp state crosses loops: what they share (the router, the writes and lists, the caches, the
/// ``UploadBudget``) is `Sendable`, behind a lock or an actor of its own. Start it, and always end it with
/// `shutdown(grace:)`; the loops call back into it until then.
final class HTTPServer: Sendable {
    /// The port actually bound (the kernel's choice when 0 was asked for).
    let port: Int
    /// The address the sockets are bound to, as configured.
    let host: String
    private let servers: [LoopServer]
    /// What large uploads hold, across every loop.
    let uploadBudget: UploadBudget

    /// The client connections open now, summed over the loops.
    var openConnections: Int { servers.reduce(0) { $0 + $1.connectionCount.value.load(ordering: .relaxed) } }

    /// Binds `threads` sockets on `host:port` and starts one loop thread per socket.
    /// `limits.maxConnections` is shared out evenly: each loop takes at most its share.
    ///
    /// - Parameters:
    ///   - router: Answers every request.
    ///   - observability: What each loop records its requests and connections into.
    ///   - writes: The change feed and lists the event streams follow, the queue a shutdown refuses.
    ///   - events: How event streams behave (`events.*`).
    static func start(
        host: String, port: Int, threads: Int, limits: HTTPLimits, router: Router, observability: Observability,
        writes: WriteCoordinator, events: EventSettings
    ) throws(EventError) -> HTTPServer {
        precondition(threads >= 1)
        // Writing to a socket the client has closed raises SIGPIPE, which kills the process by default.
        // libevent writes with writev (no MSG_NOSIGNAL), so the server ignores it wherever it runs.
        signal(SIGPIPE, SIG_IGN)
        let (fds, boundPort) = try ListeningSockets.open(host: host, port: port, count: threads)
        let share = (limits.maxConnections + threads - 1) / threads
        let uploadBudget = UploadBudget(limits: limits)
        var servers: [LoopServer] = []
        do throws(EventError) {
            for (index, fd) in fds.enumerated() {
                let loop: EventLoop
                do throws(EventError) {
                    loop = try EventLoop(name: "loop-\(index)")
                } catch {
                    close(fd)  // a LoopServer owns (and closes) its socket; this one never got one
                    throw error
                }
                servers.append(
                    try LoopServer(
                        loop: loop, loopIndex: index, router: router, observability: observability, writes: writes,
                        events: events, limits: limits, connectionLimit: share, uploadBudget: uploadBudget,
                        loopCount: threads, listeningFD: fd))
            }
        } catch {
            for fd in fds.dropFirst(servers.count + 1) { close(fd) }
            throw error
        }
        for server in servers { server.loop.start() }
        return HTTPServer(host: host, port: boundPort, servers: servers, uploadBudget: uploadBudget)
    }

    private init(host: String, port: Int, servers: [LoopServer], uploadBudget: UploadBudget) {
        self.host = host
        self.port = port
        self.servers = servers
        self.uploadBudget = uploadBudget
    }

    /// Stops accepting, lets every request in flight finish (at most `grace`, then 503), and
    /// returns when every loop thread has ended.
    func shutdown(grace: Duration) async {
        for server in servers {
            server.loop.execute {
                server.beginDraining(deadline: grace) { server.loop.stop() }
            }
        }
        await waitUntilStopped()
    }

    /// Returns when every loop thread has ended.
    func waitUntilStopped() async {
        for server in servers { await server.loop.waitUntilFinished() }
    }
}
