import Glibc
import Testing

@testable import ListServer

/// ``HTTPDate``: the `Date` field's text, checked against the C library's `gmtime_r` and `strftime` (C locale).
@Suite("HTTP dates")
struct HTTPDateTests {
    /// What the C library writes for `seconds`.
    static func reference(_ seconds: Int64) -> String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        var buffer = [CChar](repeating: 0, count: 64)
        let count = strftime(&buffer, buffer.count, "%a, %d %b %Y %H:%M:%S GMT", &parts)
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func text(_ seconds: Int64) -> String {
        String(decoding: HTTPDate.imfFixdate(secondsSince1970: seconds), as: UTF8.self)
    }

    @Test("known dates: RFC 9110's example, the epoch, a leap day, the ends of centuries")
    func knownDates() {
        #expect(Self.text(784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(Self.text(0) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(Self.text(1_709_164_800) == "Thu, 29 Feb 2024 00:00:00 GMT")
        #expect(Self.text(951_868_799) == "Tue, 29 Feb 2000 23:59:59 GMT")
        #expect(Self.text(4_107_542_400) == "Mon, 01 Mar 2100 00:00:00 GMT")  // 2100 has no 29 February
        #expect(Self.text(-1) == "Wed, 31 Dec 1969 23:59:59 GMT")
        #expect(Self.text(253_402_300_799) == "Fri, 31 Dec 9999 23:59:59 GMT")
    }

    @Test("the same text as the C library's, for 20,000 seconds from 1900 to 9999")
    func matchesTheCLibrary() {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let seconds = Int64.random(in: -2_208_988_800...253_402_300_799, using: &random)
            let text = Self.text(seconds)
            #expect(text == Self.reference(seconds), "\(seconds)")
            #expect(text.utf8.count == 29)
        }
    }
}
