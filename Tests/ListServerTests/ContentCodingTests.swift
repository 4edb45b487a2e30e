import Testing

@testable import ListServer

/// Which coding a request's `Accept-Encoding` gets, and the entity tags of a coding's representation.
@Suite("Content codings: Accept-Encoding and tags")
struct ContentCodingTests {
    @Test(
        "the highest q wins, zstd before gzip at a tie; q=0 refuses; * stands for the rest; nothing else is offered",
        arguments: [
            (nil, nil),
            ("", nil),
            ("identity", nil),
            ("br, deflate", nil),
            ("gzip", .gzip),
            ("x-gzip", .gzip),
            ("GZIP", .gzip),
            ("gzip, deflate, br, zstd", .zstd),
            ("deflate, gzip, br, zstd", .zstd),
            ("zstd;q=0.5, gzip", .gzip),
            ("zstd;q=1.0,gzip;q=0.9", .zstd),
            ("gzip;q=0, zstd;q=0", nil),
            ("zstd;q=0", nil),
            ("*", .zstd),
            ("*;q=0.1, gzip", .gzip),
            ("gzip;q=0, *", .zstd),
            ("zstd;q=0, *", .gzip),
            ("zstd ; q=0.8 , gzip ; q=0.9", .gzip),
            ("gzip;q=nonsense", nil),
        ] as [(String?, ContentCoding?)])
    func preferred(acceptEncoding: String?, expected: ContentCoding?) {
        #expect(ContentCoding.preferred(acceptEncoding) == expected)
    }

    @Test("an event stream is offered gzip alone")
    func streamsOfferGzip() {
        #expect(ContentCoding.preferred("zstd", offering: [.gzip]) == nil)
        #expect(ContentCoding.preferred("zstd, gzip;q=0.5", offering: [.gzip]) == .gzip)
    }

    @Test("a coding's tag has its suffix inside the quotes, weak or strong; conditions lose it again")
    func tags() {
        #expect(ContentCoding.gzip.tagging("\"v1-ab12\"") == "\"v1-ab12-gzip\"")
        #expect(ContentCoding.zstd.tagging("W/\"v1-ab12\"") == "W/\"v1-ab12-zstd\"")
        #expect(
            ContentCoding.gzip.strippingSuffix(from: "\"v1-ab12-zstd\", W/\"v1-ab12-gzip\"")
                == "\"v1-ab12-zstd\", W/\"v1-ab12\"")
        #expect(
            ContentCoding.gzip.strippingSuffix(from: "\"v1-ab12-gzip\", \"v2-cd34-gzip\"") == "\"v1-ab12\", \"v2-cd34\""
        )
    }
}
