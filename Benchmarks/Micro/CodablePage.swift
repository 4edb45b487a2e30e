import ListDomain
import ListServer

/// The page body as `Codable` values, for contrast with the hand-written writer: the same keys and values as
/// `Catalog.writePage`, encoded with `JSONEncoder` (key order and `/` escaping may differ; the size does not).
struct CodablePage: Encodable {
    /// One item, with the keys of the page body.
    struct Entry: Encodable {
        let id: UInt64
        let label: String
        let author: String
        let width: Int
        let height: Int
        let color: String
        let likes: Int
    }

    let items: [Entry]
    let page: UInt64
    let limit: UInt64
    let total: UInt64
    let totalPages: UInt64
    let nextPage: UInt64?

    private enum CodingKeys: String, CodingKey {
        case items, page, limit, total
        case totalPages = "total_pages"
        case nextPage = "next_page"
    }

    /// Builds the page the way a straightforward server would: an `Item` per id, then plain values.
    init(catalog: Catalog, page: Page) {
        items = page.ids.compactMap { id in
            catalog.item(id).map { item in
                Entry(
                    id: item.id, label: item.label, author: item.author, width: item.width,
                    height: item.height, color: item.color, likes: item.likes)
            }
        }
        self.page = page.number
        limit = page.limit
        total = page.total
        totalPages = page.totalPages
        nextPage = page.nextPage
    }

    /// Encodes `next_page` as `null` on the last page, as the page body does (synthesised code would omit it).
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(items, forKey: .items)
        try container.encode(page, forKey: .page)
        try container.encode(limit, forKey: .limit)
        try container.encode(total, forKey: .total)
        try container.encode(totalPages, forKey: .totalPages)
        try container.encode(nextPage, forKey: .nextPage)
    }
}
