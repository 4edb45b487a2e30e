import Foundation
import Testing

@testable import ListServer

/// Cursor paging on `/items`: the parameters, the body, the Link header, and the 400s.
@Suite("Router: GET /items with a cursor")
struct RouterCursorTests {
    let router = RouterFixture.router(count: 100)

    func ids(_ response: HTTPResponse) -> [UInt64] {
        ((response.jsonObject?["items"] as? [[String: Any]]) ?? []).compactMap { uint64($0["id"]) }
    }

    @Test("after walks forward, before walks back, desc starts at the newest")
    func walks() throws {
        let first = router.respond("/items?after=10&limit=3")
        #expect(first.status == 200)
        #expect(ids(first) == [11, 12, 13])
        let body = try #require(first.jsonObject)
        #expect(body["has_more"] as? Bool == true)
        #expect(uint64(body["next_cursor"]) == 13)
        #expect(body["order"] as? String == "asc")
        #expect(uint64(body["limit"]) == 3)
        #expect(uint64(body["total"]) == 100)
        #expect(uint64(body["version"]) == 1)
        #expect(first.headers["Link"] == "</items?after=13&order=asc&limit=3>; rel=\"next\"")
        #expect(first.headers["X-Total-Count"] == "100")

        #expect(ids(router.respond("/items?before=10&limit=3")) == [7, 8, 9])
        #expect(ids(router.respond("/items?order=desc&limit=3")) == [99, 98, 97])
        #expect(ids(router.respond("/items?order=desc&after=97&limit=2")) == [96, 95])
        let end = router.respond("/items?after=98&limit=5")
        #expect(ids(end) == [99])
        #expect(end.jsonObject?["has_more"] as? Bool == false)
        #expect(uint64(end.jsonObject?["next_cursor"]) == 99, "the client polls from the last item for new ones")
        #expect(end.headers["Link"] == nil)
    }

    @Test(
        "cursor parameters are checked",
        arguments: [
            ("/items?after=1&before=5", "before"), ("/items?page=2&after=1", "page"), ("/items?order=up", "order"),
            ("/items?after=-1", "after"), ("/items?before=x", "before"), ("/items?after=1&after=2", "after"),
            ("/items?order=asc&order=desc", "order"), ("/items?after=9007199254740993", "after"),
        ])
    func badParameters(target: String, parameter: String) {
        let response = router.respond(target)
        #expect(response.status == 400)
        #expect(response.jsonObject?["parameter"] as? String == parameter)
        #expect(response.jsonObject?["type"] as? String == "urn:listserver:problem:invalid-parameter")
    }
}
