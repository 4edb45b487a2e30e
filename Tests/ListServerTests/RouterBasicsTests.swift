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

@Suite("Router: a page of messages found without splitting its path")
struct RouterMessagesPathTests {
    let router = RouterFixture.router()

    @Test(
        "only a plain /conversations/<digits>/messages is found so",
        arguments: [
            ("/conversations/12/messages", "12"), ("/conversations/0/messages", "0"),
            ("/conversations//messages", nil), ("/conversations/1a/messages", nil),
            ("/conversations/%31/messages", nil), ("/conversations/12/messages/", nil),
            ("/conversations/messages", nil), ("/conversations/12/message", nil), ("/items", nil), ("", nil),
            ("/", nil), ("/conversations/1/messages?limit=5", nil), ("/conversations/\u{0661}/messages", nil),
            ("/d/x/conversations/1/messages", nil),  // `locate` gives it the path after the base
        ] as [(String, String?)])
    func plainPath(path: String, id: String?) {
        #expect(Router.messagesPathID(Substring(path)) == id)
    }

    /// The plain target is found by ``Router/messagesPathID(_:)``, the escaped one by the segments.
    @Test(
        "the pages it finds are the pages the segments find",
        arguments: [
            ("/conversations/3/messages?limit=5", "/conversations/%33/messages?limit=5", HTTPMethod.get, 200),
            ("/conversations/3/messages?limit=5", "/conversations/%33/messages?limit=5", .head, 200),
            ("/d/default/conversations/3/messages", "/d/default/conversations/%33/messages", .get, 200),
            ("/conversations/99999/messages", "/conversations/9999%39/messages", .get, 404),
            ("/conversations/3/messages", "/conversations/%33/messages", .put, 405),
        ])
    func samePages(plain: String, escaped: String, method: HTTPMethod, status: Int) {
        let fast = router.respond(plain, method: method)
        let split = router.respond(escaped, method: method)
        #expect(fast.status == status)
        #expect(split.status == status)
        if status == 200 { #expect(fast.body == split.body) }  // a problem may quote the path as it came
    }
}
