// swift-format-ignore-file: OrderedImports
import Glibc  // before CEvent
import CEvent

/// Answers go to the kernel together, once the requests that arrived with them are handled.
///
/// An answer sent the moment it is made costs a wake-up of its client on every `writev`: on loopback the sender
/// delivers the bytes itself and wakes the reader, and a client that read its last answer and went back to
/// `epoll_wait` sleeps again between answers. Under 256 connections on one loop that wake-up path
/// (`sock_def_readable`) was 18 % of ListServer's CPU time, 5 µs a request, against under 5 % for the C baseline,
/// which writes when the socket next polls writable, after every request of the round was read (issue 32). So an
/// answer is queued here and one event, at the sockets' priority and so behind the callbacks already due this
/// turn, flushes every connection that has one: the reads of a round come first, then its writes, as in the
/// baseline, without its `epoll_ctl` per answer to ask for writability. An answer waits for the callbacks that
/// were due when the first answer of the turn was queued: with hundreds of sockets ready that is a few batches of
/// ``EventLoop/callbacksBetweenDrains``, and queued jobs may run between them.
///
/// Only answers made in a request's own callback are queued: there the round's other requests are still to be
/// read. An answer made later (a write once it is durable, a held or rendered answer) comes from a job or a timer,
/// alone or nearly so, and goes to the kernel at once: queued, it cost one more turn of the loop (an `epoll_wait`
/// and a `timerfd_settime`), and one writing client's writes went from 0.82–0.94 of `writes-server.c`'s rate to
/// 0.72–0.85 in the same sitting. Answers the output budget tracks (over ``untrackedBytes``,
/// `LoopServer+Output.swift`) go at once too: the budget counts what its connections hold unsent, and large answers
/// queued until the end of the turn would all count in full, so that a few of them read together would refuse the
/// next with 503 although the kernel takes them at once (the budget's end-to-end test saw its `/metrics` refused
/// so). Their bytes cost more than the wake-up anyway.
extension LoopServer {
    /// Answers `request` with `response`, and flushes it or queues its flush; false when the client had left (the
    /// answer was dropped).
    @discardableResult
    func reply(_ response: HTTPResponse, to request: EvHTTPRequest, requestID: String, closeConnection: Bool = false)
        -> Bool
    {
        let connection = request.send(
            response, requestID: requestID, closeConnection: closeConnection, date: date.current, buffer: replyBuffer)
        guard let connection else { return false }
        if !inRequestCallback || response.body.count > Self.untrackedBytes {
            // For a connection without a guard this is a no-op: evhttp's own bufferevent writes when it can.
            bufferevent_flush(connection, Int16(EV_WRITE), BEV_NORMAL)
        } else {
            flushSoon(connection)
        }
        return true
    }

    /// Queues a flush of `bufferevent`'s output for this turn of the loop; a connection without a guard writes on
    /// its own.
    ///
    /// The queue holds a reference on the bufferevent (`bufferevent_incref`) until it is flushed: evhttp may free
    /// the connection meanwhile (the sweep's flush completes a `Connection: close` answer, the client hangs up), and
    /// a flush of a bufferevent whose last reference is gone would finalize it a second time.
    func flushSoon(_ bufferevent: OpaquePointer) {
        guard let guardian = connections[bufferevent], !guardian.flushPending else { return }
        guardian.flushPending = true
        bufferevent_incref(bufferevent)
        unflushed.append(guardian)
        if unflushed.count == 1 { event_active(flushEvent, EV_TIMEOUT, 0) }
    }

    /// Creates the event that flushes the queued answers. Call once, from init.
    func makeFlushEvent() -> OpaquePointer? {
        let context = Unmanaged.passUnretained(self).toOpaque()
        let event = event_new(loop.base, -1, 0, loopServerFlushCallback, context)
        // The sockets' priority (the wake-up event has 0): behind every socket callback already due.
        event_priority_set(event, 1)
        return event
    }

    /// Flushes every queued answer and lets go of its bufferevent; a flush that completes an answer can start the
    /// next pipelined request, whose answer is queued anew and flushed by the next run. Also called before evhttp is
    /// freed at shutdown, so that answers already made reach the kernel first.
    func flushQueued() {
        swap(&unflushed, &flushing)
        for guardian in flushing {
            guardian.flushPending = false
            // Still there: the reference taken in flushSoon keeps libevent from finalizing it, and the guard learns
            // of its end only then.
            guard let bufferevent = guardian.bufferevent else { continue }
            bufferevent_flush(bufferevent, Int16(EV_WRITE), BEV_NORMAL)
            bufferevent_decref(bufferevent)  // may finalize it now, which tells the guard (later, deferred)
        }
        flushing.removeAll(keepingCapacity: true)
    }
}

private func loopServerFlushCallback(_ fd: Int32, _ events: Int16, _ context: UnsafeMutableRawPointer?) {
    guard let context else { return }
    Unmanaged<LoopServer>.fromOpaque(context).takeUnretainedValue().flushQueued()
}
