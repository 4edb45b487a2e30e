import Testing

@testable import ListServer

/// Header lines: their syntax, line endings, Host, and the count and size limits.
@Suite("Request head scanner: header fields")
struct RequestHeadFieldTests {
    /// A complete HTTP/1.1 head with `fields` (each a whole line without its CRLF) after `Host: x`.
    static func head(_ fields: String...) -> String {
        "GET / HTTP/1.1\r\nHost: x\r\n" + fields.map { $0 + "\r\n" }.joined() + "\r\n"
    }

    @Test("a line that starts with whitespace (obs-fold) gets 400 naming the field it would continue")
    func obsFold() throws {
        let folded = try #require(HeadFeeder.rejection(Self.head("X-A: one", " two"), status: 400))
        #expect(
            folded.problem.detail
                == "a header line starts with whitespace after field \"X-A\": obsolete line folding is not accepted; send each field on one line"
        )
        HeadFeeder.rejection(Self.head("X-A: one", "\ttwo"), status: 400)
        let first = try #require(HeadFeeder.rejection("GET / HTTP/1.1\r\n Host: x\r\n\r\n", status: 400))
        #expect(first.problem.detail == "whitespace between the request line and the first header field is not allowed")
    }

    @Test("whitespace between a field name and its colon gets 400", arguments: ["Host : y", "X-A\t: y", "X-A : y"])
    func whitespaceBeforeColon(line: String) throws {
        let rejection = try #require(HeadFeeder.rejection("GET / HTTP/1.1\r\n\(line)\r\n\r\n", status: 400))
        #expect(rejection.problem.detail.hasSuffix("has whitespace before its colon, which is not allowed"))
    }

    @Test("a header line without a colon, or with an empty name, gets 400")
    func missingColonAndEmptyName() throws {
        let noColon = try #require(HeadFeeder.rejection(Self.head("X-No-Colon"), status: 400))
        #expect(noColon.problem.detail == #"header line "X-No-Colon" has no colon; a field is "Name: value""#)
        HeadFeeder.rejection(Self.head("X-No-Colon\nY: 1"), status: 400)
        let empty = try #require(HeadFeeder.rejection(Self.head(": value"), status: 400))
        #expect(empty.problem.detail == "a header field has an empty name (the line starts with \":\")")
    }

    @Test(
        "a field name that is not a token gets 400",
        arguments: ["X(Y): 1", "X/Y: 1", "X\"Y: 1", "X\u{E9}: 1", "\u{E9}: 1", "X@: 1", "[X]: 1", "X\u{7F}: 1"])
    func nonTokenNames(line: String) throws {
        let rejection = try #require(HeadFeeder.rejection(Self.head(line), status: 400))
        #expect(rejection.problem.detail.hasPrefix("a header field name must be a token"))
    }

    @Test("a control character other than HTAB in a value gets 400 naming the field and the byte")
    func controlCharactersInValues() throws {
        let forbidden = Array(0x00...0x08) + [0x0B, 0x0C] + Array(0x0E...0x1F) + [0x7F] as [UInt8]
        for byte in forbidden {
            let bytes = Array("GET / HTTP/1.1\r\nHost: x\r\nX-Bad: a".utf8) + [byte] + Array("b\r\n\r\n".utf8)
            let rejection = try #require(HeadFeeder.rejection(bytes, status: 400))
            #expect(
                rejection.problem.detail
                    == "the value of header field \"X-Bad\" holds control character \(HTTPBytes.hex(byte)); only HTAB is allowed"
            )
        }
    }

    @Test("a CR not followed by LF gets 400 wherever it is")
    func bareCarriageReturns() throws {
        let inValue = try #require(HeadFeeder.rejection("GET / HTTP/1.1\r\nHost: x\rX: y\r\n\r\n", status: 400))
        #expect(
            inValue.problem.detail == #"a CR (0x0D) must be followed by LF in header field "Host", got 0x58 after it"#)
        let inLine = try #require(HeadFeeder.rejection("GET / HTTP/1.1\r\rHost: x\r\n\r\n", status: 400))
        #expect(inLine.problem.detail == "a CR (0x0D) must be followed by LF in the request line, got 0x0D after it")
        let atEnd = try #require(HeadFeeder.rejection("GET / HTTP/1.1\r\nHost: x\r\n\r\r\n", status: 400))
        #expect(atEnd.problem.detail.contains("in the empty line that ends the head"))
        let before = try #require(HeadFeeder.rejection("\r GET / HTTP/1.1\r\nHost: x\r\n\r\n", status: 400))
        #expect(before.problem.detail.contains("in an empty line before the request line"))
        HeadFeeder.rejection("GET / HTTP/1.1\r\nHost: x\r\nX: a\rb\r\n\r\n", status: 400)
        HeadFeeder.rejection("GET /\r HTTP/1.1\r\nHost: x\r\n\r\n", status: 400)
    }

    @Test("HTTP/1.1 needs exactly one Host; HTTP/1.0 at most one")
    func host() throws {
        let missing = try #require(HeadFeeder.rejection("GET / HTTP/1.1\r\nX: y\r\n\r\n", status: 400))
        #expect(missing.problem.detail == "an HTTP/1.1 request must have a Host header field")
        HeadFeeder.rejection("GET / HTTP/1.1\n\n", status: 400)
        let twice = try #require(HeadFeeder.rejection("GET / HTTP/1.1\r\nHost: a\r\nhost: a\r\n\r\n", status: 400))
        #expect(twice.problem.detail == "the request has more than one Host header field")
        HeadFeeder.rejection("GET / HTTP/1.0\r\nHost: a\r\nHOST: b\r\n\r\n", status: 400)
        HeadFeeder.head("GET / HTTP/1.0\r\nHost: a\r\n\r\n")
        HeadFeeder.head("GET / HTTP/1.1\r\nHost:\r\n\r\n")  // empty Host is valid (RFC 9110 §7.2)
        HeadFeeder.head("GET http://x/ HTTP/1.1\r\nHost: x\r\n\r\n")
        HeadFeeder.head("GET / HTTP/1.1\r\nX-Host: a\r\nHosts: b\r\nHost: c\r\n\r\n")
        // A second Host is refused at its colon, before the rest of the head arrives.
        #expect(HeadFeeder.scan("GET / HTTP/1.1\r\nHost: a\r\nHost:") == .reject(twice))
    }

    @Test("exactly max_header_count fields pass; one more gets 431 at once")
    func fieldCount() throws {
        var limits = HTTPLimits()
        limits.maxHeaderCount = 3
        HeadFeeder.head(Self.head("A: 1", "B: 2"), limits: limits)
        let rejection = try #require(
            HeadFeeder.rejection(Self.head("A: 1", "B: 2", "C: 3"), status: 431, limits: limits))
        #expect(rejection.problem.kind == .headersTooLarge)
        #expect(rejection.problem.detail == "the request has more than 3 header fields")
        #expect(HeadFeeder.scan("GET / HTTP/1.1\r\nHost: x\r\nA: 1\r\nB: 2\r\nC", limits: limits) == .reject(rejection))
        let hundred = (1..<100).map { "X-\($0): v" }
        HeadFeeder.head("GET / HTTP/1.1\r\nHost: x\r\n" + hundred.map { $0 + "\r\n" }.joined() + "\r\n")
        HeadFeeder.rejection(
            "GET / HTTP/1.1\r\nHost: x\r\n" + (hundred + ["X-100: v"]).map { $0 + "\r\n" }.joined() + "\r\n",
            status: 431)
    }

    @Test("a head of exactly max_header_bytes passes; one byte more gets 431")
    func headSize() throws {
        for limit in [256, 16_384] {
            var limits = HTTPLimits()
            limits.maxHeaderBytes = limit
            limits.maxRequestLineBytes = 64
            let fixed = Self.head("X: ").utf8.count
            let atLimit = Self.head("X: " + String(repeating: "v", count: limit - fixed))
            #expect(atLimit.utf8.count == limit)
            #expect(HeadFeeder.head(atLimit, limits: limits)?.headLength == limit)
            let over = Self.head("X: " + String(repeating: "v", count: limit - fixed + 1))
            let rejection = try #require(HeadFeeder.rejection(over, status: 431, limits: limits))
            #expect(
                rejection.problem.detail
                    == "the request head (request line and header fields) is longer than \(limit) bytes")
            // Bytes after the head (a body, the next request) do not count.
            #expect(HeadFeeder.head(atLimit + "GET / HTTP/1.1\r\n", limits: limits)?.headLength == limit)
        }
    }

    @Test("an endless header line is rejected with 431 once max_header_bytes + 1 bytes have arrived")
    func endlessHeaderLine() {
        for limit in [256, 16_384, 1_048_576] {
            var limits = HTTPLimits()
            limits.maxHeaderBytes = limit
            limits.maxRequestLineBytes = 64
            // Like the 200 MiB header that grew evhttp to 206 MB: the stream never ends; offer it in chunks of up
            // to 4 KiB, as a socket would deliver it, and see that the scan stops in time.
            let start = Array("GET / HTTP/1.1\r\nHost: x\r\nX-Endless: ".utf8)
            var stream = start
            var scanner = RequestHeadScanner(limits: limits)
            var result = HeadScan.needMore
            var chunk = 1
            while result == .needMore && stream.count <= 2 * limit + 8192 {
                stream += [UInt8](repeating: UInt8(ascii: "z"), count: chunk)
                chunk = chunk % 4096 + 1
                result = scanner.scan(stream.span)
                if result == .needMore {
                    #expect(stream.count <= limit, "limit \(limit): needs more with \(stream.count) bytes")
                }
            }
            #expect(result == .reject(.headTooLarge(limit: limit)), "limit \(limit)")
            let (byteByByte, offered) = HeadFeeder.growing(
                start + [UInt8](repeating: UInt8(ascii: "z"), count: limit), limits: limits
            ) { _ in 1 }
            #expect(byteByByte == .reject(.headTooLarge(limit: limit)))
            #expect(offered == limit + 1)
        }
    }
}
