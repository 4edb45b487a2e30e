import Foundation
import ListDomain
import Testing

@testable import ListServer

@Suite("Router: GET /items, pages")
struct RouterPageTests {
    let router = RouterFixture.router(count: 10_000)

    /// The ids of the items in a page body.
    private func ids(_ response: HTTPResponse) -> [UInt64] {
        (response.jsonObject?["items"] as? [[String: Any]] ?? []).compactMap { uint64($0["id"]) }
    }

    @Test("the first page by default: body, X-Total-Count, Link without prev")
    func firstPage() throws {
        let response = router.respond("/items")
        #expect(response.status == 200)
        #expect(response.headers["Content-Type"] == "application/json; charset=utf-8")
        #expect(response.headers["X-Total-Count"] == "10000")
        #expect(
            response.headers["Link"]
                == "</items?page=1&limit=20>; rel=\"first\", </items?page=2&limit=20>; rel=\"next\", "
                + "</items?page=500&limit=20>; rel=\"last\"")
        let json = try #require(response.jsonObject)
        #expect(ids(response) == Array(0..<20))
        #expect(uint64(json["page"]) == 1)
        #expect(uint64(json["limit"]) == 20)
        #expect(uint64(json["total"]) == 10_000)
        #expect(uint64(json["total_pages"]) == 500)
        #expect(uint64(json["next_page"]) == 2)
        #expect(uint64(json["version"]) == 1)  // a fresh catalog, never reset
        #expect(Set(json.keys) == ["items", "page", "limit", "total", "total_pages", "next_page", "version"])
        #expect(response.text.hasSuffix(",\"version\":1}"))
    }

    @Test("the body is exactly the bytes Catalog.writePage writes")
    func bodyIsCatalogPage() {
        let catalog = Catalog(seed: 42, count: 10_000)
        var json = JSONWriter()
        catalog.writePage(catalog.page(3, limit: 7), into: &json)
        #expect(router.respond("/items?page=3&limit=7").body == json.bytes)
    }

    @Test("an item in a page has the documented members")
    func itemMembers() throws {
        let items = try #require(router.respond("/items?limit=1").jsonObject?["items"] as? [[String: Any]])
        let item = try #require(items.first)
        #expect(
            Set(item.keys) == ["id", "label", "author", "width", "height", "color", "blur_hash", "likes", "image_url"])
        #expect(item["image_url"] as? String == "/items/0/image")
        #expect(item["label"] as? String == "Line 0")
    }

    @Test("a middle page links first, prev, next and last with the effective limit")
    func middlePage() throws {
        let response = router.respond("/items?page=3&limit=10")
        #expect(ids(response) == Array(20..<30))
        #expect(
            response.headers["Link"]
                == "</items?page=1&limit=10>; rel=\"first\", </items?page=2&limit=10>; rel=\"prev\", "
                + "</items?page=4&limit=10>; rel=\"next\", </items?page=1000&limit=10>; rel=\"last\"")
    }

    @Test("the last page has no next and a null next_page")
    func lastPage() throws {
        let response = router.respond("/items?page=500")
        #expect(ids(response) == Array(9980..<10_000))
        #expect(response.jsonObject?["next_page"] is NSNull)
        #expect(
            response.headers["Link"]
                == "</items?page=1&limit=20>; rel=\"first\", </items?page=499&limit=20>; rel=\"prev\", "
                + "</items?page=500&limit=20>; rel=\"last\"")
    }

    @Test("a short last page holds the remainder")
    func shortLastPage() {
        let response = RouterFixture.router(count: 45).respond("/items?page=3")
        #expect(ids(response) == Array(40..<45))
        #expect(uint64(response.jsonObject?["total_pages"]) == 3)
    }

    @Test("past the end: 200, no items, next_page null, prev is P-1 and last is the real last page")
    func pastTheEnd() throws {
        let response = router.respond("/items?page=501")
        #expect(response.status == 200)
        #expect(ids(response).isEmpty)
        let json = try #require(response.jsonObject)
        #expect((json["items"] as? [Any])?.isEmpty == true)
        #expect(json["next_page"] is NSNull)
        #expect(response.headers["X-Total-Count"] == "10000")
        #expect(
            response.headers["Link"]
                == "</items?page=1&limit=20>; rel=\"first\", </items?page=500&limit=20>; rel=\"prev\", "
                + "</items?page=500&limit=20>; rel=\"last\"")
    }

    @Test("an empty catalog still links page 1 as first and last")
    func emptyCatalog() throws {
        let response = RouterFixture.router(count: 0).respond("/items")
        #expect(response.status == 200)
        #expect(ids(response).isEmpty)
        #expect(uint64(response.jsonObject?["total_pages"]) == 0)
        #expect(response.headers["X-Total-Count"] == "0")
        #expect(
            response.headers["Link"]
                == "</items?page=1&limit=20>; rel=\"first\", </items?page=1&limit=20>; rel=\"last\"")
    }

    @Test("the deepest page of a 2^53-item catalog costs what page 1 costs")
    func deepestPage() throws {
        let huge = RouterFixture.router(count: Catalog.maximumCount)
        // ceil(2^53 / 20) = 450359962737050 pages; the last holds ids 2^53-12 ... 2^53-1.
        let response = huge.respond("/items?page=450359962737050")
        #expect(response.status == 200)
        #expect(ids(response) == Array((1 << 53) - 12..<(1 << 53)))
        #expect(response.headers["X-Total-Count"] == "9007199254740992")
        #expect(response.jsonObject?["next_page"] is NSNull)
        #expect(
            response.headers["Link"]
                == "</items?page=1&limit=20>; rel=\"first\", </items?page=450359962737049&limit=20>; rel=\"prev\", "
                + "</items?page=450359962737050&limit=20>; rel=\"last\"")

        let lastItem = huge.respond("/items?page=9007199254740992&limit=1")
        #expect(ids(lastItem) == [(1 << 53) - 1])
        #expect(lastItem.text.contains("\"id\":9007199254740991,"))
        #expect(uint64(lastItem.jsonObject?["total_pages"]) == 1 << 53)

        let beyond = huge.respond("/items?page=9007199254740992&limit=100")
        #expect(beyond.status == 200)
        #expect(ids(beyond).isEmpty)
    }

    @Test("unknown parameters (cache-busters) are ignored, encoded names and values are decoded")
    func extraParameters() {
        let plain = router.respond("/items?page=2&limit=5")
        #expect(router.respond("/items?_=1700000000000&page=2&limit=5&Page=9&v").body == plain.body)
        #expect(router.respond("/items?%70age=%32&limit=5").body == plain.body)
        #expect(router.respond("/items?limit=5&page=2").body == plain.body)
        #expect(router.respond("/items?page=002&limit=05").body == plain.body)
        #expect(router.respond("http://localhost:8080/items?page=2&limit=5").body == plain.body)
    }

    @Test("limit at both ends of its range", arguments: [1, 100])
    func limitEdges(limit: Int) {
        let response = router.respond("/items?limit=\(limit)")
        #expect(response.status == 200)
        #expect(ids(response).count == limit)
        #expect(response.headers["Link"]?.contains("limit=\(limit)>") == true)
    }
}
