import ListDomain
import Testing

@testable import ListServer

@Suite("Router: GET /items/<id>")
struct RouterItemTests {
    let router = RouterFixture.router(count: 10_000)
    let catalog = Catalog(seed: 42, count: 10_000)

    @Test("an item alone: the bytes Catalog.writeItem writes", arguments: [0, 42, 9999] as [UInt64])
    func item(id: UInt64) throws {
        let response = router.respond("/items/\(id)")
        #expect(response.status == 200)
        #expect(response.headers["Content-Type"] == "application/json; charset=utf-8")
        var json = JSONWriter()
        catalog.writeItem(id, into: &json)
        #expect(response.body == json.bytes)
        let object = try #require(response.jsonObject)
        #expect(uint64(object["id"]) == id)
        #expect(object["label"] as? String == "Line \(id)")
    }

    @Test("the id segment is percent-decoded; leading zeros are allowed")
    func equivalentSpellings() {
        let canonical = router.respond("/items/42").body
        #expect(router.respond("/items/%34%32").body == canonical)
        #expect(router.respond("/items/042").body == canonical)
        #expect(router.respond("/%69tems/42").body == canonical)
    }

    @Test("an id past the end is a 404", arguments: ["10000", "9007199254740991", "18446744073709551615"])
    func pastTheEnd(id: String) throws {
        let response = router.respond("/items/\(id)")
        #expect(response.status == 404)
        #expect(response.headers["Content-Type"] == "application/problem+json")
        let json = try #require(response.jsonObject)
        #expect(json["type"] as? String == "urn:listserver:problem:not-found")
        #expect(json["detail"] as? String == "there is no item \(id) (ids run from 0 to 9999)")
    }

    @Test("in an empty list every id is a 404")
    func emptyCatalog() throws {
        let response = RouterFixture.router(count: 0).respond("/items/0")
        #expect(response.status == 404)
        #expect(response.jsonObject?["detail"] as? String == "there is no item 0 (the list is empty)")
    }

    @Test(
        "a non-integer or overflowing id is a 400",
        arguments: [
            "abc", "-1", "+1", "1.5", "1e3", "0x2A", "%201", "4%202", "%EF%BC%94", "18446744073709551616",
            "99999999999999999999999999",
        ])
    func invalidID(id: String) throws {
        let response = router.respond("/items/\(id)")
        #expect(response.status == 400)
        #expect(response.headers["Content-Type"] == "application/problem+json")
        let json = try #require(response.jsonObject)
        #expect(json["type"] as? String == "urn:listserver:problem:invalid-id")
        #expect(json["title"] as? String == "Invalid item id")
        #expect(uint64(json["status"]) == 400)
        let detail = try #require(json["detail"] as? String)
        #expect(detail.hasPrefix("the item id \""))
        #expect(detail.hasSuffix("(ids run from 0 to 9999)"))
    }

    @Test("the detail says whether the id is not an integer or too large")
    func invalidIDDetail() {
        #expect(
            router.respond("/items/abc").jsonObject?["detail"] as? String
                == "the item id \"abc\" is not a plain decimal integer (ids run from 0 to 9999)")
        #expect(
            router.respond("/items/18446744073709551616").jsonObject?["detail"] as? String
                == "the item id \"18446744073709551616\" is too large (ids run from 0 to 9999)")
    }

    @Test("a broken escape in the id is a 400 for the request target", arguments: ["%zz", "4%2", "%00", "%C3"])
    func brokenEscape(id: String) {
        let response = router.respond("/items/\(id)")
        #expect(response.status == 400)
        #expect(response.jsonObject?["type"] as? String == "urn:listserver:problem:invalid-request-target")
    }

    @Test("the query of an item request is not read")
    func queryIgnored() {
        #expect(router.respond("/items/42?page=0&limit=abc").body == router.respond("/items/42").body)
    }
}
