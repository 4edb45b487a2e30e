import ListDomain

extension AuthorTable {
    /// Each name as a complete JSON string (quotes included), encoded once so the page path copies bytes.
    ///
    /// Built with ``JSONWriter/append(string:)`` itself, so the fast path and the general path cannot disagree.
    static let encoded: [[UInt8]] = names.map { name in
        var json = JSONWriter(capacity: name.utf8.count + 2)
        json.append(string: name)
        return json.bytes
    }

    /// The longest of ``encoded``.
    static let maximumEncodedCount = encoded.map(\.count).max() ?? 0
}
