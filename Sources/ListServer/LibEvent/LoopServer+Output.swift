// swift-format-ignore-file: OrderedImports
import Glibc  // before CEvent
import CEvent

/// Answers the clients have not read, held to the loop's share of `http.max_output_bytes`.
///
/// An answer goes into its connection's buffers whole, and stays there, in the process, until the kernel takes
/// it; a client that asks and never reads holds its answer until `http.write_timeout_ms` drops it. A thousand such
/// clients asking for an upload of 10 MiB each would hold 10 GB. So the loop keeps a count of what its connections
/// hold unsent (``ConnectionGuard/outputBacklog``: measured when an answer is sent and at every sweep, plus what was
/// sent since), and an answer that would take it past the share first closes the connections furthest behind,
/// as the event streams' budget does with subscribers: a client that reads has little or nothing unsent (the
/// kernel takes it), so those closed are the ones that do not read. An answer whose own connection is the furthest
/// behind gets 503 `server-busy` instead. evhttp takes a connection's next request only once the answer before it
/// has left the process, so a connection holds one answer at most here (the kernel holds up to `tcp_wmem` more:
/// about 3 MB of pages were seen in a socket whose client read nothing). Answers of up to ``untrackedBytes`` go out unchecked: problems, probes,
/// items and small pages cost the check nothing, and their connections at most that each.
extension LoopServer {
    /// The largest answer sent without a look at the budget.
    static let untrackedBytes = 16_384

    /// The answer `request` gets: `response`, with room made for it in the loop's share of `http.max_output_bytes`,
    /// or 503 `server-busy` when there is none to make.
    func admitted(_ response: HTTPResponse, for request: EvHTTPRequest) -> HTTPResponse {
        let count = response.body.count
        guard count > Self.untrackedBytes, let bufferevent = request.connectionBufferevent,
            let connection = connections[bufferevent]
        else { return response }
        measure(connection)
        if responseBacklog + count > outputBudget && !makeRoom(for: count, sending: connection) {
            return Problem(
                .serverBusy,
                detail: "the server holds \(responseBacklog) bytes of answers its clients have not read, and this "
                    + "connection has the most of them unread (http.max_output_bytes); read, then retry",
                headers: ["Retry-After": "1"]
            ).response()
        }
        connection.outputBacklog += count
        responseBacklog += count
        return response
    }

    /// Brings every connection's backlog up to date (the sweep: what the kernel took since goes out of the count).
    func measureOutput() {
        var total = 0
        for connection in connections.values {
            connection.outputBacklog = unsent(connection)
            total += connection.outputBacklog
        }
        responseBacklog = total  // once: each change tells the loop's gauges
    }

    /// A connection closed: what it held unsent goes out of the count.
    func forgetOutput(of connection: ConnectionGuard) {
        responseBacklog -= connection.outputBacklog
        connection.outputBacklog = 0
    }

    /// Closes the connections furthest behind until `count` more bytes fit; false when `sending` is itself the
    /// furthest behind. True when nothing is held at all, however large the answer: the kernel may take it.
    private func makeRoom(for count: Int, sending: ConnectionGuard) -> Bool {
        measureOutput()
        while responseBacklog + count > outputBudget {
            guard let furthest = connections.values.max(by: { $0.outputBacklog < $1.outputBacklog }),
                furthest.outputBacklog > 0
            else { return true }
            if furthest === sending { return false }
            furthest.dropUnread()
            forgetOutput(of: furthest)  // freed with the connection, on this turn of the loop
            droppedForOutput += 1
        }
        return true
    }

    /// Sets `connection`'s backlog to what it holds unsent now.
    private func measure(_ connection: ConnectionGuard) {
        let now = unsent(connection)
        responseBacklog += now - connection.outputBacklog
        connection.outputBacklog = now
    }

    /// What `connection` holds unsent now, as the budget counts it: an event stream's counts against its own budget,
    /// and a connection being closed is about to free what it holds.
    private func unsent(_ connection: ConnectionGuard) -> Int {
        connection.streaming || connection.phase == .closing ? 0 : connection.unsentBytes
    }
}
