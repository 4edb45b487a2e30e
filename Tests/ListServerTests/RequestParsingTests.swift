import Testing

@testable import ListServer

@Suite("Percent-decoding")
struct PercentDecodingParsingTests {
    @Test("decodes escapes in either case, and + only in query components")
    func decodes() throws {
        #expect(try PercentDecoding.decode("a%20b", plusAsSpace: false) == "a b")
        #expect(try PercentDecoding.decode("%2f%2F", plusAsSpace: false) == "//")
        #expect(try PercentDecoding.decode("a+b", plusAsSpace: false) == "a+b")
        #expect(try PercentDecoding.decode("a+b", plusAsSpace: true) == "a b")
        #expect(try PercentDecoding.decode("%2B1", plusAsSpace: true) == "+1")
        #expect(try PercentDecoding.decode("%C3%A9t%C3%A9", plusAsSpace: true) == "été")
        #expect(try PercentDecoding.decode("plain", plusAsSpace: true) == "plain")
        #expect(try PercentDecoding.decode("", plusAsSpace: true) == "")
    }

    @Test("a % must be followed by two hex digits", arguments: ["%zz", "%4", "%", "a%", "%g0", "%0g", "%%41", "%-1"])
    func malformed(raw: String) {
        #expect(throws: PercentDecodingError.malformedEscape) {
            try PercentDecoding.decode(raw[...], plusAsSpace: true)
        }
    }

    @Test("%00 is refused")
    func nul() {
        #expect(throws: PercentDecodingError.nul) { try PercentDecoding.decode("1%00", plusAsSpace: true) }
    }

    @Test("decoded bytes must be UTF-8", arguments: ["%FF", "%C3", "%C3%28", "%ED%A0%80", "%C0%AF", "a%80b"])
    func invalidUTF8(raw: String) {
        #expect(throws: PercentDecodingError.invalidUTF8) {
            try PercentDecoding.decode(raw[...], plusAsSpace: false)
        }
    }
}

@Suite("Request-target parsing")
struct RequestTargetParsingTests {
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

@Suite("Plain decimal integers and page/limit validation")
struct PageQueryParsingTests {
    @Test(
        "plain decimals: ASCII digits only, fitting 64 bits",
        arguments: [
            ("0", 0), ("7", 7), ("007", 7), ("9007199254740992", 9_007_199_254_740_992),
            ("18446744073709551615", UInt64.max), ("00000000000000000000000001", 1),
        ] as [(String, UInt64)])
    func plainDecimal(text: String, value: UInt64) {
        #expect(UInt64(plainDecimal: text) == value)
    }

    @Test(
        "everything else is not a plain decimal",
        arguments: [
            "", "-1", "+1", " 1", "1 ", "1.5", "1e3", "0x10", "abc", "1_000", "١", "１", "18446744073709551616",
            "99999999999999999999999999",
        ])
    func notPlainDecimal(text: String) {
        #expect(UInt64(plainDecimal: text) == nil)
    }

    private func query(
        _ raw: String, _ paging: PagingSettings = PagingSettings(defaultLimit: 20, maxLimit: 100)
    ) throws(Problem) -> PageQuery {
        try PageQuery(target: RequestTarget("/items" + raw), paging: paging)
    }

    @Test("defaults, explicit values, cache-busters and range edges")
    func valid() throws {
        #expect(try query("") == PageQuery(page: 1, limit: 20))
        #expect(try query("?") == PageQuery(page: 1, limit: 20))
        #expect(try query("?page=3&limit=7") == PageQuery(page: 3, limit: 7))
        #expect(try query("?_=1700000000000&page=2&Page=9&foo&limit=100") == PageQuery(page: 2, limit: 100))
        #expect(try query("?page=9007199254740992&limit=1") == PageQuery(page: 1 << 53, limit: 1))
        #expect(try query("", PagingSettings(defaultLimit: 5, maxLimit: 10)) == PageQuery(page: 1, limit: 5))
    }

    @Test("limit above paging.maxLimit names the configured range")
    func limitRange() throws {
        do {
            _ = try query("?limit=11", PagingSettings(defaultLimit: 5, maxLimit: 10))
            Issue.record("limit=11 accepted")
        } catch {
            #expect(error.parameter == "limit")
            #expect(error.detail == "query parameter \"limit\" must be a decimal integer in 1...10, got \"11\"")
        }
    }

    @Test("a repeated parameter is refused even with equal values", arguments: ["page", "limit"])
    func repeated(name: String) throws {
        do {
            _ = try query("?\(name)=5&\(name)=5")
            Issue.record("repeated \(name) accepted")
        } catch {
            #expect(error.kind == .invalidParameter)
            #expect(error.parameter == name)
            #expect(error.detail.contains("twice (\"5\" and \"5\")"))
        }
    }

    @Test("values in details are escaped and cut to 64 scalars")
    func quoting() {
        #expect(Problem.quoted("abc") == "\"abc\"")
        #expect(Problem.quoted("a\"b\\c") == "\"a\\\"b\\\\c\"")
        #expect(Problem.quoted("\n\u{1B}\u{7F}é\u{202E}") == "\"\\u{a}\\u{1b}\\u{7f}\\u{e9}\\u{202e}\"")
        let long = String(repeating: "x", count: 64)
        #expect(Problem.quoted(long) == "\"\(long)\"")
        #expect(Problem.quoted(long + "yz") == "\"\(long)\"...")
    }
}
