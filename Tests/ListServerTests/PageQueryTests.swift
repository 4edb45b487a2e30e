import Testing

@testable import ListServer

@Suite("Page queries: plain decimal integers, page and limit validation")
struct PageQueryTests {
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

@Suite("Page queries: the plain fast path agrees with the full reading")
struct PageQueryPlainTests {
    private let paging = PagingSettings(defaultLimit: 20, maxLimit: 100)

    /// What the full reading makes of `raw`: the query, or the problem's detail.
    private func fullReading(_ raw: String) -> Result<PageQuery, Problem> {
        Result { () throws(Problem) in try PageQuery(decoding: RequestTarget("/items" + raw), paging: paging) }
    }

    @Test(
        "plain queries read the same both ways",
        arguments: [
            "", "?", "?page=3", "?limit=7", "?page=3&limit=7", "?limit=7&page=3", "?page=2&order=desc",
            "?order=asc&page=1", "?_=1700000000000&page=2&Page=9&foo&limit=100", "?page=9007199254740992&limit=1",
            "?page=007&limit=020", "?&&page=4&&", "?=5&page=2", "?a.b-c_d~e=f&page=5", "?pagex=3&limit=9",
        ])
    func agrees(raw: String) throws {
        let plain = try #require(PageQuery.plain(try RequestTarget("/items" + raw).query, paging: paging))
        #expect(try fullReading(raw).get() == plain)
    }

    @Test(
        "anything else is left to the full reading, which accepts or refuses it",
        arguments: [
            "?page=0", "?page=9007199254740993", "?limit=101", "?limit=0", "?page=", "?page", "?page=1&page=1",
            "?limit=5&limit=6", "?order=desc", "?order=sideways&page=1", "?order=asc&order=asc&page=1", "?after=5",
            "?before=5&limit=3", "?page=%31", "?page=1&x=a+b", "?page=1&x=%zz", "?page=1&x=%C3", "?page=-1",
            "?page=1.5", "?page=18446744073709551616", "?page=1&x=a=b", "?page=1;limit=2", "?page=1&x=é",
        ])
    func declines(raw: String) throws {
        #expect(PageQuery.plain(try RequestTarget("/items" + raw).query, paging: paging) == nil)
    }

    @Test("random queries of plain and unplain pieces: wherever the fast path answers, the full reading agrees")
    func randomAgreement() {
        let pieces = [
            "page=", "limit=", "order=", "after=", "before=", "1", "20", "0", "asc", "desc", "&", "&", "=", "%31", "+",
            "x", "_", "9007199254740992", "101", "a",
        ]
        var generator = SystemRandomNumberGenerator()
        var answered = 0
        for _ in 0..<5_000 {
            let raw =
                "?"
                + (0..<Int.random(in: 0...8, using: &generator)).map { _ in
                    pieces.randomElement(using: &generator)!
                }.joined()
            guard let target = try? RequestTarget("/items" + raw),
                let plain = PageQuery.plain(target.query, paging: paging)
            else { continue }
            answered += 1
            #expect((try? fullReading(raw).get()) == plain, "\(raw)")
        }
        #expect(answered > 500)
    }
}
