import Testing

@testable import ListServer

/// Message framing: Content-Length and Transfer-Encoding, the fields request smuggling plays with.
@Suite("Request head scanner: Content-Length and Transfer-Encoding")
struct RequestHeadFramingTests {
    /// A POST head with `fields` (whole lines without CRLF) after `Host: x`, in HTTP/`version`.
    static func post(_ fields: String..., version: String = "1.1") -> String {
        "POST /items HTTP/\(version)\r\nHost: x\r\n" + fields.map { $0 + "\r\n" }.joined() + "\r\n"
    }

    @Test(
        "a Content-Length that is not 1*DIGIT gets 400 quoting it",
        arguments: [
            "+5", "-1", "5 5", "0x5", "", "   ", "5, 5", "5,5", "1e3", "5.0", "five", "\u{FF15}", "5;", "0 x", "\"5\"",
        ])
    func invalidContentLength(value: String) throws {
        let rejection = try #require(HeadFeeder.rejection(Self.post("Content-Length: \(value)"), status: 400))
        let trimmed = value.trimmingWhitespace
        #expect(
            rejection.problem.detail
                == "Content-Length must be a decimal number of bytes (digits only), got \(HTTPBytes.quoted(Array(trimmed.utf8)))"
        )
    }

    @Test("PUT /items/<digits>/image is held to image.max_upload_bytes; every other request to max_body_bytes")
    func uploadLimit() throws {
        func head(_ requestLine: String, _ length: Int) -> String {
            "\(requestLine) HTTP/1.1\r\nHost: x\r\nContent-Length: \(length)\r\n\r\n"
        }
        let upload = 10_485_760
        for line in ["PUT /items/5/image", "PUT /items/18446744073709551615/image?X-Dataset=a&fail=500"] {
            #expect(HeadFeeder.head(head(line, upload))?.bodyLength == upload, "\(line)")
            let over = try #require(HeadFeeder.rejection(head(line, upload + 1), status: 413), "\(line)")
            #expect(
                over.problem.detail == "the request body (Content-Length \"10485761\") is larger than 10485760 bytes")
        }
        // The JSON body limit everywhere else, also for look-alikes of the upload path.
        for line in [
            "POST /items/5/image", "GET /items/5/image", "PUT /items/5/image.png", "PUT /items//image",
            "PUT /items/5/images", "PUT /items/5/image/", "PUT /items/x/image", "PUT /items/%35/image",
            "PUT http://x/items/5/image", "PUT /items/5", "PATCH /items/5/image",
        ] {
            #expect(HeadFeeder.head(head(line, 65_536))?.bodyLength == 65_536, "\(line)")
            HeadFeeder.rejection(head(line, 65_537), status: 413)
        }
        var limits = HTTPLimits()
        limits.maxUploadBytes = 100
        limits.maxBodyBytes = 1000  // an upload limit below the body limit is the upload's own
        #expect(HeadFeeder.head(head("PUT /items/5/image", 100), limits: limits)?.bodyLength == 100)
        HeadFeeder.rejection(head("PUT /items/5/image", 101), status: 413, limits: limits)
        #expect(HeadFeeder.head(head("POST /items", 1000), limits: limits)?.bodyLength == 1000)
    }

    @Test("a second Content-Length gets 400, equal or not, in any case, at its colon")
    func repeatedContentLength() throws {
        for second in ["Content-Length: 5", "content-length: 5", "CONTENT-LENGTH: 6"] {
            let rejection = try #require(HeadFeeder.rejection(Self.post("Content-Length: 5", second), status: 400))
            #expect(rejection.problem.detail == "the request has more than one Content-Length field")
        }
        let prefix = "POST / HTTP/1.1\r\nContent-Length: 5\r\nContent-Length:"
        #expect(HeadFeeder.scan(prefix) == .reject(.repeatedContentLength()))
    }

    @Test("Content-Length of exactly max_body_bytes passes; one more, or any overflowing number, gets 413")
    func bodyLimit() throws {
        #expect(HeadFeeder.head(Self.post("Content-Length: 65536"))?.bodyLength == 65_536)
        let over = try #require(HeadFeeder.rejection(Self.post("Content-Length: 65537"), status: 413))
        #expect(over.problem.kind == .bodyTooLarge)
        #expect(over.problem.detail == "the request body (Content-Length \"65537\") is larger than 65536 bytes")
        for huge in ["9223372036854775807", "9223372036854775808", "99999999999999999999999999999999", "0065537"] {
            HeadFeeder.rejection(Self.post("Content-Length: \(huge)"), status: 413)
        }
        // Digits are checked before size: a huge value with a stray byte is malformed, not too large.
        HeadFeeder.rejection(Self.post("Content-Length: 99999999999999999999999x"), status: 400)

        var limits = HTTPLimits()
        limits.maxBodyBytes = 0
        #expect(HeadFeeder.head(Self.post("Content-Length: 0"), limits: limits)?.bodyLength == 0)
        HeadFeeder.rejection(Self.post("Content-Length: 1"), status: 413, limits: limits)
        limits.maxBodyBytes = 16_777_216
        #expect(HeadFeeder.head(Self.post("Content-Length: 16777216"), limits: limits)?.bodyLength == 16_777_216)
        HeadFeeder.rejection(Self.post("Content-Length: 16777217"), status: 413, limits: limits)
        limits.maxBodyBytes = .max  // not a valid setting, but must not trap
        HeadFeeder.rejection(Self.post("Content-Length: 9223372036854775808"), status: 413, limits: limits)
        #expect(HeadFeeder.head(Self.post("Content-Length: 9223372036854775807"), limits: limits)?.bodyLength == .max)
    }

    @Test(
        "Transfer-Encoding: chunked, in any case, gets 411", arguments: ["chunked", "Chunked", "CHUNKED", " chunked\t"])
    func chunked(value: String) throws {
        let rejection = try #require(HeadFeeder.rejection(Self.post("Transfer-Encoding:\(value)"), status: 411))
        #expect(rejection.problem.kind == .lengthRequired)
        #expect(
            rejection.problem.detail == "chunked request bodies are not accepted; send the body with Content-Length")
        HeadFeeder.rejection(Self.post("transfer-encoding: \(value)"), status: 411)
    }

    @Test(
        "any other transfer coding gets 400 naming it",
        arguments: [
            "gzip", "identity", "chunked, gzip", "gzip, chunked", "chunked,chunked", "chunkedx", "x-custom", "deflate",
        ])
    func otherCodings(value: String) throws {
        let rejection = try #require(HeadFeeder.rejection(Self.post("Transfer-Encoding: \(value)"), status: 400))
        #expect(
            rejection.problem.detail
                == "transfer coding \(HTTPBytes.quoted(Array(value.utf8))) is not supported; send the body with Content-Length"
        )
    }

    @Test("an empty Transfer-Encoding gets 400")
    func emptyCoding() throws {
        let rejection = try #require(HeadFeeder.rejection(Self.post("Transfer-Encoding:  "), status: 400))
        #expect(rejection.problem.detail == "Transfer-Encoding is empty; send the body with Content-Length")
    }

    @Test("Transfer-Encoding with Content-Length gets 400 in either order, whatever the values")
    func lengthAndEncoding() throws {
        for fields in [
            ["Content-Length: 5", "Transfer-Encoding: chunked"], ["Transfer-Encoding: chunked", "Content-Length: 5"],
            ["Content-Length: 0", "Transfer-Encoding: gzip"], ["Content-Length: 0", "Transfer-Encoding: identity"],
        ] {
            let text = "POST / HTTP/1.1\r\nHost: x\r\n" + fields.map { $0 + "\r\n" }.joined() + "\r\n"
            let rejection = try #require(HeadFeeder.rejection(text, status: 400))
            #expect(rejection.problem.detail == "a request must not have both Content-Length and Transfer-Encoding")
        }
        // Problems are reported in the order the bytes show them: here the coding is refused before the length.
        let codingFirst = "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: identity\r\nContent-Length: 0\r\n\r\n"
        let rejection = try #require(HeadFeeder.rejection(codingFirst, status: 400))
        #expect(rejection.problem.detail.hasPrefix("transfer coding \"identity\" is not supported"))
    }

    @Test("a second Transfer-Encoding gets 400")
    func repeatedEncoding() throws {
        let text = Self.post("Transfer-Encoding: chunked", "Transfer-Encoding: chunked")
        let rejection = try #require(HeadFeeder.rejection(text, status: 400))
        #expect(rejection.problem.detail == "the request has more than one Transfer-Encoding field")
    }

    @Test("Transfer-Encoding in HTTP/1.0 gets 400, chunked or not")
    func encodingInHTTP10() throws {
        for value in ["chunked", "gzip"] {
            let rejection = try #require(
                HeadFeeder.rejection(Self.post("Transfer-Encoding: \(value)", version: "1.0"), status: 400))
            #expect(rejection.problem.detail == "Transfer-Encoding is not allowed in an HTTP/1.0 request")
        }
    }

    @Test("a chunked request without Host is a 400 first: the whole-head checks run in that order")
    func missingHostBeforeChunked() throws {
        let rejection = try #require(
            HeadFeeder.rejection("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", status: 400))
        #expect(rejection.problem.detail == "an HTTP/1.1 request must have a Host header field")
    }
}

extension String {
    /// This string without leading and trailing spaces and tabs.
    fileprivate var trimmingWhitespace: Substring {
        var trimmed = self[...]
        while trimmed.first == " " || trimmed.first == "\t" { trimmed.removeFirst() }
        while trimmed.last == " " || trimmed.last == "\t" { trimmed.removeLast() }
        return trimmed
    }
}
