package import ListDomain

/// How items of a list with writes are written: the generated fast path for every item nobody wrote, the
/// field-by-field path (``Item/writeJSON(into:)``) for those with written fields.
extension ListState {
    /// Writes item `id` (a live id) as a JSON object.
    package func writeItem(_ id: UInt64, into json: inout JSONWriter) {
        if let written = written[id], let generated = catalog.item(id) {
            written.applied(to: generated).writeJSON(into: &json)
        } else {
            catalog.writeItem(id, into: &json)
        }
    }

    /// Writes `{"items":[` and the items of `ids` in the order given, then `]`.
    package func writeItems(_ ids: [UInt64], into json: inout JSONWriter) {
        json.append(raw: "{\"items\":[")
        for (index, id) in ids.enumerated() {
            if index > 0 { json.append(raw: ",") }
            writeItem(id, into: &json)
        }
        json.append(raw: "]")
    }
}
