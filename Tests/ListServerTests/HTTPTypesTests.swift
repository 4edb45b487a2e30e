import Testing

@testable import ListServer

@Suite("HTTP types: header fields and methods")
struct HTTPTypesTests {
    @Test("lookup ignores ASCII case and returns the first field of a name")
    func caseInsensitiveLookup() {
        var headers = HTTPHeaders([("Content-Type", "text/plain"), ("X-Cache", "HIT")])
        headers.add("content-type", "application/json")
        #expect(headers["content-type"] == "text/plain")
        #expect(headers["CONTENT-TYPE"] == "text/plain")
        #expect(headers["x-cache"] == "HIT")
        #expect(headers["X-Missing"] == nil)
        #expect(headers["Content-Typ"] == nil)
        #expect(headers["Content-Type-"] == nil)
        #expect(headers.values(for: "CONTENT-type") == ["text/plain", "application/json"])
        #expect(headers.count == 3)
    }

    @Test("Vary: every set of fields as one value, in one order; none for the empty set")
    func varyFields() {
        #expect(VaryFields().fieldValue == nil)
        #expect(VaryFields.acceptEncoding.fieldValue == "Accept-Encoding")
        #expect(VaryFields([.origin, .acceptEncoding]).fieldValue == "Accept-Encoding, Origin")
        #expect(VaryFields([.origin, .accept]).fieldValue == "Accept, Origin")
        #expect(VaryFields([.origin, .accept, .acceptEncoding]).fieldValue == "Accept, Accept-Encoding, Origin")
    }

    @Test("three names looked up in one pass: any case, the first of each, none for a name absent or of another length")
    func threeAtOnce() {
        let headers: HTTPHeaders = [
            "Link": "<x>", "etag": "\"a\"", "Vary": "Accept", "ETag": "\"b\"", "X-Request-Id": "1",
            "content-type": "application/json", "Retry-After-": "9",
        ]
        let (etag, retryAfter, contentType) = headers.values("ETag", "Retry-After", "Content-Type")
        #expect(etag == "\"a\"" && retryAfter == nil && contentType == "application/json")
        #expect(headers.values("Vary", "LINK", "x-request-id") == ("Accept", "<x>", "1"))
    }

    @Test("the journal's three: the first of each in any case, none absent; Retry-After only when asked")
    func journalFields() {
        let page: HTTPHeaders = [
            "Content-Type": "application/json", "Link": "<a>", "etag": "\"lower\"", "ETag": "\"exact\"",
            "Vary": "Accept-Encoding", "Retry-After": "3", "": "empty",
        ]
        #expect(page.journalFields(retryAfter: false) == (2, 0, nil))
        #expect(page.journalFields(retryAfter: true) == (2, 0, 5))
        let (etag, contentType, retryAfter) = page.journalFields(retryAfter: true)
        let values = (page.value(at: etag!), page.value(at: contentType!), page.value(at: retryAfter!))
        #expect(values == page.values("ETag", "Content-Type", "Retry-After"))
        #expect(page.value(at: 0, is: "application/json") && !page.value(at: 0, is: "application/jsonx"))
        let scripted: HTTPHeaders = ["content-type": "text/plain", "LINK": "<a>", "etag": "\"s\"", "retry-after": "9"]
        #expect(scripted.journalFields(retryAfter: true) == (2, 0, 3))
        let problem: HTTPHeaders = ["Content-Type": "application/problem+json", "Vary": "Accept-Encoding"]
        #expect(problem.journalFields(retryAfter: true) == (nil, 0, nil))
        let lookalikes: HTTPHeaders = ["ETah": "x", "Content-Typo": "x", "Retry-Aftes": "x", "eTaG": "\"t\""]
        #expect(lookalikes.journalFields(retryAfter: true) == (3, nil, nil))
    }

    @Test("names kept on the heap, not in the string itself, are found as small ones are")
    func heapNames() {
        var etag = "ETag"
        etag.reserveCapacity(64)  // native storage on the heap, the same four bytes
        var type = "content-type"
        type.reserveCapacity(64)
        var client = "X-Client-Id"
        client.reserveCapacity(64)
        var headers = HTTPHeaders()
        headers.add(type, "application/json")
        headers.add(etag, "\"h\"")
        headers.add(client, "app")
        #expect(headers.journalFields(retryAfter: false) == (1, 0, nil))
        #expect(headers.journalRequestFields() == (nil, 2, false))
        var other = "ETah"
        other.reserveCapacity(64)
        #expect(HTTPHeaders([(other, "x")]).journalFields(retryAfter: false) == (nil, nil, nil))
    }

