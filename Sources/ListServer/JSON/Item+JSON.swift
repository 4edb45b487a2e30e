package import ListDomain

/// How items and details are written on the wire: the field-by-field path (``Catalog/writeItem(_:into:)`` is the
/// page path's fast twin).
extension Item {
    /// Writes the item as a JSON object, field by field through the general-purpose writer calls.
    ///
    /// ``Catalog/writeItem(_:into:)`` writes the same bytes without building the item's strings.
    package func writeJSON(into json: inout JSONWriter) {
        json.append(raw: "{\"id\":")
        json.append(integer: id)
        json.append(raw: ",\"label\":")
        json.append(string: label)
        json.append(raw: ",\"author\":")
        json.append(string: author)
        json.append(raw: ",\"width\":")
        json.append(integer: width)
        json.append(raw: ",\"height\":")
        json.append(integer: height)
        json.append(raw: ",\"color\":")
        json.append(string: color)
        json.append(raw: ",\"blur_hash\":")
        if let blurHash { json.append(string: blurHash) } else { json.appendNull() }
        json.append(raw: ",\"likes\":")
        json.append(integer: likes)
        json.appendImageURLStart()
        json.append(integer: id)
        json.append(raw: "/image\"}")
    }
}

extension ItemDetail {
    /// Writes the detail as a JSON object: `{"id":42,"amount":0.42151234}`.
    package func writeJSON(into json: inout JSONWriter) {
        json.append(raw: "{\"id\":")
        json.append(integer: id)
        json.append(raw: ",\"amount\":")
        json.append(double: amount)
        json.append(raw: "}")
    }
}
