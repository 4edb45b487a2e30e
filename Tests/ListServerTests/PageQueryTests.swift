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
