import Testing

@testable import ListServer

@Suite("Request targets: parsing")
struct RequestTargetTests {
    @Test("splits path and query at the first ?")
    func split() throws {
        let target = try RequestTarget("/items?page=2&limit=5?x")
        #expect(target.path == "/items")
        #expect(target.query == "page=2&limit=5?x")
        #expect(try RequestTarget("/items").query == nil)
        #expect(try RequestTarget("/items?").query == "")
    }

    @Test(
        "absolute-form keeps only path and query",
        arguments: [
            ("http://example.com/items?page=2", "/items", "page=2"),
            ("HTTPS://example.com:8443/items/4", "/items/4", nil),
            ("http://example.com", "/", nil),
            ("http://example.com?page=2", "/", "page=2"),
        ] as [(String, String, String?)])
    func absoluteForm(raw: String, path: String, query: String?) throws {
        let target = try RequestTarget(raw)
        #expect(target.path[...] == path[...])
        #expect(target.query.map(String.init) == query)
    }

    @Test("anything but origin- or absolute-form is a 400", arguments: ["", "*", "items", "ftp://x/items", "http:/x"])
    func notOriginForm(raw: String) {
        #expect(throws: Problem.self) { try RequestTarget(raw) }
        do {
            _ = try RequestTarget(raw)
        } catch {
            #expect(error.kind == .invalidRequestTarget)
            #expect(error.status == 400)
        }
    }

    @Test(
        "segments are split on raw slashes, then decoded",
        arguments: [
            ("/items", ["items"]),
            ("/", [""]),
            ("/items/", ["items", ""]),
            ("/items/42/detail", ["items", "42", "detail"]),
            ("/%69tems/%34%32", ["items", "42"]),
            ("/items%2F42", ["items/42"]),
            ("/a+b", ["a+b"]),
            ("//items", ["", "items"]),
        ])
    func segments(raw: String, expected: [String]) throws {
        #expect(try RequestTarget(raw).segments(maximumCount: 3) == expected)
    }

    @Test("paths longer than the longest route are not decoded")
    func tooManySegments() throws {
        #expect(try RequestTarget("/items/42/detail/x").segments(maximumCount: 3) == nil)
        #expect(try RequestTarget("/a/b/c/%zz").segments(maximumCount: 3) == nil)
    }

    @Test("a broken segment is a 400 naming it", arguments: ["/items/%zz", "/items/%4", "/items/4%00", "/%FF"])
    func brokenSegment(raw: String) throws {
        do {
            _ = try RequestTarget(raw).segments(maximumCount: 3)
            Issue.record("\(raw) decoded")
        } catch {
            #expect(error.kind == .invalidRequestTarget)
            #expect(error.detail.hasPrefix("the path segment \""))
        }
    }

    @Test("query items: & and = split, + is a space, empty pairs skipped, repeats kept")
    func queryItems() throws {
        let items = try RequestTarget("/items?a=1&&b=x+y%21&c&d=&=e&a=2&&").queryItems()
        #expect(
            items == [
                QueryItem(name: "a", value: "1"), QueryItem(name: "b", value: "x y!"), QueryItem(name: "c", value: ""),
                QueryItem(name: "d", value: ""), QueryItem(name: "", value: "e"), QueryItem(name: "a", value: "2"),
            ])
        #expect(try RequestTarget("/items?x=a=b").queryItems() == [QueryItem(name: "x", value: "a=b")])
        #expect(try RequestTarget("/items?%70age=%32").queryItems() == [QueryItem(name: "page", value: "2")])
        #expect(try RequestTarget("/items").queryItems().isEmpty)
    }

    @Test("a query without % or + reads the same from its bytes: empty pairs skipped, first = splits, raw UTF-8 kept")
    func plainQueryItems() throws {
        let items = try RequestTarget("/items?a=1&&b=xy&c&d=&=e&a=2&&").queryItems()
        #expect(
            items == [
                QueryItem(name: "a", value: "1"), QueryItem(name: "b", value: "xy"), QueryItem(name: "c", value: ""),
                QueryItem(name: "d", value: ""), QueryItem(name: "", value: "e"), QueryItem(name: "a", value: "2"),
            ])
        #expect(try RequestTarget("/items?x=a=b").queryItems() == [QueryItem(name: "x", value: "a=b")])
        #expect(try RequestTarget("/items?q=café&").queryItems() == [QueryItem(name: "q", value: "café")])
        #expect(try RequestTarget("/items?").queryItems().isEmpty)
        #expect(try RequestTarget("/items?&&").queryItems().isEmpty)
        #expect(try RequestTarget("/items?=").queryItems() == [QueryItem(name: "", value: "")])
    }

    @Test("a path without % is split from its bytes as one with escapes is decoded")
    func plainSegments() throws {
        #expect(try RequestTarget("/café/x").segments(maximumCount: 3) == ["café", "x"])
        #expect(try RequestTarget("/caf%C3%A9/x").segments(maximumCount: 3) == ["café", "x"])
        #expect(try RequestTarget("/a/b/c").segments(maximumCount: 3) == ["a", "b", "c"])
        #expect(try RequestTarget("/a/b/c/").segments(maximumCount: 3) == nil)
        #expect(try RequestTarget("///").segments(maximumCount: 3) == ["", "", ""])
        #expect(try RequestTarget("/items?x=/a/b/c/d").segments(maximumCount: 3) == ["items"])
    }

    @Test("a query item that does not decode names what failed")
    func brokenQueryItem() throws {
        #expect(throws: QueryStringError(name: "page", raw: "%zz", reason: .malformedEscape)) {
            try RequestTarget("/items?page=%zz").queryItems()
        }
        #expect(throws: QueryStringError(name: nil, raw: "pa%zzge", reason: .malformedEscape)) {
            try RequestTarget("/items?pa%zzge=1").queryItems()
        }
        #expect(throws: QueryStringError(name: "_", raw: "%00", reason: .nul)) {
            try RequestTarget("/items?page=1&_=%00").queryItems()
        }
    }
}
