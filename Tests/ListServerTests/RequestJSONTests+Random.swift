import Foundation
import ListDomain
import ListServer
import Testing

/// Large bodies, and seeded random ones: the parser copes with size and never traps, whatever the bytes.
extension RequestJSONTests {
    @Test("a 1 MB array of numbers parses")
    func megabyteOfNumbers() throws {
        let literals = ["0", "-1", "42", "3.25", "-0.5e-3", "1e10", "9223372036854775807", "123456"]
        var text = "["
        var count = 0
        while text.utf8.count < 1_000_000 {
            if count > 0 { text += "," }
            text += literals[count % literals.count]
            count += 1
        }
        text += "]"
        guard case .array(let elements) = try parseJSON(text) else {
            Issue.record("not an array")
            return
        }
        #expect(elements.count == count)
        #expect(elements[2] == jsonInteger(42))
        #expect(elements[6] == jsonInteger(Int64.max))
        guard case .number(let number) = elements[4] else { return }
        #expect(number.double == -0.0005)
    }

    @Test("large strings, escapes, objects and number literals parse")
    func largeValues() throws {
        let plain = String(repeating: "abcdé日🎉", count: 50_000)
        #expect(try parseJSON("\"" + plain + "\"") == .string(plain))
        let escaped = String(repeating: #"\n\u00e9\ud83d\ude00\"x"#, count: 40_000)
        #expect(try parseJSON("\"" + escaped + "\"") == .string(String(repeating: "\né😀\"x", count: 40_000)))

        let keys = (0..<60_000).map { "key\($0)" }
        let object = "{" + keys.map { "\"\($0)\":\"\($0)\"" }.joined(separator: ",") + "}"
        guard case .object(let members) = try parseJSON(object) else {
            Issue.record("not an object")
            return
        }
        #expect(members.map(\.key) == keys)

        let fraction = "0." + String(repeating: "1234567890", count: 100_000)
        guard case .number(let number) = try parseJSON(fraction) else { return }
        #expect(abs(number.double - 0.123456789) < 1e-9)
        let integer = String(repeating: "9", count: 1_000_000)
        #expect(jsonRejection(Array(integer.utf8)) == RequestJSONError(offset: 0, reason: "number out of range"))
    }

    /// Fragments that random mutations insert: JSON tokens, near misses and troublemakers.
    static let fragments: [[UInt8]] =
        [
            "{", "}", "[", "]", ",", ":", "\"", "\\", "\\u", "\\ud800", "\\udc00", "\\u00e9", "\"a\"", "0", "-", "1e",
            ".", "e", "+", "9223372036854775808", "1e309", "true", "nul", "NaN", " ", "\t", "\n", "\u{0}", "'", "/*",
            "é", "😀",
        ].map { Array($0.utf8) } + [[0x80], [0xC0], [0xED, 0xA0], [0xF4, 0x90], [0xFF], [0xEF, 0xBB, 0xBF]]

    /// Valid documents to mutate.
    static let seeds: [[UInt8]] = [
        ##"{"label":"Line 1","author":"Zoë","width":640,"height":480,"color":"#a1b2c3","likes":7}"##,
        #"[1,-0.5,2e3,"\u00e9\ud83d\ude00\n",true,false,null,{"a":[[]],"b":{}}]"#,
        #"{"a":{"b":{"c":{"d":[1,2,3]}}},"e":"\"quoted\"","f":-9223372036854775808}"#,
    ].map { Array($0.utf8) }

    @Test("random bytes never trap")
    func randomBytes() {
        var random = SplitMix64(seed: 2_026_0101)
        var accepted = 0
        for _ in 0..<20_000 {
            let count = Int(random.next() % 64)
            let bytes = (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            if jsonRejection(bytes, maxDepth: 4) == nil {
                accepted += 1
            }
        }
        // Random bytes are almost never JSON (a lone digit is); the point is that none of them trapped.
        #expect(accepted < 2_000)
    }

    @Test("mutated documents never trap; what parses serializes and parses back the same, and Foundation accepts it")
    func mutatedDocuments() throws {
        var random = SplitMix64(seed: 7_777)
        var accepted = 0
        for round in 0..<15_000 {
            var bytes = Self.seeds[round % Self.seeds.count]
            for _ in 0...(random.next() % 4) {
                let position = Int(random.next() % UInt64(bytes.count + 1))
                switch random.next() % 4 {
                case 0:
                    bytes.insert(
                        contentsOf: Self.fragments[Int(random.next() % UInt64(Self.fragments.count))], at: position)
                case 1 where position < bytes.count:
                    bytes.remove(at: position)
                case 2 where position < bytes.count:
                    bytes[position] = UInt8(truncatingIfNeeded: random.next())
                default:
                    bytes = Array(bytes.prefix(position))
                }
            }
            let value: RequestJSON
            do {
                value = try RequestJSON.parse(bytes, maxDepth: 6)
            } catch {
                #expect(error.offset >= 0 && error.offset <= bytes.count)
                continue
            }
            accepted += 1
            let written = Self.serialized(value)
            #expect(try RequestJSON.parse(written, maxDepth: 6) == value)
            // Strictness: whatever this parser accepts, a mainstream parser accepts too.
            #expect(
                (try? JSONSerialization.jsonObject(with: Data(bytes), options: .fragmentsAllowed)) != nil,
                "\(String(decoding: bytes, as: UTF8.self))")
        }
        #expect(accepted > 100)
    }

    @Test("random documents round-trip through a writer")
    func roundTrips() throws {
        var random = SplitMix64(seed: 99)
        for _ in 0..<2_000 {
            let value = Self.randomValue(depth: 0, &random)
            #expect(try RequestJSON.parse(Self.serialized(value), maxDepth: 5) == value)
        }
    }

    /// `value` as compact JSON text, strings escaped by the server's own ``JSONWriter``.
    static func serialized(_ value: RequestJSON) -> [UInt8] {
        var json = JSONWriter()
        write(value, into: &json)
        return json.bytes
    }

    private static func write(_ value: RequestJSON, into json: inout JSONWriter) {
        switch value {
        case .object(let members):
            json.append(raw: "{")
            for (index, member) in members.enumerated() {
                if index > 0 { json.append(raw: ",") }
                json.append(string: member.key)
                json.append(raw: ":")
                write(member.value, into: &json)
            }
            json.append(raw: "}")
        case .array(let elements):
            json.append(raw: "[")
            for (index, element) in elements.enumerated() {
                if index > 0 { json.append(raw: ",") }
                write(element, into: &json)
            }
            json.append(raw: "]")
        case .string(let string): json.append(string: string)
        case .number(let number): json.append(encoded: Array(number.literal.utf8))
        case .bool(let bool): json.append(raw: bool ? "true" : "false")
        case .null: json.append(raw: "null")
        }
    }

    /// A random value at most 5 levels deep, with unique keys and strings that need every kind of escape.
    private static func randomValue(depth: Int, _ random: inout SplitMix64) -> RequestJSON {
        let strings = ["", "a", "label", "é", "e\u{301}", "\u{212A}", "K", "😀", "\u{0}\u{1F}\"\\/", "\u{10FFFF}", "日本"]
        let numbers: [RequestJSON] = [
            jsonInteger(0), jsonInteger(-7), jsonInteger(Int64.min), .number(JSONNumber(literal: "-0", integer: 0)),
            .number(JSONNumber(literal: "1.5e-7", double: 1.5e-7)),
            .number(JSONNumber(literal: "1E308", double: 1e308)),
        ]
        func string() -> String { strings[Int(random.next() % UInt64(strings.count))] }
        switch random.next() % (depth < 5 ? 8 : 5) {
        case 0: return .string(string() + string())
        case 1: return numbers[Int(random.next() % UInt64(numbers.count))]
        case 2: return .bool(random.next() % 2 == 0)
        case 3: return .null
        case 4: return .string(string())
        case 5, 6:
            // Keys made unique by a counter, so the canonically equivalent pairs above are separate keys.
            let count = Int(random.next() % 5)
            return .object((0..<count).map { (key: string() + "\($0)", value: randomValue(depth: depth + 1, &random)) })
        default:
            let count = Int(random.next() % 5)
            return .array((0..<count).map { _ in randomValue(depth: depth + 1, &random) })
        }
    }
}
