import Foundation
import Testing

@testable import ListServer

/// The responses a rejection carries: `wireBytes` must be a complete, valid HTTP/1.1 response with a problem+json
/// body, the same answer the server sends through evhttp for the marker request that stands in for the head.
@Suite("Request head scanner: rejections as wire bytes and problems")
struct RequestHeadRejectionTests {
    /// One rejection of every status the scanner (or the header deadline) produces, with its kind.
    static let samples: [(HeadRejection, Problem.Kind)] = {
        var small = HTTPLimits()
        small.maxRequestLineBytes = 64
        small.maxHeaderCount = 2
        let cases: [(String, Problem.Kind)] = [
            ("GET / HTTP/1.1\r\n\r\n", .malformedRequest),
            ("CONNECT x:443 HTTP/1.1\r\n", .methodNotAllowed),
            ("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n", .lengthRequired),
            ("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999\r\n\r\n", .bodyTooLarge),
            ("GET /" + String(repeating: "a", count: 100), .requestLineTooLong),
            ("GET / HTTP/1.1\r\nHost: x\r\nA: b\r\nC: d\r\n", .headersTooLarge),
            ("PROPFIND / HTTP/1.1\r\n", .notImplemented),
            ("GET / HTTP/2.0\r\n", .versionNotSupported),
        ]
        var samples = cases.map { text, kind -> (HeadRejection, Problem.Kind) in
            var scanner = RequestHeadScanner(limits: small)
            guard case .reject(let rejection) = scanner.scan(Array(text.utf8).span) else {
                fatalError("\(text.debugDescription) was not rejected")
            }
            return (rejection, kind)
        }
        samples.append((.requestTimeout(limits: small), .requestTimeout))
        return samples
    }()

    /// A response parsed from wire bytes, strictly.
    struct ParsedResponse {
        var version: String
        var status: Int
        var reason: String
        var headers: [(name: String, value: String)]
        var body: [UInt8]

        /// The values of every field called `name`, in any case.
        func values(_ name: String) -> [String] {
            headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
        }

        /// Parses `bytes` as one HTTP/1.1 response with a Content-Length body and nothing after it.
        init(_ bytes: [UInt8]) throws {
            let separator = Array("\r\n\r\n".utf8)
            guard let end = (0...(bytes.count - 4)).first(where: { Array(bytes[$0..<$0 + 4]) == separator }) else {
                throw TestFailure("no empty line")
            }
            let head = try #require(String(validating: bytes[..<end], as: UTF8.self))
            var lines = head.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
            #expect(!lines.contains { $0.contains("\r") || $0.contains("\n") }, "bare CR or LF in the head")
            let statusLine = lines.removeFirst().split(separator: " ", maxSplits: 2).map(String.init)
            guard statusLine.count == 3, let status = Int(statusLine[1]), statusLine[1].count == 3 else {
                throw TestFailure("bad status line \(statusLine)")
            }
            (version, self.status, reason) = (statusLine[0], status, statusLine[2])
            headers = try lines.map { line in
                guard let colon = line.firstIndex(of: ":"), line[line.index(after: colon)...].hasPrefix(" ") else {
                    throw TestFailure("bad header line \(line)")
                }
                return (String(line[..<colon]), String(line[line.index(colon, offsetBy: 2)...]))
            }
            body = Array(bytes[(end + 4)...])
        }
    }

    @Test("every rejection's wire bytes are a valid HTTP/1.1 response with a problem+json body of its status")
    func wireBytesParse() throws {
        for (rejection, kind) in Self.samples {
            let response = try ParsedResponse(rejection.wireBytes)
            #expect(response.version == "HTTP/1.1")
            #expect(response.status == kind.status)
            #expect(rejection.status == kind.status)
            #expect(response.reason == HTTPReasonPhrase.of(kind.status))
            #expect(response.reason != "Unknown")
            #expect(response.values("Content-Type") == ["application/problem+json"])
            #expect(response.values("Content-Length") == [String(response.body.count)])
            #expect(response.values("Connection") == ["close"])
            #expect(response.values("Allow") == (kind == .methodNotAllowed ? ["GET, HEAD, OPTIONS"] : []))
            #expect(response.values("Date").isEmpty)
            #expect(response.headers.count == (kind == .methodNotAllowed ? 4 : 3))

            let json = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
            #expect(json["type"] as? String == "\(kind.type)")
            #expect(json["title"] as? String == "\(kind.title)")
            #expect(json["status"] as? Int == kind.status)
            #expect(json["detail"] as? String == rejection.problem.detail)
            #expect(json.count == 4)
        }
    }

