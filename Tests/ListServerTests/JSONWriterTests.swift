import Foundation
import ListDomain
import Testing

@testable import ListServer

/// Renders what `body` writes as a String (the writer only ever produces UTF-8).
private func written(_ body: (inout JSONWriter) -> Void) -> String {
    var json = JSONWriter()
    body(&json)
    return String(decoding: json.bytes, as: UTF8.self)
}

@Suite("JSONWriter")
struct JSONWriterTests {
    @Test(arguments: [
        (UInt64(0), "0"), (9, "9"), (10, "10"), (12_345, "12345"), (1 << 53, "9007199254740992"),
        (UInt64.max, "18446744073709551615"),
    ])
    func unsignedIntegers(value: UInt64, expected: String) {
        #expect(written { $0.append(integer: value) } == expected)
    }

    @Test(arguments: [
        (0, "0"), (-1, "-1"), (42, "42"), (-10_000, "-10000"), (Int.max, "9223372036854775807"),
        (Int.min, "-9223372036854775808"),
    ])
    func signedIntegers(value: Int, expected: String) {
        #expect(written { $0.append(integer: value) } == expected)
    }

    /// Every number of digits, at its edges, and a spread of others: as `String(_:)` writes them.
    @Test func integersAtEveryDigitCount() {
        var values: [UInt64] = [UInt64.max, UInt64.max - 1]
        var power: UInt64 = 1
        for _ in 0..<20 {
            values += [power - 1, power, power + 1, power / 3 * 5]
            if power > UInt64.max / 10 { break }
            power *= 10
        }
        var generator = SplitMix64(seed: 99)
        for _ in 0..<2_000 { values.append(generator.next() >> (generator.next() % 64)) }
        for value in values {
            #expect(written { $0.append(integer: value) } == String(value))
        }
    }

