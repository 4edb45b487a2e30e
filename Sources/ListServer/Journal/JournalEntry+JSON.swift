/// The JSON of journal entries: `GET /admin/journal`'s `entries` and its event stream's `data`.
///
/// ```
/// {"seq":7,"t_ms":1520.112,"client":"tab-1","method":"GET","target":"/items/3/detail","route":"/items/{id}/detail",
///  "status":200,"bytes":37,"duration_ms":1203.551,"aborted":false,"received_bytes":null,"fault":null,
///  "if_none_match":null,"if_match":null,"idempotency_key":null,"range":null,"last_event_id":null,
///  "etag":"\"d3-1\"","retry_after_s":null}
/// ```
/// `t_ms` counts from the dataset's first request (since the journal began or was emptied); `received_bytes` is
/// what an aborted request's client got of the body.
extension JournalEntry {
    /// Writes the entry as one JSON object; `origin` is the journal's first request's start.
    func write(into json: inout JSONWriter, origin: Int64?) {
        json.append(raw: "{\"seq\":")
        json.append(integer: seq)
        json.append(raw: ",\"t_ms\":")
        Self.appendMilliseconds(start - (origin ?? start), to: &json)
        json.append(raw: ",\"client\":")
        json.append(string: client)
        json.append(raw: ",\"method\":")
        json.append(string: method.name)
        json.append(raw: ",\"target\":")
        json.append(string: target)
        json.append(raw: ",\"route\":")
        json.append(string: route)
        json.append(raw: ",\"status\":")
        json.append(integer: status)
        json.append(raw: ",\"bytes\":")
        json.append(integer: bytes)
        json.append(raw: ",\"duration_ms\":")
        Self.appendMilliseconds(duration, to: &json)
        json.append(raw: aborted ? ",\"aborted\":true,\"received_bytes\":" : ",\"aborted\":false,\"received_bytes\":")
        Self.append(abandonedAt, to: &json)
        json.append(raw: ",\"fault\":")
        Self.append(fault, to: &json)
        json.append(raw: ",\"if_none_match\":")
        Self.append(ifNoneMatch, to: &json)
        json.append(raw: ",\"if_match\":")
        Self.append(ifMatch, to: &json)
        json.append(raw: ",\"idempotency_key\":")
        Self.append(idempotencyKey, to: &json)
        json.append(raw: ",\"range\":")
        Self.append(range, to: &json)
        json.append(raw: ",\"last_event_id\":")
        Self.append(lastEventID, to: &json)
        json.append(raw: ",\"etag\":")
        Self.append(etag, to: &json)
        json.append(raw: ",\"retry_after_s\":")
        Self.append(retryAfter, to: &json)
        json.append(raw: "}")
    }

    /// `micros` as milliseconds with three decimals (`1520.112`), negative ones as 0.
    static func appendMilliseconds(_ micros: Int64, to json: inout JSONWriter) {
        let micros = max(0, micros)
        json.append(integer: Int(micros / 1000))
        let fraction = Int(micros % 1000)
        json.append(raw: fraction < 10 ? ".00" : fraction < 100 ? ".0" : ".")
        json.append(integer: fraction)
    }

    private static func append(_ text: String?, to json: inout JSONWriter) {
        if let text { json.append(string: text) } else { json.appendNull() }
    }

    private static func append(_ number: Int?, to json: inout JSONWriter) {
        if let number { json.append(integer: number) } else { json.appendNull() }
    }
}
