// swift-format-ignore-file: OrderedImports
import Glibc  // before CEvent
import CEvent
import Synchronization

/// Why a loop has stopped accepting new connections for now.
struct AcceptPause: OptionSet {
    let rawValue: Int
    /// This loop holds its share of ``SettingKey/maxConnections``.
    static let connectionLimit = AcceptPause(rawValue: 1)
    /// `accept` failed for lack of file descriptors (EMFILE/ENFILE) or memory.
    static let resources = AcceptPause(rawValue: 2)
}

/// Connections: one `ConnectionGuard` each, the connection limit and its reserve, accept errors, and the sweep
/// that enforces head, body and idle deadlines (and measures what answers the clients have not read yet, for
/// `LoopServer+Output.swift`). Loop thread only.
///
/// A loop accepts its share of ``SettingKey/maxConnections``, then its share of ``SettingKey/reservedConnections``
/// more, which serve only `/healthz`, `/readyz`, `/metrics` and `/admin/*`: clients that hold every ordinary connection
/// (40 stalled bodies with `--max-connections 40` kept `/healthz` from answering for 72 s) cannot keep a probe or an
/// operator out. Only when the reserve is full too does it stop accepting.
extension LoopServer {
    /// evhttp asks for a bufferevent for a new connection: it gets a guarded one.
    func newConnection() -> OpaquePointer? {
        let reserved = connections.count - reservedConnections >= connectionLimit
        let guardian = ConnectionGuard(
            server: self, limits: limits, uploadBudget: uploadBudget, now: MonotonicClock.milliseconds(),
            reserved: reserved)
        let context = Unmanaged.passRetained(guardian).toOpaque()  // released when the filter is freed
        guard let bufferevent = guardian.makeBufferevent(base: loop.base, context: context) else {
            Unmanaged<ConnectionGuard>.fromOpaque(context).release()
            return nil  // evhttp falls back to a bufferevent of its own for this one connection
        }
        connections[bufferevent] = guardian
        if reserved { reservedConnections += 1 }
        connectionCount.value.store(connections.count, ordering: .relaxed)
        observer.connectionsChanged(to: connections.count)
        if connections.count >= connectionLimit + reserveLimit { pauseAccepting(.connectionLimit) }
        return bufferevent
    }

    /// A guarded connection was freed by evhttp.
    func connectionClosed(_ bufferevent: OpaquePointer) {
        if let guardian = connections.removeValue(forKey: bufferevent) {
            if guardian.isReserved { reservedConnections -= 1 }
            forgetOutput(of: guardian)
        }
        connectionCount.value.store(connections.count, ordering: .relaxed)
        observer.connectionsChanged(to: connections.count)
        if connections.count < connectionLimit + reserveLimit { resumeAccepting(.connectionLimit) }
    }

    /// Makes a connection of the reserve an ordinary one, if an ordinary one is free now (others closed since it
    /// was accepted); false when none is.
    func leaveReserve(_ guardian: ConnectionGuard) -> Bool {
        guard guardian.isReserved, connections.count - reservedConnections < connectionLimit else { return false }
        reservedConnections -= 1
        guardian.leftReserve()
        return true
    }

    /// The rejection owed to the connection of a marker request, if that connection was rejected.
    func takeRejection(for request: EvHTTPRequest) -> HeadRejection? {
        guard let bufferevent = request.connectionBufferevent else { return nil }
        return connections[bufferevent]?.takeRejection()
    }

    /// `accept` failed: most likely out of file descriptors. Pause, and try again shortly,
    /// instead of spinning on a listening socket that stays readable.
    func acceptFailed(errno code: Int32) {
        pauseAccepting(.resources)
        loop.schedule(after: .milliseconds(100)) { [self] in resumeAccepting(.resources) }
    }

    func pauseAccepting(_ reason: AcceptPause) {
        let wasAccepting = acceptPause.isEmpty
        acceptPause.insert(reason)
        if wasAccepting, let listener { evconnlistener_disable(listener) }
    }

    func resumeAccepting(_ reason: AcceptPause) {
        guard acceptPause.contains(reason) else { return }
        acceptPause.remove(reason)
        if acceptPause.isEmpty, !draining, let listener { evconnlistener_enable(listener) }
    }

    private var listener: OpaquePointer? {
        boundSocket.flatMap { evhttp_bound_socket_get_listener($0) }
    }

    // MARK: Sweep

    /// Starts the periodic check of connection deadlines: often enough that a deadline is kept to
    /// within a quarter of the shortest one (at most every second, at least every 10 ms).
    func startSweeping() {
        let shortest = min(limits.headerTimeout, limits.idleTimeout, limits.bodyTimeout)
        let interval = max(.milliseconds(10), min(.seconds(1), shortest / 4))
        var time = interval.timeval
        let context = Unmanaged.passUnretained(self).toOpaque()
        sweepTimer = event_new(loop.base, -1, Int16(EV_PERSIST), loopServerSweepCallback, context)
        event_add(sweepTimer, &time)
    }

    func sweep() {
        let now = MonotonicClock.milliseconds()
        for guardian in connections.values { guardian.sweep(now: now) }
        sweepOutput()
    }
}

/// evhttp's bufferevent factory for new connections.
func loopServerNewConnectionCallback(_ base: OpaquePointer?, _ context: UnsafeMutableRawPointer?) -> OpaquePointer? {
    guard let context else { return nil }
    return Unmanaged<LoopServer>.fromOpaque(context).takeUnretainedValue().newConnection()
}

/// Servers by their listener's address, for the accept-error callback, whose context is evhttp's.
/// Touched at start, at stop, and on accept errors only, so a lock costs nothing that matters.
private let serversByListener = Mutex<[UInt: Unmanaged<LoopServer>]>([:])

extension LoopServer {
    func registerForAcceptErrors(_ listener: OpaquePointer) {
        let key = UInt(bitPattern: UnsafeRawPointer(listener))
        serversByListener.withLock { $0[key] = Unmanaged.passUnretained(self) }
    }

    func unregisterForAcceptErrors() {
        serversByListener.withLock { servers in
            servers = servers.filter { $0.value.toOpaque() != Unmanaged.passUnretained(self).toOpaque() }
        }
    }
}

/// evconnlistener's error callback (on the loop thread of that listener).
func loopServerAcceptErrorCallback(_ listener: OpaquePointer?, _ context: UnsafeMutableRawPointer?) {
    let code = cevent_errno()
    guard let listener else { return }
    let key = UInt(bitPattern: UnsafeRawPointer(listener))
    serversByListener.withLock { $0[key] }?.takeUnretainedValue().acceptFailed(errno: code)
}

private func loopServerSweepCallback(_ fd: Int32, _ events: Int16, _ context: UnsafeMutableRawPointer?) {
    guard let context else { return }
    Unmanaged<LoopServer>.fromOpaque(context).takeUnretainedValue().sweep()
}
