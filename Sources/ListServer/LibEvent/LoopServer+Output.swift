// swift-format-ignore-file: OrderedImports
import Glibc  // before CEvent
import CEvent

/// Answers the clients have not read, held to the loop's share of ``SettingKey/maxOutputBytes``.
///
/// An answer goes into its connection's buffers whole, and stays there, in the process, until the kernel takes
/// it; a client that asks and never reads holds its answer until ``SettingKey/writeTimeoutMs`` drops it. A thousand
/// such clients asking for an upload of 10 MiB each would hold 10 GB. evhttp takes a connection's next request only
/// once the answer before it has left the process, so a connection holds one answer at most here (the kernel holds
/// more, up to `tcp_wmem`: about 3 MB of pages were seen in a socket whose client read nothing).
///
/// So the loop keeps a count of what its connections hold unsent (``ConnectionGuard/outputBacklog``: measured when
/// an answer is sent and at every sweep, plus what was sent since). A connection is *stuck* when two sweeps in a
/// row find the same bytes unsent: its client takes nothing. While the count is over the share, the sweep closes
/// stuck connections, those holding most first, as the event streams' budget drops subscribers; and an answer that
/// would take the count past the share first closes stuck ones the same way. A client that reads, however slowly,
/// is never closed for this: when only such clients hold the share, the answer gets 503 `server-busy` with
/// `Retry-After` instead. An answer larger than the whole share goes out only while nothing else is held (else
/// 503): it never closes others. Answers of up to ``untrackedBytes`` go out unchecked: problems, probes, items and
/// small pages cost the check nothing, and their connections at most that each.
extension LoopServer {
    /// The largest answer sent without a look at the budget.
    static let untrackedBytes = 16_384

    /// The answer `request` gets: `response`, with room made for it in the loop's share of
    /// ``SettingKey/maxOutputBytes``, or 503 `server-busy` when there is none to make.
    func admitted(_ response: HTTPResponse, for request: EvHTTPRequest) -> HTTPResponse {
        let count = response.body.count
        guard count > Self.untrackedBytes, let bufferevent = request.connectionBufferevent,
            let connection = connections[bufferevent]
        else { return response }
        measure(connection)
        guard fits(count) || makeRoom(for: count) else {
            return Problem(
                .serverBusy,
                detail: "the server holds \(responseBacklog) bytes of answers its clients are still reading "
                    + "(\(SettingKey.maxOutputBytes.name)), and this one is \(count) bytes; retry shortly",
                headers: ["Retry-After": "1"]
            ).response()
        }
        connection.outputBacklog += count
        responseBacklog += count
        return response
    }

    /// The sweep: brings every connection's backlog up to date (what the kernel took since goes out of the count),
    /// notes which are stuck, and closes stuck ones while the loop holds more than its share.
    func sweepOutput() {
        var total = 0
        for connection in connections.values {
            let unsent = unsent(connection)
            connection.outputStuck = unsent > 0 && unsent == connection.outputBacklogAtSweep
            connection.outputBacklogAtSweep = unsent
            connection.outputBacklog = unsent
            total += unsent
        }
        responseBacklog = total  // once: each change tells the loop's gauges
        while responseBacklog > outputBudget, closeStuckConnection() {}
    }

    /// A connection closed: what it held unsent goes out of the count.
    func forgetOutput(of connection: ConnectionGuard) {
        responseBacklog -= connection.outputBacklog
        connection.outputBacklog = 0
    }

    /// Whether `count` more bytes fit the share: within it, or, for an answer larger than the share, alone.
    private func fits(_ count: Int) -> Bool {
        responseBacklog + count <= max(outputBudget, count)
    }

    /// Closes stuck connections, those holding most first, until `count` more bytes fit; false when they do not
    /// fit even so.
    private func makeRoom(for count: Int) -> Bool {
        for connection in connections.values { measure(connection) }
        while !fits(count) {
            guard closeStuckConnection() else { return false }
        }
        return true
    }

    /// Closes the stuck connection holding most unsent; false when none is stuck.
    private func closeStuckConnection() -> Bool {
        guard
            let furthest = connections.values.filter({ $0.outputStuck && $0.outputBacklog > 0 })
                .max(by: { $0.outputBacklog < $1.outputBacklog })
        else { return false }
        furthest.dropUnread()
        furthest.outputStuck = false
        forgetOutput(of: furthest)  // freed with the connection, on this turn of the loop
        droppedForOutput += 1
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
