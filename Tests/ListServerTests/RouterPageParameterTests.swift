import Testing

@testable import ListServer

@Suite("Router: GET /items, bad page and limit")
struct RouterPageParameterTests {
    let router = RouterFixture.router()

    /// Checks a 400 invalid-parameter problem for `parameter` and returns its detail.
    @discardableResult
    private func expectInvalid(_ query: String, parameter: String, range: String) throws -> String {
        let response = router.respond("/items?" + query)
        #expect(response.status == 400, "\(query)")
        #expect(response.headers["Content-Type"] == "application/problem+json")
        let json = try #require(response.jsonObject, "\(query): \(response.text)")
        #expect(json["type"] as? String == "urn:listserver:problem:invalid-parameter")
        #expect(json["title"] as? String == "Invalid query parameter")
        #expect(uint64(json["status"]) == 400)
        #expect(json["parameter"] as? String == parameter)
        let detail = try #require(json["detail"] as? String)
        #expect(detail.contains("\"\(parameter)\""), "\(detail)")
        #expect(detail.contains(range), "\(detail)")
        return detail
    }

    @Test(
        "page must be a plain decimal integer in 1...2^53",
        arguments: [
            "page=0", "page=-1", "page=%2B1", "page=+1", "page=abc", "page=1.5", "page=", "page", "page=1e3",
            "page=%201", "page=1%20", "page=0x10", "page=%EF%BC%91", "page=9007199254740993",
            "page=18446744073709551615",
            "page=18446744073709551616", "page=99999999999999999999999999999", "page=%zz", "page=%4", "page=%",
            "page=%00", "page=1%00", "page=%FF", "page=1&page=2", "page=1&page=1", "limit=5&page=0",
        ])
    func badPage(query: String) throws {
        try expectInvalid(query, parameter: "page", range: "1...9007199254740992")
    }

    @Test(
        "limit must be a plain decimal integer in 1...paging.maxLimit",
        arguments: [
            "limit=0", "limit=101", "limit=-1", "limit=abc", "limit=1.5", "limit=", "limit=1e3", "limit=%2B5",
            "limit=18446744073709551616", "limit=%zz", "limit=%4", "limit=%00", "limit=5&limit=5", "page=2&limit=0",
        ])
    func badLimit(query: String) throws {
        try expectInvalid(query, parameter: "limit", range: "1...100")
    }

    @Test("the detail quotes what was received")
    func detailQuotesValue() throws {
        #expect(
            try expectInvalid("page=abc", parameter: "page", range: "1...")
                == "query parameter \"page\" must be a decimal integer in 1...9007199254740992, got \"abc\"")
        #expect(try expectInvalid("page=", parameter: "page", range: "1...").hasSuffix("got \"\""))
        #expect(try expectInvalid("limit=1e3", parameter: "limit", range: "1...").hasSuffix("got \"1e3\""))
        #expect(
            try expectInvalid("page=%zz", parameter: "page", range: "1...")
                .hasSuffix("got \"%zz\", which has a \"%\" that is not followed by two hexadecimal digits"))
        #expect(try expectInvalid("page=%00", parameter: "page", range: "1...").hasSuffix("encodes a NUL byte (%00)"))
        #expect(
            try expectInvalid("page=3&page=4", parameter: "page", range: "1...")
                .hasSuffix("got it twice (\"3\" and \"4\"); give it once"))
    }

    @Test("a received value is escaped and cut to 64 characters")
    func detailEscapesAndTruncates() throws {
        let long = String(repeating: "9", count: 300)
        let detail = try expectInvalid("page=" + long, parameter: "page", range: "1...")
        #expect(detail.hasSuffix("got \"" + String(repeating: "9", count: 64) + "\"..."))
        let controls = try expectInvalid("page=%0A%1B%22x", parameter: "page", range: "1...")
        #expect(controls.hasSuffix("got \"\\u{a}\\u{1b}\\\"x\""))
    }

    @Test(
        "any other parameter that does not decode makes the whole target a 400",
        arguments: [
            "page=2&_=%zz", "_=%00", "pa%zzge=1", "x=%C3", "%=1",
        ])
    func brokenOtherParameter(query: String) throws {
        let response = router.respond("/items?" + query)
        #expect(response.status == 400)
        let json = try #require(response.jsonObject)
        #expect(json["type"] as? String == "urn:listserver:problem:invalid-request-target")
        #expect(json["parameter"] == nil)
    }

    @Test("the largest valid values are accepted")
    func largestValid() {
        #expect(router.respond("/items?page=9007199254740992&limit=100").status == 200)
        #expect(router.respond("/items?page=1&limit=100").status == 200)
    }
}
