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

    /// ``encoded`` packed for the message page path: a name is a store or two into the page's bytes, where an
    /// array of ``encoded`` is a retain, a release and a `memmove` call (a tenth of a page of messages' own work,
    /// `ListBenchmarks`).
    static let packed = PackedText(encoded)

    /// The longest of ``encoded``.
    static let maximumEncodedCount = encoded.map(\.count).max() ?? 0
}
