// swift-format-ignore-file: OrderedImports
import Glibc  // before CEvent
import CEvent

/// `GET /admin/journal/events`: a dataset's request journal as Server-Sent Events, one `entry` event per request
/// (`id:` its `seq`, `data:` the entry's JSON as `GET /admin/journal` writes it). Loop thread only.
///
/// An ``EventStream`` like a change stream, with the same bounds, heartbeats and end; it is fed by the journal's
/// listener (``Journal/addListener(_:)``) when requests are taken in, and starts with the kept entries after
/// `?since=` (or `Last-Event-ID`): at most ``journalReplayLimit`` of them, the newest, after a `missed` event
/// that says how many came before.
extension LoopServer {
    /// The most kept entries a journal stream replays when it opens: about 200 KB, within a subscriber's buffer.
    static let journalReplayLimit = 500

    /// Starts answering `request` with its dataset's journal as events.
    func openJournalStream(
        _ request: EvHTTPRequest, _ stream: EventStreamRequest, _ follow: JournalFollow, requestID: String
    ) -> HTTPResponse {
        let opened = stream.opening
        guard let journal, let connection = evhttp_request_get_connection(request.raw) else {
            return opened
        }
        let token = nextStreamToken
        nextStreamToken &+= 1
        let open = EventStream(
            request: request, list: stream.list, basePath: nil, token: token, lastSent: 0, server: self)
        open.journal = follow
        // Counted before the journal is read: entries taken in after this reach the stream live, and those the
        // read below sees too are not sent twice (``EventStream/lastSent``).
        streams[token] = open
        journalStreamCount.value.wrappingAdd(1, ordering: .sequentiallyConsistent)
        journal.followers.wrappingAdd(1, ordering: .sequentiallyConsistent)
        if let bufferevent = request.connectionBufferevent {
            connections[bufferevent]?.streaming = true
            limitKernelBuffer(of: bufferevent)
        }
        evhttp_connection_set_closecb(connection, loopServerStreamClosed, Unmanaged.passRetained(open).toOpaque())
        request.addHeaders(
            of: encodeEvents(of: open, opened), requestID: requestID, closeConnection: false, date: date.current)
        dropKeepAlive(request)
        evhttp_send_reply_start(request.raw, 200, "OK")
        open.chunked = evhttp_find_header(evhttp_request_get_output_headers(request.raw), "Transfer-Encoding") != nil
        write(EventFrame(Array("retry: \(stream.settings.retry.wholeMilliseconds)\n\n".utf8)), to: open)
        startHeartbeats(every: stream.settings.heartbeat)
        // The replay: the newest kept entries after `since`, at most the limit (read as such: not the whole journal
        // read into entries on the loop to keep its end).
        let since = stream.after ?? 0
        let kept = journal.page(
            of: stream.list, client: follow.client, since: since,
            limit: follow.client == nil ? Self.journalReplayLimit : .max,
            newest: true)
        let replayed = kept.entries.suffix(Self.journalReplayLimit)
        let missed = Int(kept.missed) + kept.entries.count - replayed.count
        if since > kept.lastSeq {
            // Numbers past the journal's end: it started over (the server restarted). A view clears what it shows.
            write(EventFrame(Array("event: reset\ndata: {}\n\n".utf8)), to: open)
        }
        open.lastSent = kept.lastSeq
        if missed > 0 {
            let event = "event: missed\ndata: {\"missed\":\(missed)}\n\n"
            write(EventFrame(Array(event.utf8)), to: open)
        }
        for entry in replayed { write(Self.journalEvent(entry, origin: kept.origin), to: open) }
        return opened
    }

    /// Hands newly taken entries of `dataset`'s journal to this loop's journal streams of it (on the loop thread).
    func deliverJournal(_ entries: [JournalEntry], of dataset: String, origin: Int64?) {
        let followers = streams.values.filter { $0.list == dataset && $0.journal != nil }
        guard !followers.isEmpty else { return }
        var framed: [UInt64: EventFrame] = [:]  // each entry framed once, for every stream that sends it
        for stream in followers {
            let client = stream.journal?.client
            for entry in entries where entry.seq > stream.lastSent && (client == nil || entry.client == client) {
                let frame = framed[entry.seq] ?? Self.journalEvent(entry, origin: origin)
                framed[entry.seq] = frame
                write(frame, to: stream)
                stream.lastSent = entry.seq
            }
        }
    }

    /// One entry as an event.
    private static func journalEvent(_ entry: JournalEntry, origin: Int64?) -> EventFrame {
        var json = JSONWriter(capacity: 512)
        json.append(raw: "id: ")
        json.append(integer: entry.seq)
        json.append(raw: "\nevent: entry\ndata: ")
        entry.write(into: &json, origin: origin)
        json.append(raw: "\n\n")
        return EventFrame(json.bytes)
    }
}
