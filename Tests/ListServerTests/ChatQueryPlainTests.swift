import ListDomain
import Testing

@testable import ListServer

@Suite("Message queries: the plain fast path agrees with the full reading")
struct ChatQueryPlainTests {
    private let paging = PagingSettings(defaultLimit: 20, maxLimit: 100)

    private func fullReading(_ raw: String) -> Result<ChatQuery, Problem> {
        Result { () throws(Problem) in
            try ChatQuery(decoding: RequestTarget("/conversations/0/messages" + raw), paging: paging, list: .messages)
        }
    }

    private func plain(_ raw: String) throws -> ChatQuery? {
        ChatQuery.plainMessages(try RequestTarget("/conversations/0/messages" + raw).query, paging: paging)
    }

    @Test(
        "plain queries read the same both ways",
        arguments: [
            "", "?", "?limit=7", "?after=5", "?before=9999&limit=3", "?around=5000&limit=51", "?order=desc",
            "?after=0&order=desc&limit=100", "?_=1700000000000&after=2&After=9&foo&limit=100", "?around=1099511627776",
            "?after=007&limit=020", "?&&before=4&&", "?=5&after=2", "?a.b-c_d~e=f&around=5", "?afterx=3&limit=9",
        ])
    func agrees(raw: String) throws {
        let plain = try #require(try plain(raw))
        #expect(try fullReading(raw).get() == plain)
    }

    @Test(
        "anything else is left to the full reading, which refuses it or reads what the fast path does not",
        arguments: [
            "?limit=0", "?limit=101", "?after=", "?after", "?after=1&after=1", "?after=1&before=2", "?around=1&after=2",
            "?around=1099511627777", "?order=sideways", "?order=asc&order=asc", "?limit=5&limit=6", "?after=%31",
            "?after=1&x=a+b", "?after=1&x=%zz", "?after=-1", "?after=1.5", "?after=18446744073709551616",
            "?after=1;limit=2", "?after=1&x=é",
        ])
    func declines(raw: String) throws {
        #expect(try plain(raw) == nil)
    }

    @Test("random queries of plain and unplain pieces: wherever the fast path answers, the full reading agrees")
    func randomAgreement() throws {
        let pieces = [
            "limit=", "order=", "after=", "before=", "around=", "1", "20", "0", "asc", "desc", "&", "&", "=", "%31",
            "+", "x", "_", "1099511627776", "101", "a",
        ]
        var generator = SystemRandomNumberGenerator()
        var answered = 0
        for _ in 0..<5_000 {
            let raw =
                "?"
                + (0..<Int.random(in: 0...8, using: &generator)).map { _ in
                    pieces.randomElement(using: &generator)!
                }.joined()
            guard let plain = (try? plain(raw)) ?? nil else { continue }
            answered += 1
            #expect((try? fullReading(raw).get()) == plain, "\(raw)")
        }
        #expect(answered > 500)
    }
}
