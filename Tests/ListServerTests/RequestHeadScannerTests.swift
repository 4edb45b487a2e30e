import Testing

@testable import ListServer

/// Complete heads: what the scanner reports for valid requests, pipelining, and its contract with the filter.
@Suite("Request head scanner: valid heads")
struct RequestHeadScannerTests {
    @Test("a minimal HTTP/1.1 GET is complete at its last byte")
    func minimalGet() throws {
        let text = "GET /items?page=2 HTTP/1.1\r\nHost: localhost\r\n\r\n"
        let head = try #require(HeadFeeder.head(text))
        #expect(
            head
                == RequestHead(
                    headLength: text.utf8.count, skippedBytes: 0, bodyLength: 0, method: .get, keepAliveDefault: true,
                    isHTTP11: true, targetRange: 4..<17))
    }

    @Test("HTTP/1.0 needs no Host and does not keep the connection alive by default")
    func http10() throws {
        let head = try #require(HeadFeeder.head("GET / HTTP/1.0\r\n\r\n"))
        #expect(!head.isHTTP11)
        #expect(!head.keepAliveDefault)
        #expect(head.headLength == 18)
    }

    @Test(
        "every known method passes",
        arguments: [
            ("GET", HTTPMethod.get), ("HEAD", .head), ("POST", .post), ("PUT", .put), ("DELETE", .delete),
            ("OPTIONS", .options), ("PATCH", .patch), ("TRACE", .trace),
        ])
    func knownMethods(name: String, method: HTTPMethod) {
        #expect(HeadFeeder.head("\(name) /items HTTP/1.1\r\nHost: x\r\n\r\n")?.method == method)
    }

    @Test(
        "bare LF line endings are accepted, alone or mixed with CRLF",
        arguments: [
            "GET / HTTP/1.1\nHost: x\n\n", "GET / HTTP/1.1\r\nHost: x\n\r\n", "GET / HTTP/1.1\nHost: x\r\n\n",
        ])
    func bareLineFeeds(text: String) {
        #expect(HeadFeeder.head(text)?.headLength == text.utf8.count)
    }

    @Test("up to four empty lines before the request line are skipped and counted in headLength")
    func leadingEmptyLines() {
        for prefix in ["\r\n", "\n", "\r\n\r\n\r\n\r\n", "\n\r\n\n\r\n"] {
            let text = prefix + "GET / HTTP/1.1\r\nHost: x\r\n\r\n"
            #expect(HeadFeeder.head(text)?.headLength == text.utf8.count, "\(prefix.debugDescription)")
            // They are counted, and dropped before evhttp sees the head (it would answer them in HTML).
            #expect(HeadFeeder.head(text)?.skippedBytes == prefix.utf8.count, "\(prefix.debugDescription)")
        }
        let rejection = HeadFeeder.rejection(
            "\r\n\r\n\r\n\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n", status: 400)
        #expect(rejection?.problem.detail == "more than 4 empty lines before the request line")
    }

    @Test("header values may hold HTAB, obs-text and be empty; names compare without case")
    func permittedValues() {
        let text =
            "GET / HTTP/1.1\r\nhOsT: x\r\nX-A:\tone\ttwo \r\nX-B: caf\u{E9} \u{FF}\r\nX-Empty:\r\nX-Spaces:   \r\n\r\n"
        #expect(HeadFeeder.head(text)?.headLength == text.utf8.count)
        let obsText: [UInt8] =
            Array("GET / HTTP/1.1\r\nHost: x\r\nX: ".utf8) + [0x80, 0xFF, 0xC3] + Array("\r\n\r\n".utf8)
        #expect(HeadFeeder.scan(obsText) != .needMore)
        guard case .complete = HeadFeeder.scan(obsText) else {
            Issue.record("obs-text in a value was not accepted")
            return
        }
    }

    @Test("bodyLength comes from Content-Length, trimmed of whitespace, leading zeros allowed")
    func bodyLength() {
        for (value, length) in [("0", 0), ("5", 5), (" 42 ", 42), ("\t7\t", 7), ("007", 7), ("65536", 65_536)] {
            let text = "POST /items HTTP/1.1\r\nHost: x\r\nContent-Length:\(value)\r\n\r\n"
            #expect(HeadFeeder.head(text)?.bodyLength == length, "\(value.debugDescription)")
        }
        #expect(HeadFeeder.head("POST / HTTP/1.1\r\nHost: x\r\n\r\n")?.bodyLength == 0)
        #expect(HeadFeeder.head("PUT / HTTP/1.0\r\nCONTENT-LENGTH: 3\r\n\r\n")?.bodyLength == 3)
    }

    @Test("pipelined requests: the scan stops at the end of the first head; after reset, the next one is found")
    func pipelining() throws {
        let first = "POST /items HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\n"
        let second = "GET /items/7 HTTP/1.1\r\nHost: x\r\n\r\n"
        let third = "HEAD / HTTP/1.1\nHost: y\n\n"
        let stream = Array((first + "hello" + second + third + "GET /partial HTTP/1.1\r\n").utf8)

        let head1 = try #require(HeadFeeder.head(first + "hello" + second))
        #expect(head1.headLength == first.utf8.count)
        #expect(head1.bodyLength == 5)

        var scanner = RequestHeadScanner(limits: HTTPLimits())
        var offset = 0
        var heads: [RequestHead] = []
        while case .complete(let head) = scanner.scan(stream.span.extracting(offset...)) {
            heads.append(head)
            offset += head.headLength + head.bodyLength
            scanner.reset()
        }
        #expect(heads.map(\.headLength) == [first.utf8.count, second.utf8.count, third.utf8.count])
        #expect(heads.map(\.method) == [.post, .get, .head])
        #expect(offset == stream.count - "GET /partial HTTP/1.1\r\n".utf8.count)
    }

    @Test("an incomplete head needs more; the same prefix with the rest appended completes it")
    func needMore() {
        let text = Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
        var scanner = RequestHeadScanner(limits: HTTPLimits())
        #expect(scanner.scan(text.span.extracting(0..<0)) == .needMore)
        #expect(scanner.scan(text.span.extracting(0..<20)) == .needMore)
        #expect(scanner.scan(text.span.extracting(0..<20)) == .needMore)
        #expect(scanner.scan(text.span.extracting(0..<26)) == .needMore)
        guard case .complete(let head) = scanner.scan(text.span) else {
            Issue.record("not complete")
            return
        }
        #expect(head.headLength == text.count)
    }

    @Test("a terminal result is repeated until reset; reset starts a new request")
    func terminalResultsStick() {
        let bad = Array("GET / HTTP/9.9\r\n\r\n".utf8)
        let good = Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
        var scanner = RequestHeadScanner(limits: HTTPLimits())
        let first = scanner.scan(bad.span)
        #expect(first != .needMore)
        #expect(scanner.scan(good.span) == first)
        scanner.reset()
        #expect(scanner.scan(good.span) == HeadFeeder.allAtOnce(good, limits: HTTPLimits()))
    }

    @Test("offering fewer bytes than were scanned (a broken contract) starts over instead of reading out of bounds")
    func shorterOfferStartsOver() {
        let text = Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
        var scanner = RequestHeadScanner(limits: HTTPLimits())
        #expect(scanner.scan(text.span.extracting(0..<20)) == .needMore)
        #expect(scanner.scan(text.span.extracting(0..<5)) == .needMore)
        #expect(scanner.scan(text.span) == HeadFeeder.allAtOnce(text, limits: HTTPLimits()))
    }
}