    @Test("the wire bytes start exactly as the brief lays them out")
    func wireLayout() throws {
        let (connect, _) = try #require(Self.samples.first { $0.1 == .methodNotAllowed })
        let text = String(decoding: connect.wireBytes, as: UTF8.self)
        let body = String(decoding: connect.response.body, as: UTF8.self)
        #expect(
            text
                == "HTTP/1.1 405 Method Not Allowed\r\nContent-Type: application/problem+json\r\n"
                + "Content-Length: \(body.utf8.count)\r\nAllow: GET, HEAD, OPTIONS\r\nConnection: close\r\n\r\n" + body)
    }

    @Test("the response value matches the wire bytes: status, headers, body")
    func responseValue() throws {
        for (rejection, kind) in Self.samples {
            let response = rejection.response
            #expect(response.status == kind.status)
            #expect(response.headers["Content-Type"] == "application/problem+json")
            #expect(response.headers["Connection"] == "close")
            #expect(response.headers["Content-Length"] == nil)
            #expect(try ParsedResponse(rejection.wireBytes).body == response.body)
        }
    }

    @Test("a timeout is a 408 that names the deadline")
    func timeout() {
        var limits = HTTPLimits()
        limits.headerTimeout = .milliseconds(2500)
        let rejection = HeadRejection.requestTimeout(limits: limits)
        #expect(rejection.status == 408)
        #expect(rejection.problem.kind == .requestTimeout)
        #expect(rejection.problem.detail == "the request head did not arrive within 2500 ms")
        #expect(HeadRejection.requestTimeout(limits: HTTPLimits()).problem.detail.hasSuffix("within 10000 ms"))
    }

    @Test("the new problem kinds have their statuses, and types and titles of their own")
    func problemKinds() {
        let expected: [(Problem.Kind, Int, String)] = [
            (.malformedRequest, 400, "malformed-request"), (.requestTimeout, 408, "request-timeout"),
            (.lengthRequired, 411, "length-required"), (.bodyTooLarge, 413, "body-too-large"),
            (.requestLineTooLong, 414, "request-line-too-long"), (.headersTooLarge, 431, "headers-too-large"),
            (.notImplemented, 501, "not-implemented"), (.versionNotSupported, 505, "version-not-supported"),
        ]
        for (kind, status, type) in expected {
            #expect(kind.status == status)
            #expect("\(kind.type)" == "urn:listserver:problem:\(type)")
        }
        let titles = Problem.Kind.allCases.map { "\($0.title)" }
        #expect(Set(titles).count == titles.count)
    }

    @Test("client values in details are escaped and cut: control bytes, quotes, obs-text, long values")
    func quoting() throws {
        #expect(HTTPBytes.quoted(Array("a\"b\\c".utf8)) == #""a\"b\\c""#)
        #expect(HTTPBytes.quoted([0x00, 0x1F, 0x7F, 0x80, 0xFF]) == #""\u{0}\u{1f}\u{7f}\x{80}\x{ff}""#)
        #expect(
            HTTPBytes.quoted([UInt8](repeating: 0x61, count: 64)) == "\"" + String(repeating: "a", count: 64) + "\"")
        #expect(
            HTTPBytes.quoted([UInt8](repeating: 0x61, count: 65)) == "\"" + String(repeating: "a", count: 64) + "\"...")
        let long = "X" + String(repeating: "Y", count: 500)
        let rejection = try #require(HeadFeeder.rejection(long + " / HTTP/1.1\r\n", status: 501))
        #expect(rejection.problem.detail.utf8.count < 200)
        let obsText = Array("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5".utf8) + [0xFF, 0x0D, 0x0A, 0x0D, 0x0A]
        let invalid = try #require(HeadFeeder.rejection(obsText, status: 400))
        #expect(invalid.problem.detail.hasSuffix(#"got "5\x{ff}""#))
        #expect(try ParsedResponse(invalid.wireBytes).status == 400)  // and the JSON escapes it validly
    }
}