    @Test func integersAppendAfterExistingBytes() {
        #expect(
            written { json in
                json.append(raw: "[")
                json.append(integer: UInt64(120))
                json.append(raw: ",")
                json.append(integer: -7)
                json.append(raw: "]")
            } == "[120,-7]")
    }

    @Test func stringEscaping() {
        #expect(written { $0.append(string: "") } == #""""#)
        #expect(written { $0.append(string: "plain") } == #""plain""#)
        #expect(written { $0.append(string: "say \"hi\"") } == #""say \"hi\"""#)
        #expect(written { $0.append(string: #"C:\dir\"#) } == #""C:\\dir\\""#)
        #expect(written { $0.append(string: "a\u{0}b\u{1F}c\n\t\r") } == #""a\u0000b\u001Fc\u000A\u0009\u000D""#)
        // Solidus and DEL need no escape; non-ASCII goes out as UTF-8.
        #expect(written { $0.append(string: "a/b\u{7F}") } == "\"a/b\u{7F}\"")
        #expect(written { $0.append(string: "Zoë Dubois") } == "\"Zoë Dubois\"")
        #expect(written { json in json.append(string: "é") }.utf8.elementsEqual([0x22, 0xC3, 0xA9, 0x22]))
    }

    @Test func everyStringRoundTripsThroughAParser() throws {
        var samples: [String] = (0..<0x80).map { String(Character(Unicode.Scalar(UInt8($0)))) }
        samples += [
            "Søren Nielsen", "Linh Nguyễn", "Zeynep Yılmaz", "日本語のテキスト", "emoji 🎉👩‍👩‍👧", "\u{2028}\u{2029}",
            "mixed \"quotes\" and \\ back\\slashes\u{0}\u{8}\u{C}", "\u{FEFF}bom", "\u{10FFFF}",
        ]
        samples.append(samples.joined())
        for sample in samples {
            var json = JSONWriter()
            json.append(string: sample)
            #expect(JSONValue.parse(json.bytes) == .string(sample), "\(sample.unicodeScalars.map(\.value))")
        }
    }

    @Test(arguments: [
        (0.5, "0.5"), (0.0, "0.0"), (-0.0, "-0.0"), (1.0, "1.0"), (0.1, "0.1"), (1e-05, "1e-05"),
        (0.42151234, "0.42151234"), (123_456.789, "123456.789"), (1e16, "1e+16"),
        (Double.leastNonzeroMagnitude, "5e-324"), (1.7976931348623157e308, "1.7976931348623157e+308"),
    ])
    func doublesAreShortestRoundTripAndValidJSON(value: Double, expected: String) throws {
        var json = JSONWriter()
        json.append(double: value)
        #expect(String(decoding: json.bytes, as: UTF8.self) == expected)
        let parsed = try #require(JSONValue.parse(json.bytes))
        guard case .number(let text) = parsed else {
            Issue.record("not a JSON number: \(parsed)")
            return
        }
        #expect(Double(text) == value)
        #expect(Double(text)?.sign == value.sign)
    }

    @Test(arguments: [Double.nan, .signalingNaN, .infinity, -.infinity])
    func nonFiniteDoublesAreNull(value: Double) {
        #expect(written { $0.append(double: value) } == "null")
    }

    @Test func randomDoublesInTheUnitIntervalRoundTrip() throws {
        var generator = SplitMix64(seed: 99)
        for _ in 0..<2_000 {
            let value = Double(generator.next() >> 11) * 0x1p-53
            var json = JSONWriter()
            json.append(double: value)
            let parsed = try #require(JSONValue.parse(json.bytes))
            guard case .number(let text) = parsed else {
                Issue.record("not a JSON number: \(parsed)")
                return
            }
            #expect(Double(text) == value)
        }
    }

    @Test func rawNullAndReset() {
        var json = JSONWriter(capacity: 64)
        json.append(raw: "{\"a\":")
        json.appendNull()
        json.append(raw: "}")
        #expect(json.bytes == Array(#"{"a":null}"#.utf8))
        json.reset()
        #expect(json.bytes.isEmpty && json.count == 0)
        json.append(raw: "[")
        json.append(integer: UInt64(7))
        json.append(raw: "]")
        #expect(json.bytes == Array("[7]".utf8))
    }

    /// Writes into reserved room give the bytes the checked writes give, at every digit count and sign.
    @Test func reservedWritesMatchCheckedWrites() {
        var reserved = JSONWriter(capacity: 1)
        var checked = JSONWriter(capacity: 1)
        for digits in 0..<20 {
            let value = digits == 0 ? 0 : UInt64.max / (UInt64(1) << (3 * digits % 64))
            reserved.reserve(64)
            reserved.appendReserved(raw: ",\"n\":")
            reserved.appendReserved(integer: value)
            reserved.appendReserved(integer: -Int(truncatingIfNeeded: value >> 1))
            reserved.appendReserved(encoded: Array("\"é\"".utf8))
            reserved.appendReserved(hex24: UInt32(truncatingIfNeeded: value))
            checked.append(raw: ",\"n\":")
            checked.append(integer: value)
            checked.append(integer: -Int(truncatingIfNeeded: value >> 1))
            checked.append(encoded: Array("\"é\"".utf8))
            checked.append(hex24: UInt32(truncatingIfNeeded: value))
        }
        #expect(reserved.bytes == checked.bytes)
    }

    /// A reserved write past the room reserved stops the process rather than write past the buffer.
    @Test func aReservedWritePastTheRoomTraps() async {
        await #expect(processExitsWith: .failure) {
            var json = JSONWriter(capacity: 16)
            json.reserve(16)
            json.appendReserved(raw: "0123456789abcdef")
            json.appendReserved(integer: UInt64(7))
        }
    }

    /// A writer that starts small grows as it goes, and keeps every byte.
    @Test func growsPastItsCapacity() {
        var json = JSONWriter(capacity: 1)
        var expected = ""
        for number in 0..<2_000 as Range<UInt64> {
            json.append(raw: ",\"key\":")
            json.append(integer: number * 7919)
            json.append(string: "é\u{0}")
            json.append(hex24: UInt32(truncatingIfNeeded: number &* 2654435761))
            expected += ",\"key\":\(number * 7919)\"é\\u0000\""
            expected += String(format: "%06x", UInt32(truncatingIfNeeded: number &* 2654435761) & 0xFFFFFF)
        }
        #expect(String(decoding: json.bytes, as: UTF8.self) == expected)
        #expect(json.count == expected.utf8.count)
    }

    @Test func itemDetailJSON() throws {
        var json = JSONWriter()
        ItemDetail(id: 42, amount: 0.5).writeJSON(into: &json)
        #expect(json.bytes == Array(#"{"id":42,"amount":0.5}"#.utf8))
        json.reset()
        ItemDetail(id: 7, amount: .nan).writeJSON(into: &json)
        #expect(JSONValue.parse(json.bytes) == .object(["id": .number("7"), "amount": .null]))
    }

    @Test func theParserRejectsInvalidJSON() {
        for text in [
            "", "{", "[1,]", "{\"a\":1,}", "01", "1.", ".5", "-", "1e", "\"\u{1}\"", "\"\\x\"", "nul", "[1] 2",
            "{\"a\":1,\"a\":2}", "\"\\u12G4\"", "\"\\uD800\"", "NaN", "inf",
        ] {
            #expect(JSONValue.parse(Array(text.utf8)) == nil, "\(text)")
        }
        #expect(
            JSONValue.parse(Array(" [1, -0.5e+3, \"\\u00e9\\ud83c\\udf89\", true, null] ".utf8))
                == .array([.number("1"), .number("-0.5e+3"), .string("é🎉"), .bool(true), .null]))
    }
}
