/// A journal as an HTTP Archive (HAR 1.2, http://www.softwareishard.com/blog/har-12-spec/): `GET
/// /admin/journal.har`, for browser dev tools, Charles and other HAR viewers.
///
/// The journal keeps what list clients get wrong, not whole exchanges: each entry's request carries the fields it
/// kept (`X-Client-Id`, `If-None-Match`, `If-Match`, `Idempotency-Key`, `Range`, `Last-Event-ID`) and its response
/// `Content-Type`, `ETag` and `Retry-After`; bodies are not kept (`content.size` is the body's length before any
/// compression, with no `text`), and header sizes are unknown (-1, as the format allows). `time` and `timings.wait` are the entry's
/// duration; the journal's own fields go in custom fields (`_seq`, `_client`, `_route`, `_aborted`,
/// `_received_bytes`, `_fault`), which HAR allows with a leading underscore.
struct JournalHAR {
    /// The file's bytes.
    let bytes: [UInt8]

    /// The archive of `entries`; `epochWallMilliseconds` is the wall-clock time of the journal's epoch, `host` the
    /// authority the URLs get.
    init(_ entries: [JournalEntry], epochWallMilliseconds: Int64, host: String) {
        var json = JSONWriter(capacity: 512 + entries.count * 900)
        json.append(raw: "{\"log\":{\"version\":\"1.2\",\"creator\":{\"name\":\"ListServer\",\"version\":\"1\"},")
        json.append(raw: "\"pages\":[],\"entries\":[")
        for (index, entry) in entries.enumerated() {
            if index > 0 { json.append(raw: ",") }
            Self.write(entry, wall: epochWallMilliseconds + entry.start / 1000, host: host, into: &json)
        }
        json.append(raw: "]}}")
        bytes = json.bytes
    }

    private static func write(_ entry: JournalEntry, wall: Int64, host: String, into json: inout JSONWriter) {
        json.append(raw: "{\"startedDateTime\":")
        json.append(string: HTTPDate.iso8601(millisecondsSince1970: wall))
        json.append(raw: ",\"time\":")
        JournalEntry.appendMilliseconds(entry.duration, to: &json)
        json.append(raw: ",\"request\":{\"method\":")
        json.append(string: entry.method.name)
        json.append(raw: ",\"url\":")
        json.append(string: "http://" + host + entry.target)
        json.append(raw: ",\"httpVersion\":\"HTTP/1.1\",\"cookies\":[],\"headers\":")
        writeFields(
            [
                ("X-Client-Id", entry.client.hasPrefix("peer:") ? nil : entry.client),
                ("If-None-Match", entry.ifNoneMatch), ("If-Match", entry.ifMatch),
                ("Idempotency-Key", entry.idempotencyKey), ("Range", entry.range), ("Last-Event-ID", entry.lastEventID),
            ], into: &json)
        json.append(raw: ",\"queryString\":[")
        let query = (try? RequestTarget(entry.target).queryItems()) ?? []
        for (index, item) in query.enumerated() {
            if index > 0 { json.append(raw: ",") }
            json.append(raw: "{\"name\":")
            json.append(string: item.name)
            json.append(raw: ",\"value\":")
            json.append(string: item.value)
            json.append(raw: "}")
        }
        json.append(raw: "],\"headersSize\":-1,\"bodySize\":-1},\"response\":{\"status\":")
        json.append(integer: entry.status)
        json.append(raw: ",\"statusText\":")
        json.append(string: entry.status == 0 ? "" : HTTPReasonPhrase.of(entry.status))
        json.append(raw: ",\"httpVersion\":\"HTTP/1.1\",\"cookies\":[],\"headers\":")
        writeFields(
            [
                ("Content-Type", entry.contentType), ("ETag", entry.etag),
                ("Retry-After", entry.retryAfter.map(String.init)),
            ], into: &json)
        // `content.size` is the body as the client decodes it, `bodySize` as it went over the wire, and
        // `content.compression` what the coding saved (HAR 1.2).
        json.append(raw: ",\"content\":{\"size\":")
        json.append(integer: entry.identityBytes ?? entry.bytes)
        if let identityBytes = entry.identityBytes {
            json.append(raw: ",\"compression\":")
            json.append(integer: identityBytes - entry.bytes)
        }
        json.append(raw: ",\"mimeType\":")
        json.append(string: entry.contentType ?? "")
        json.append(raw: "},\"redirectURL\":\"\",\"headersSize\":-1,\"bodySize\":")
        json.append(integer: entry.status == 0 ? -1 : entry.abandonedAt ?? entry.bytes)
        json.append(raw: "},\"cache\":{},\"timings\":{\"send\":0,\"wait\":")
        JournalEntry.appendMilliseconds(entry.duration, to: &json)
        json.append(raw: ",\"receive\":0},\"_seq\":")
        json.append(integer: entry.seq)
        json.append(raw: ",\"_client\":")
        json.append(string: entry.client)
        json.append(raw: ",\"_route\":")
        json.append(string: entry.route)
        json.append(raw: entry.aborted ? ",\"_aborted\":true" : ",\"_aborted\":false")
        if let received = entry.abandonedAt {
            json.append(raw: ",\"_received_bytes\":")
            json.append(integer: received)
        }
        if let fault = entry.fault {
            json.append(raw: ",\"_fault\":")
            json.append(string: fault)
        }
        json.append(raw: "}")
    }

    /// The fields given a value, as HAR's `[{"name","value"}]`.
    private static func writeFields(_ fields: [(String, String?)], into json: inout JSONWriter) {
        json.append(raw: "[")
        var first = true
        for case (let name, let value?) in fields {
            if !first { json.append(raw: ",") }
            first = false
            json.append(raw: "{\"name\":")
            json.append(string: name)
            json.append(raw: ",\"value\":")
            json.append(string: value)
            json.append(raw: "}")
        }
        json.append(raw: "]")
    }
}
