import Testing

@testable import ListServer

@Suite("Percent-decoding")
struct PercentDecodingTests {
    @Test("decodes escapes in either case, and + only in query components")
    func decodes() throws {
        #expect(try PercentDecoding.decode("a%20b", plusAsSpace: false) == "a b")
        #expect(try PercentDecoding.decode("%2f%2F", plusAsSpace: false) == "//")
        #expect(try PercentDecoding.decode("a+b", plusAsSpace: false) == "a+b")
        #expect(try PercentDecoding.decode("a+b", plusAsSpace: true) == "a b")
        #expect(try PercentDecoding.decode("%2B1", plusAsSpace: true) == "+1")
        #expect(try PercentDecoding.decode("%C3%A9t%C3%A9", plusAsSpace: true) == "été")
        #expect(try PercentDecoding.decode("plain", plusAsSpace: true) == "plain")
        #expect(try PercentDecoding.decode("", plusAsSpace: true) == "")
    }

    @Test("a % must be followed by two hex digits", arguments: ["%zz", "%4", "%", "a%", "%g0", "%0g", "%%41", "%-1"])
    func malformed(raw: String) {
        #expect(throws: PercentDecodingError.malformedEscape) {
            try PercentDecoding.decode(raw[...], plusAsSpace: true)
        }
    }

    @Test("%00 is refused")
    func nul() {
        #expect(throws: PercentDecodingError.nul) { try PercentDecoding.decode("1%00", plusAsSpace: true) }
    }

    @Test("decoded bytes must be UTF-8", arguments: ["%FF", "%C3", "%C3%28", "%ED%A0%80", "%C0%AF", "a%80b"])
    func invalidUTF8(raw: String) {
        #expect(throws: PercentDecodingError.invalidUTF8) {
            try PercentDecoding.decode(raw[...], plusAsSpace: false)
        }
    }
}
