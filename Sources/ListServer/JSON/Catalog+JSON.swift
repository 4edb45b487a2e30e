package import ListDomain

/// The page path's JSON: generated items written straight from the catalog into the response's bytes, the same
/// bytes as the field-by-field path of `Item+JSON.swift`.
extension Catalog {
    /// Writes item `id` as JSON: the same bytes as `item(id)?.writeJSON(into:)`, or `null` when `id >= count`.
    ///
    /// This is the page path, so it builds no `String`: the label is `Line ` plus the digits of the id, the
    /// author is copied from a table of pre-encoded names, the colour is written as hex digits.
    package func writeItem(_ id: UInt64, into json: inout JSONWriter) {
        guard id < count else {
            json.appendNull()
            return
        }
        withPlaceholders(of: id..<id + 1, descending: false) { placeholders in
            writeItem(id, placeholder: placeholders, into: &json)
        }
    }

    /// Calls `body` with the placeholders of the items of `ids`, lowest first or highest first,
    /// ``PhotoPlaceholders/hashBytes`` each, filled from the shared table under one lock (``PhotoPlaceholders``) into
    /// scratch on the stack (an array a page was an allocation and its zeroing, callgrind).
    @inline(__always)
    private func withPlaceholders(of ids: Range<UInt64>, descending: Bool, _ body: (Span<UInt8>) -> Void) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(1, ids.count) * PhotoPlaceholders.hashBytes) {
            scratch in
            scratch.initialize(repeating: 0)
            var placeholders = scratch.mutableSpan
            PhotoPlaceholders.shared.fill(&placeholders, count: ids.count) { index in
                let id = descending ? ids.upperBound - 1 - UInt64(index) : ids.lowerBound + UInt64(index)
                return (id, generatedColor(of: id))
            }
            body(placeholders.span)
        }
    }

    /// Writes item `id` (below ``count``) with its placeholder, the first ``PhotoPlaceholders/hashBytes`` of
    /// `placeholder`.
    @inline(__always)
    private func writeItem(_ id: UInt64, placeholder: Span<UInt8>, into json: inout JSONWriter) {
        let fields = ItemFields(seed: seed, id: id)
        // Room for the largest item once, then every field written into it without a check of its own (a check per
        // field cost about 2k instructions a page, callgrind, issue 16): the literals are 116 bytes, the six
        // integers at most 20 digits each, the colour 6, the placeholder 28 (``Self.maximumItemBytes`` leaves room
        // to spare; a write past it would trap, never grow or overrun).
        json.reserve(Self.maximumItemBytes)
        json.appendReserved(raw: "{\"id\":")
        json.appendReserved(integer: id)
        json.appendReserved(raw: ",\"label\":\"Line ")
        json.appendReserved(integer: id)
        json.appendReserved(raw: "\",\"author\":")
        json.appendReserved(encoded: AuthorTable.encoded[fields.authorIndex])
        json.appendReserved(raw: ",\"width\":")
        json.appendReserved(integer: fields.width)
        json.appendReserved(raw: ",\"height\":")
        json.appendReserved(integer: fields.height)
        json.appendReserved(raw: ",\"color\":\"#")
        json.appendReserved(hex24: fields.color)
        json.appendReserved(raw: "\"")
        json.appendReserved(placeholder: placeholder)
        json.appendReserved(raw: ",\"likes\":")
        json.appendReserved(integer: fields.likes)
        json.appendReservedImageURLStart()
        json.appendReserved(integer: id)
        json.appendReserved(raw: "/image\"}")
    }

    /// At least the bytes of the largest item ``writeItem(_:into:)`` writes: 116 of literals, six integers of up to
    /// 20 digits, six hex digits, the placeholder and the longest author, rounded up, and the longest base path.
    static let maximumItemBytes =
        256 + PhotoPlaceholders.hashBytes + AuthorTable.maximumEncodedCount + JSONWriter.maximumBasePathBytes

    /// Writes a whole page body:
    /// `{"items":[…],"page":P,"limit":L,"total":N,"total_pages":T,"next_page":P+1 or null,"version":V}`.
    ///
    /// The items are those of `page.ids` (none past the end); the numbers are the page's own. In descending
    /// order (newest first) the page's positions count from the end: position `i` is item `total - 1 - i`, so page 1
    /// holds the highest ids, and page numbers drift when the list grows.
    ///
    /// - Parameters:
    ///   - page: The page to write.
    ///   - order: Ascending ids (the default) or descending.
    ///   - version: The version of the catalog the page was taken from (``ListHeader/version``); 1 for a
    ///     catalog that is never reset.
    ///   - json: The writer to append to.
    package func writePage(_ page: Page, order: ListOrder = .asc, version: UInt64 = 1, into json: inout JSONWriter) {
        switch order {
        case .asc: writeItems(page.ids, descending: false, into: &json)
        // Positions p ..< q counted from the end are the ids total - q ..< total - p, highest first.
        case .desc:
            writeItems(
                (page.total - page.ids.upperBound)..<(page.total - page.ids.lowerBound), descending: true, into: &json)
        }
        Self.writePageEnvelope(page, version: version, into: &json)
    }

    /// Writes what follows a page's items: `,"page":P,…,"version":V}`.
    package static func writePageEnvelope(_ page: Page, version: UInt64, into json: inout JSONWriter) {
        json.append(raw: ",\"page\":")
        json.append(integer: page.number)
        json.append(raw: ",\"limit\":")
        json.append(integer: page.limit)
        json.append(raw: ",\"total\":")
        json.append(integer: page.total)
        json.append(raw: ",\"total_pages\":")
        json.append(integer: page.totalPages)
        json.append(raw: ",\"next_page\":")
        json.append(optional: page.nextPage)
        json.append(raw: ",\"version\":")
        json.append(integer: version)
        json.append(raw: "}")
    }

    /// Writes a whole cursor page body: `{"items":[…],"has_more":true,"next_cursor":123 or null,"order":"asc",
    /// "limit":20,"total":N,"version":V}`, the items in list order.
    ///
    /// - Parameters:
    ///   - page: The page to write; its items past this catalog's count (none, if the page was computed from it)
    ///     are written as `null`.
    ///   - version: The version of the catalog the page was taken from (``ListHeader/version``).
    ///   - json: The writer to append to.
    package func writeCursorPage(_ page: CursorPage, version: UInt64, into json: inout JSONWriter) {
        writeItems(page.idRange, descending: page.order == .desc, into: &json)
        Self.writeCursorEnvelope(
            hasMore: page.hasMore, nextCursor: page.nextCursor, order: page.order, limit: page.limit, total: page.total,
            version: version, into: &json)
    }

    /// Writes what follows a cursor page's items: `,"has_more":B,…,"version":V}`.
    package static func writeCursorEnvelope(
        hasMore: Bool, nextCursor: UInt64?, order: ListOrder, limit: UInt64, total: UInt64, version: UInt64,
        into json: inout JSONWriter
    ) {
        json.append(raw: hasMore ? ",\"has_more\":true" : ",\"has_more\":false")
        json.append(raw: ",\"next_cursor\":")
        json.append(optional: nextCursor)
        switch order {
        case .asc: json.append(raw: ",\"order\":\"asc\"")
        case .desc: json.append(raw: ",\"order\":\"desc\"")
        }
        json.appendEnvelopeEnd(limit: limit, total: total, version: version)
    }

    /// Writes `{"items":[` and the items of `ids`, lowest first or highest first, then `]`.
    ///
    /// A range and a direction rather than any `Sequence`: this is the page path, and a generic sequence here was
    /// left unspecialized by the compiler, which cost a retain and release per item (perf, Benchmarks/HISTORY.md).
    private func writeItems(_ ids: Range<UInt64>, descending: Bool, into json: inout JSONWriter) {
        json.append(raw: "{\"items\":[")
        // The page's placeholders first, under one lock of the table, then the items.
        let width = PhotoPlaceholders.hashBytes
        withPlaceholders(of: ids, descending: descending) { placeholders in
            for index in 0..<ids.count {
                if index > 0 {
                    json.append(raw: ",")
                }
                let id = descending ? ids.upperBound - 1 - UInt64(index) : ids.lowerBound + UInt64(index)
                guard id < count else {
                    json.appendNull()
                    continue
                }
                writeItem(
                    id, placeholder: placeholders.extracting((index * width)..<(index * width + width)), into: &json)
            }
        }
        json.append(raw: "]")
    }
}

extension JSONWriter {
    /// Appends `value` in decimal, or `null` when it is `nil`.
    mutating func append(optional value: UInt64?) {
        if let value {
            append(integer: value)
        } else {
            appendNull()
        }
    }

    /// `,"limit":L,"total":N,"version":V}`: how a cursor page's envelope ends, of items, conversations or messages.
    mutating func appendEnvelopeEnd(limit: UInt64, total: UInt64, version: UInt64) {
        append(raw: ",\"limit\":")
        append(integer: limit)
        append(raw: ",\"total\":")
        append(integer: total)
        append(raw: ",\"version\":")
        append(integer: version)
        append(raw: "}")
    }
}