    @Test("the journal's request fields: the first X-Dataset and non-empty X-Client-Id in any case, and the rare ones")
    func journalRequestFields() {
        let plain: HTTPHeaders = [
            "Host": "a", "x-client-id": "", "X-Dataset": "one", "X-CLIENT-ID": "app", "x-dataset": "2",
        ]
        #expect(plain.journalRequestFields() == (2, 3, false))
        #expect(plain.value(at: 2) == "one" && plain.value(at: 3) == "app")
        #expect(HTTPHeaders().journalRequestFields() == (nil, nil, false))
        let lookalikes: HTTPHeaders = ["Ranges": "x", "If-Matches": "x", "X-Datasets": "x", "Last-Event": "x"]
        #expect(lookalikes.journalRequestFields() == (nil, nil, false))
        // Of the same length and first byte: only the whole name tells them apart.
        let sameLength: HTTPHeaders = [
            "If-Range": "x", "Last-Modified": "x", "X-Datasex": "x", "x-client-ix": "x", "Idempotency-Kez": "x",
            "Rangf": "x",
        ]
        #expect(sameLength.journalRequestFields() == (nil, nil, false))
        for rare in ["range", "If-Match", "IF-NONE-MATCH", "last-event-id", "Idempotency-Key"] {
            let headers: HTTPHeaders = ["Host": "a", rare: "v"]
            #expect(headers.journalRequestFields() == (nil, nil, true), "\(rare)")
        }
    }

    @Test("fields keep their order and spelling when iterated")
    func orderedIteration() {
        let headers: HTTPHeaders = ["B": "2", "a": "1", "B": "3"]
        let pairs = headers.map { "\($0.name)=\($0.value)" }
        #expect(pairs == ["B=2", "a=1", "B=3"])
        var names: [String] = []
        for (name, _) in headers { names.append(name) }
        #expect(names == ["B", "a", "B"])
    }

    @Test("equality: same order, names in any case, values exact")
    func equality() {
        #expect(HTTPHeaders([("Allow", "GET, HEAD")]) == ["allow": "GET, HEAD"])
        #expect(HTTPHeaders([("Allow", "GET, HEAD")]) != ["Allow": "get, head"])
        #expect(HTTPHeaders([("A", "1"), ("B", "2")]) != ["B": "2", "A": "1"])
        #expect(HTTPHeaders() == [:])
    }

    @Test("non-ASCII names do not fold", arguments: [("É", "é"), ("K", "\u{212A}")])
    func asciiOnlyFolding(lhs: String, rhs: String) {
        #expect(!HTTPHeaders.namesMatch(lhs, rhs))
    }

    @Test(
        "a directive is found in any Cache-Control field, in any case, with or without an argument",
        arguments: [
            ["Cache-Control": "no-cache"],
            ["cache-control": "No-Cache"],
            ["Cache-Control": "max-age=0, no-cache"],
            ["Cache-Control": "max-age=0 ,\tno-cache\t"],
            ["Cache-Control": "no-cache=\"Set-Cookie\""],
            ["Cache-Control": "max-age=0", "Cache-Control": "no-cache"],
        ] as [HTTPHeaders])
    func listsDirective(headers: HTTPHeaders) {
        #expect(headers.listsDirective("no-cache", in: "Cache-Control"))
    }

    @Test(
        "a directive is not matched by a prefix, a longer name or an argument",
        arguments: [
            [:],
            ["Cache-Control": "max-age=0"],
            ["Cache-Control": "no-cache-please"],
            ["Cache-Control": "no-store"],
            ["Cache-Control": "private=no-cache"],
            ["Pragma": "no-cache"],
        ] as [HTTPHeaders])
    func doesNotListDirective(headers: HTTPHeaders) {
        #expect(!headers.listsDirective("no-cache", in: "Cache-Control"))
    }

    @Test("method tokens map to cases and back; unknown tokens are kept verbatim")
    func methods() {
        let known: [(String, HTTPMethod)] = [
            ("GET", .get), ("HEAD", .head), ("POST", .post), ("PUT", .put), ("DELETE", .delete),
            ("OPTIONS", .options), ("PATCH", .patch), ("TRACE", .trace), ("CONNECT", .connect),
        ]
        for (token, method) in known {
            #expect(HTTPMethod(token) == method)
            #expect(method.name == token)
        }
        #expect(HTTPMethod("get") == .other("get"))  // method names are case-sensitive (RFC 9110 §9.1)
        #expect(HTTPMethod("PROPFIND") == .other("PROPFIND"))
        #expect(HTTPMethod.other("PROPFIND").name == "PROPFIND")
    }
}
