import Testing

@testable import ListServer

/// `Range: bytes=…` and `If-Range` without a server: what a field asks for, and what a body of a length gets.
@Suite("HTTP: byte ranges")
struct ByteRangeRequestTests {
    typealias Spec = ByteRangeRequest.Spec

    @Test("one range of bytes in each of its three forms; spaces around it and any case of the unit")
    func forms() {
        #expect(ByteRangeRequest.spec("bytes=0-99") == .span(first: 0, last: 99))
        #expect(ByteRangeRequest.spec("bytes=500-") == .from(500))
        #expect(ByteRangeRequest.spec("bytes=-200") == .suffix(200))
        #expect(ByteRangeRequest.spec(" Bytes = 5-5 ") == .span(first: 5, last: 5))
        #expect(ByteRangeRequest.spec("bytes=0-1,") == .span(first: 0, last: 1))
        // A position past any body is still well formed: it saturates rather than fail.
        #expect(ByteRangeRequest.spec("bytes=99999999999999999999999-") == .from(.max))
    }

    @Test("another unit, malformed syntax, a first position after the last and several ranges are ignored")
    func ignored() {
        for field in [
            "items=0-1", "bytes", "bytes=", "bytes=-", "bytes=a-b", "bytes=1-0", "bytes=+1-2", "bytes=0x1-2",
            "bytes=1 - 2x", "bytes=0-1,5-6", "bytes=0-1, -5", "bytes 0-1",
        ] {
            #expect(ByteRangeRequest.spec(field) == nil, "\(field)")
        }
        #expect(ByteRangeRequest(["Range": "bytes=0-1,4-5"]) == nil)
        #expect(ByteRangeRequest(["If-Range": "\"a\""]) == nil)
    }

    @Test("a body of 1,000 bytes: ranges clipped to its end, suffixes longer than it whole, none past it")
    func answers() {
        func answer(_ spec: Spec) -> ByteRangeRequest.Answer {
            ByteRangeRequest(spec: spec).answer(length: 1_000, etag: "\"v1-a\"")
        }
        #expect(answer(.span(first: 0, last: 0)) == .part(0..<1))
        #expect(answer(.span(first: 10, last: 19)) == .part(10..<20))
        #expect(answer(.span(first: 990, last: 5_000)) == .part(990..<1_000))
        #expect(answer(.from(999)) == .part(999..<1_000))
        #expect(answer(.suffix(1)) == .part(999..<1_000))
        #expect(answer(.suffix(5_000)) == .part(0..<1_000))
        #expect(answer(.from(1_000)) == .unsatisfiable)
        #expect(answer(.span(first: 1_000, last: 1_001)) == .unsatisfiable)
        #expect(answer(.suffix(0)) == .unsatisfiable)
        #expect(ByteRangeRequest(spec: .suffix(5)).answer(length: 0, etag: "\"v1-a\"") == .unsatisfiable)
        #expect(ByteRangeRequest.contentRange(10..<20, length: 1_000) == "bytes 10-19/1000")
        #expect(ByteRangeRequest.contentRange(nil, length: 1_000) == "bytes */1000")
    }

    @Test("If-Range: the range while it is the body's tag, strongly compared; the whole body otherwise")
    func ifRange() {
        let etag = "\"v1-0123456789abcdef\""
        func answer(_ ifRange: String) -> ByteRangeRequest.Answer {
            ByteRangeRequest(["Range": "bytes=0-9", "If-Range": ifRange])!.answer(length: 100, etag: etag)
        }
        #expect(answer(etag) == .part(0..<10))
        #expect(answer(" \(etag) ") == .part(0..<10))
        #expect(answer("\"v2-0123456789abcdef\"") == .whole)
        #expect(answer("W/\(etag)") == .whole)
        #expect(answer("Sat, 28 Nov 2026 10:00:00 GMT") == .whole)
        // Even a matching If-Range cannot make a range past the end satisfiable.
        #expect(
            ByteRangeRequest(["Range": "bytes=100-", "If-Range": etag])!.answer(length: 100, etag: etag)
                == .unsatisfiable)
    }
}
