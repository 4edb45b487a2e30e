extension Catalog {
    /// Writes item `id` as JSON: the same bytes as `item(id)?.writeJSON(into:)`, or `null` when `id >= count`.
    ///
    /// This is the page path, so it builds no `String`: the label is `Line ` plus the digits of the id, the
    /// author is copied from a table of pre-encoded names, the colour is written as hex digits.
    public func writeItem(_ id: UInt64, into json: inout JSONWriter) {
        guard id < count else {
            json.appendNull()
            return
        }
        let fields = ItemFields(seed: seed, id: id)
        json.append(raw: "{\"id\":")
        json.append(integer: id)
        json.append(raw: ",\"label\":\"Line ")
        json.append(integer: id)
        json.append(raw: "\",\"author\":")
        json.append(encoded: AuthorTable.encoded[fields.authorIndex])
        json.append(raw: ",\"width\":")
        json.append(integer: fields.width)
        json.append(raw: ",\"height\":")
        json.append(integer: fields.height)
        json.append(raw: ",\"color\":\"#")
        json.append(hex24: fields.color)
        json.append(raw: "\",\"likes\":")
        json.append(integer: fields.likes)
        json.append(raw: "}")
    }

    /// Writes a whole page body:
    /// `{"items":[…],"page":P,"limit":L,"total":N,"total_pages":T,"next_page":P+1 or null}`.
    ///
    /// The items are those of `page.ids` (none past the end); the numbers are the page's own.
    public func writePage(_ page: Page, into json: inout JSONWriter) {
        json.append(raw: "{\"items\":[")
        var first = true
        for id in page.ids {
            if first {
                first = false
            } else {
                json.append(raw: ",")
            }
            writeItem(id, into: &json)
        }
        json.append(raw: "],\"page\":")
        json.append(integer: page.number)
        json.append(raw: ",\"limit\":")
        json.append(integer: page.limit)
        json.append(raw: ",\"total\":")
        json.append(integer: page.total)
        json.append(raw: ",\"total_pages\":")
        json.append(integer: page.totalPages)
        json.append(raw: ",\"next_page\":")
        if let next = page.nextPage {
            json.append(integer: next)
        } else {
            json.appendNull()
        }
        json.append(raw: "}")
    }
}
