import Testing

@testable import ListServer

/// The per-loop id maker, on its own.
@Suite("Request id generator")
struct RequestIDGeneratorTests {
    @Test("ids count up in hex after the process and loop prefix")
    func counting() {
        var ids = RequestIDGenerator(loopIndex: 3)
        let prefix = RequestIDGenerator.processPrefix + "-3-"
        let made = (0..<300).map { _ in ids.next() }
        #expect(made[0] == prefix + "0")
        #expect(made[10] == prefix + "a")
        #expect(made[255] == prefix + "ff")
        #expect(made[256] == prefix + "100")
        #expect(Set(made).count == 300)
        #expect(RequestIDGenerator.processPrefix.utf8.count == 8)
    }

    @Test("a client's id is usable when it is 1...128 visible ASCII bytes")
    func usable() {
        for id in ["a", "trace-1", String(repeating: "~", count: 128), "!\"#$%&'()*+,-./"] {
            #expect(id.withCString(EvHTTPRequest.usableRequestID) == id, "\(id)")
        }
        for id in ["", " ", "a b", String(repeating: "a", count: 129), "\u{7f}", "caf\u{e9}"] {
            #expect(id.withCString(EvHTTPRequest.usableRequestID) == nil, "\(id.debugDescription)")
        }
    }
}
