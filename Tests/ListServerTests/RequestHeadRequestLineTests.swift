import Testing

@testable import ListServer

/// The request line: methods, request-targets, versions, spacing and its length limit.
@Suite("Request head scanner: the request line")
struct RequestHeadRequestLineTests {
    /// A complete head around `requestLine`.
    static func head(_ requestLine: String) -> String {
        requestLine + "\r\nHost: x\r\n\r\n"
    }

    @Test("CONNECT gets 405 with Allow: GET, HEAD, OPTIONS, at once")
    func connect() throws {
        let rejection = try #require(HeadFeeder.rejection(Self.head("CONNECT example.com:443 HTTP/1.1"), status: 405))
        #expect(rejection.problem.kind == .methodNotAllowed)
        #expect(rejection.response.headers["Allow"] == "GET, HEAD, OPTIONS")
        #expect(rejection.response.headers["Connection"] == "close")
        // Decided at the space after the method: nothing else needs to arrive.
        #expect(HeadFeeder.scan("CONNECT ") == .reject(rejection))
    }

    @Test("an unknown method token gets 501 naming it", arguments: ["FOO", "get", "PROPFIND", "BREW", "M-SEARCH", "G"])
    func unknownMethods(method: String) throws {
        let rejection = try #require(HeadFeeder.rejection(Self.head("\(method) / HTTP/1.1"), status: 501))
        #expect(rejection.problem.kind == .notImplemented)
        #expect(
            rejection.problem.detail
                == "method \"\(method)\" is not implemented; known methods are GET, HEAD, POST, PUT, DELETE, OPTIONS, PATCH, TRACE"
        )
        #expect(HeadFeeder.scan("\(method) ") == .reject(rejection))
    }

    @Test(
        "a method that is not a token gets 400",
        arguments: [
            "GE(T / HTTP/1.1", " GET / HTTP/1.1", "\tGET / HTTP/1.1", "GET\t/ HTTP/1.1", "{} / HTTP/1.1",
            "G\u{E9}T / HTTP/1.1",
        ])
    func nonTokenMethods(line: String) throws {
        let rejection = try #require(HeadFeeder.rejection(Self.head(line), status: 400))
        #expect(rejection.problem.kind == .malformedRequest)
        #expect(rejection.problem.detail.hasPrefix("the request line must start with a method token"))
    }

    @Test("a method with control bytes is quoted escaped in the detail")
    func controlBytesInMethod() throws {
        let rejection = try #require(HeadFeeder.rejection([0x47, 0x45, 0x00, 0x54, 0x20], status: 400))
        #expect(rejection.problem.detail.hasSuffix(#"got byte 0x00 in "GE\u{0}""#))
        let binary = try #require(HeadFeeder.rejection([0x16, 0x03, 0x01, 0x02, 0x00], status: 400))  // TLS hello
        #expect(binary.problem.detail.hasSuffix(#"got byte 0x16 in "\u{16}""#))
    }

    @Test(
        "anything but single spaces between three parts gets 400",
        arguments: [
            "GET  / HTTP/1.1", "GET /  HTTP/1.1", "GET / HTTP/1.1 ", "GET / HTTP/1.1\t", "GET /\tHTTP/1.1",
            "GET / HTTP/1.1 x", "GET", "GET /", "GET / ", "GET /items", "GET HTTP/1.1",
        ])
    func spacing(line: String) {
        HeadFeeder.rejection(Self.head(line), status: 400)
    }

    @Test(
        "origin-form and absolute http(s) targets pass",
        arguments: [
            "/", "/items?page=1&limit=20", "/items/%2F?a=%00", "http://example.com/items", "HTTPS://x:8443/a?b",
            "http://x", "https://", "Http://h/", "/~!$&'()*+,;=:@[]",
        ])
    func validTargets(target: String) {
        HeadFeeder.head(Self.head("GET \(target) HTTP/1.1"))
    }

    @Test(
        "other target forms get 400",
        arguments: [
            "*", "items", "ftp://x/", "http:/x", "http:x", "https:/", "htt", "h", "hxxp://x", "httpss://x", "?a=1",
        ])
    func invalidTargetForms(target: String) throws {
        let rejection = try #require(HeadFeeder.rejection(Self.head("OPTIONS \(target) HTTP/1.1"), status: 400))
        #expect(rejection.problem.detail.hasPrefix("the request target must be a path starting with \"/\""))
    }

    @Test(
        "an authority evhttp would not parse gets 400 (absolute-form, or a path starting with //)",
        arguments: [
            "http://[x/items", "http://[]/", "http://[v1.x/", "http://[V1.x]/", "http://[v.x]/", "http://[vg.x]/",
            "http://[v1]/", "http://[fe80::1%25eth0]/", "http://[::1::2]/",
            "http://[\(String(repeating: "0:", count: 30))1]/",
            "http://h:65536/", "http://h:99999999999999999999/", "http://h:p/", "http://a:b:1/", "http://a%4/",
            "http://a%/", "http://a%zz/", "http://a|b/", "http://u%4@h/", "http://u[@h/", "http://u@v@h/", "//[x/",
            "//h:70000/a", "//a%g1/", "https://a^b?x",
        ])
    func invalidAuthorities(target: String) throws {
        let rejection = try #require(HeadFeeder.rejection(Self.head("GET \(target) HTTP/1.1"), status: 400))
        #expect(rejection.problem.detail.hasPrefix("the authority"), "\(rejection.problem.detail)")
        // Problem bodies are printable ASCII: client bytes are quoted with escapes, and our words stay ASCII.
        #expect(rejection.response.body.allSatisfy { (0x20...0x7E).contains($0) }, "\(rejection.problem.detail)")
    }

    @Test(
        "an authority evhttp parses passes",
        arguments: [
            "http://h/", "http://h:/", "http://h:0000080/", "http://h:65535/", "http:///x", "http://[::1]/",
            "http://[::ffff:127.0.0.1]:80/", "http://[v1.x:y]/", "http://[v1f.]/", "http://u:p@h:1/", "http://@h/",
            "http://%41%42/", "http://a!$&'()*+,;=b/", "http://h?q", "http://h#f", "//h/items", "//items", "//",
            "http://u%41@h/",
        ])
    func validAuthorities(target: String) {
        HeadFeeder.head(Self.head("GET \(target) HTTP/1.1"))
    }

    @Test(
        "a target byte outside visible ASCII gets 400 naming the byte", arguments: [0x00, 0x09, 0x1F, 0x7F, 0x80, 0xFF])
    func invalidTargetBytes(byte: UInt8) throws {
        let bytes = Array("GET /ab".utf8) + [byte] + Array("c HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
        let rejection = try #require(HeadFeeder.rejection(bytes, status: 400))
        #expect(rejection.problem.detail.contains("got byte \(HTTPBytes.hex(byte)) at offset 3 of \"/ab"))
    }

    @Test("HTTP/1.1 and HTTP/1.0 pass")
    func supportedVersions() {
        #expect(HeadFeeder.head(Self.head("GET / HTTP/1.1"))?.isHTTP11 == true)
        #expect(HeadFeeder.head(Self.head("GET / HTTP/1.0"))?.isHTTP11 == false)
    }

    @Test(
        "another HTTP/<digit>.<digit> gets 505",
        arguments: ["HTTP/2.0", "HTTP/0.9", "HTTP/1.2", "HTTP/3.0", "HTTP/9.9"])
    func unsupportedVersions(version: String) throws {
        let rejection = try #require(HeadFeeder.rejection(Self.head("GET / \(version)"), status: 505))
        #expect(rejection.problem.kind == .versionNotSupported)
        #expect(rejection.problem.detail == "HTTP version \"\(version)\" is not supported; use HTTP/1.1 or HTTP/1.0")
    }

    @Test(
        "any other version gets 400",
        arguments: [
            "http/1.1", "HTTP/1", "HTTP/1.1.1", "HTTP/11", "HTTP/1.x", "HTTP/1.10", "HTTPS/1.1", "HTTP1.1", "HTTP/ 1.1",
            "HTTP/1,1", "H",
        ])
    func malformedVersions(version: String) throws {
        let rejection = try #require(HeadFeeder.rejection(Self.head("GET / \(version)"), status: 400))
        #expect(rejection.problem.detail.hasPrefix("the HTTP version must be HTTP/1.1 or HTTP/1.0, got"))
    }

    @Test("a request line of exactly max_request_line_bytes passes; one byte more gets 414")
    func requestLineLimit() throws {
        var limits = HTTPLimits()
        limits.maxRequestLineBytes = 64
        limits.maxHeaderBytes = 256
        let fixed = "GET / HTTP/1.1".utf8.count
        let atLimit = "GET /" + String(repeating: "a", count: 64 - fixed) + " HTTP/1.1"
        #expect(atLimit.utf8.count == 64)
        HeadFeeder.head(Self.head(atLimit), limits: limits)
        let over = "GET /" + String(repeating: "a", count: 65 - fixed) + " HTTP/1.1"
        let rejection = try #require(HeadFeeder.rejection(Self.head(over), status: 414, limits: limits))
        #expect(rejection.problem.kind == .requestLineTooLong)
        #expect(rejection.problem.detail.hasPrefix("the request line is longer than 64 bytes; it starts \"GET /aaa"))
        #expect(rejection.problem.detail.hasSuffix(" HTTP/1.\""))  // the 64 bytes before the one over
        // With the default limits too, at the limit and one over.
        let defaultFixed = 8192 - fixed
        HeadFeeder.head(Self.head("GET /" + String(repeating: "b", count: defaultFixed) + " HTTP/1.1"))
        HeadFeeder.rejection(
            Self.head("GET /" + String(repeating: "b", count: defaultFixed + 1) + " HTTP/1.1"), status: 414)
    }

    @Test("an endless request line gets 414 once max_request_line_bytes + 1 bytes have arrived, before any CRLF")
    func endlessRequestLine() {
        for limit in [64, 8192, 1_048_576] {
            var limits = HTTPLimits()
            limits.maxRequestLineBytes = limit
            limits.maxHeaderBytes = 1_048_576
            let line = Array("GET /".utf8) + [UInt8](repeating: UInt8(ascii: "a"), count: limit)
            let (result, offered) = HeadFeeder.growing(line, limits: limits) { _ in 1 }
            guard case .reject(let rejection) = result else {
                Issue.record("limit \(limit): \(result)")
                continue
            }
            #expect(rejection.status == 414)
            #expect(offered == limit + 1)
            // A long method or a long version is the same.
            let method = [UInt8](repeating: UInt8(ascii: "A"), count: limit + 1)
            #expect(HeadFeeder.allAtOnce(method, limits: limits) == .reject(rejection.withStart(method, limit)))
        }
    }
}

extension HeadRejection {
    /// The 414 for a request line that starts with `bytes`.
    fileprivate func withStart(_ bytes: [UInt8], _ limit: Int) -> HeadRejection {
        .requestLineTooLong(limit: limit, start: bytes.prefix(limit))
    }
}
