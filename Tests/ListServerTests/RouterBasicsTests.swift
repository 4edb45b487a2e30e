import Testing

@testable import ListServer

@Suite("Router: basics")
struct RouterBasicsTests {
    let router = RouterFixture.router()

    @Test("every success is application/json; charset=utf-8", arguments: ["/items", "/items/42", "/items?page=3"])
    func successContentType(target: String) {
        let response = router.respond(target)
        #expect(response.status == 200)
        #expect(response.headers["Content-Type"] == "application/json; charset=utf-8")
        #expect(response.headers["content-type"] == response.headers["CONTENT-TYPE"])
        #expect(response.jsonObject != nil)
    }

    @Test(
        "HEAD is answered exactly as GET, body included",
        arguments: [
            "/items", "/items?page=2&limit=5", "/items?page=999999", "/items/7", "/items/10000", "/items/x", "/nope",
            "/items?page=0",
        ])
    func headEqualsGet(target: String) {
        let get = router.respond(target, method: .get)
        let head = router.respond(target, method: .head)
        #expect(head.status == get.status)
        #expect(head.headers == get.headers)
        #expect(head.body == get.body)
        #expect(!head.body.isEmpty)
    }

    @Test("HEAD of a detail is routed like GET and gives the same body (the transport leaves it out)")
    func headDetail() async {
        let get = await RouterFixture.router().respondHeld("/items/42/detail", method: .get)
        let head = await RouterFixture.router().respondHeld("/items/42/detail", method: .head)
        #expect(head.status == 200)
        #expect(head.headers == get.headers)
        #expect(head.body == get.body)
    }

    @Test("a router is shared by value across tasks")
    func sendable() async {
        let router = self.router
        let statuses = await withTaskGroup(of: Int.self) { group in
            for page in 1...8 {
                group.addTask { router.respond("/items?page=\(page)").status }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses == Array(repeating: 200, count: 8))
    }
}
