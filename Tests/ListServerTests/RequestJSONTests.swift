import ListServer
import Testing

/// Parses `text` as a request body.
func parseJSON(_ text: String, maxDepth: Int = 16) throws(RequestJSONError) -> RequestJSON {
    try RequestJSON.parse(Array(text.utf8), maxDepth: maxDepth)
}

/// What parsing `bytes` throws, or nil if it parses.
func jsonRejection(_ bytes: [UInt8], maxDepth: Int = 16) -> RequestJSONError? {
    do {
        _ = try RequestJSON.parse(bytes, maxDepth: maxDepth)
        return nil
    } catch {
        return error
    }
}

/// An integer value, as the parser builds it from `value`'s decimal literal.
func jsonInteger(_ value: Int64) -> RequestJSON {
    .number(JSONNumber(literal: String(value), integer: value))
}

@Suite("Body: request JSON")
struct RequestJSONTests {
    @Test("objects, arrays and scalars nest, and members keep their order")
    func nested() throws {
        let parsed = try parseJSON(#"{"z":[1,"two",{"three":null}],"a":true,"m":false,"e":{},"n":[]}"#)
        let expected: RequestJSON = .object([
            (key: "z", value: .array([jsonInteger(1), .string("two"), .object([(key: "three", value: .null)])])),
            (key: "a", value: .bool(true)),
            (key: "m", value: .bool(false)),
            (key: "e", value: .object([])),
            (key: "n", value: .array([])),
        ])
        #expect(parsed == expected)
        guard case .object(let members) = parsed else {
            Issue.record("not an object")
            return
        }
        #expect(members.map(\.key) == ["z", "a", "m", "e", "n"])
    }

    @Test(
        "top-level scalars",
        arguments: [
            ("1", jsonInteger(1)), (#""s""#, RequestJSON.string("s")), ("true", .bool(true)), ("false", .bool(false)),
            ("null", .null),
        ])
    func scalars(text: String, expected: RequestJSON) throws {
        #expect(try parseJSON(text) == expected)
    }

    @Test("space, tab, CR and LF are allowed around every token")
    func whitespace() throws {
        let parsed = try parseJSON(" \t\r\n{ \"a\" :\t[ 1 ,\r\n2 ] , \"b\"\n:\"c\" } \n")
        #expect(
            parsed
                == .object([
                    (key: "a", value: .array([jsonInteger(1), jsonInteger(2)])), (key: "b", value: .string("c")),
                ]))
    }

    @Test("every escape decodes")
    func escapes() throws {
        #expect(try parseJSON(#""\"\\\/\b\f\n\r\t""#) == .string("\"\\/\u{8}\u{C}\n\r\t"))
        #expect(try parseJSON(#""a\u0062c""#) == .string("abc"))
        #expect(try parseJSON(#""\u00e9\u00E9""#) == .string("éé"))
        #expect(try parseJSON(#""\u0000""#) == .string("\u{0}"))
        #expect(try parseJSON(#""\uFFFF\u0800\u07ff""#) == .string("\u{FFFF}\u{800}\u{7FF}"))
        // An escape after raw UTF-8, and raw UTF-8 after an escape.
        #expect(try parseJSON(#""日本\n語🎉""#) == .string("日本\n語🎉"))
    }

    @Test("a surrogate pair of escapes is one scalar", arguments: [#""\ud83d\ude00""#, #""\uD83D\uDE00""#])
    func surrogatePair(text: String) throws {
        let parsed = try parseJSON(text)
        #expect(parsed == .string("😀"))
        guard case .string(let string) = parsed else { return }
        #expect(string.unicodeScalars.map(\.value) == [0x1F600])
        #expect(try parseJSON(#""\udbff\udfff""#) == .string("\u{10FFFF}"))
        #expect(try parseJSON(#""\ud800\udc00""#) == .string("\u{10000}"))
    }

    @Test(
        "raw UTF-8 at the edges of each sequence length",
        arguments: [
            "\u{7F}", "\u{80}", "\u{7FF}", "\u{800}", "\u{D7FF}", "\u{E000}", "\u{FFFD}", "\u{FFFF}", "\u{10000}",
            "\u{10FFFF}", "\u{FEFF} inside a string is text",
        ])
    func utf8Edges(text: String) throws {
        #expect(try parseJSON("\"" + text + "\"") == .string(text))
    }

    @Test("strings compare by Unicode scalars, not by canonical equivalence")
    func exactStrings() throws {
        #expect(RequestJSON.string("é") != .string("e\u{301}"))
        #expect(try parseJSON(#""\u00e9""#) == parseJSON("\"é\""))
        #expect(try parseJSON(#""e\u0301""#) != parseJSON("\"é\""))
        #expect(RequestJSON.object([(key: "\u{212A}", value: .null)]) != .object([(key: "K", value: .null)]))
    }

    @Test("integers keep their literal and their Int value")
    func integers() throws {
        let cases: [(String, Int)] = [
            ("0", 0), ("-0", 0), ("7", 7), ("-12", -12), ("100000", 100_000),
            ("9223372036854775807", Int.max), ("-9223372036854775808", Int.min),
        ]
        for (literal, value) in cases {
            let parsed = try parseJSON(literal)
            guard case .number(let number) = parsed else {
                Issue.record("\(literal) is not a number")
                continue
            }
            #expect(number.literal == literal)
            #expect(number.int == value)
            #expect(number.double == Double(value))
        }
        guard case .number(let minusZero) = try parseJSON("-0") else { return }
        #expect(minusZero.double.sign == .minus)
        #expect(minusZero != JSONNumber(literal: "0", integer: 0))
    }

    @Test("non-integers are Doubles, never Ints, even when whole")
    func doubles() throws {
        let cases: [(String, Double)] = [
            ("1.0", 1), ("1e2", 100), ("1E+2", 100), ("0.5", 0.5), ("-12.5e-3", -0.0125), ("1e308", 1e308),
            ("-1e308", -1e308), ("1.7976931348623157e308", .greatestFiniteMagnitude),
            ("5e-324", .leastNonzeroMagnitude),
            ("1e-400", 0), ("-0.0", -0.0), ("0e99999999999999999999", 0),
            ("123456789012345678901234567890.5", 123456789012345678901234567890.5),
            ("9223372036854775808.0", 9223372036854775808.0),
        ]
        for (literal, value) in cases {
            guard case .number(let number) = try parseJSON(literal) else {
                Issue.record("\(literal) is not a number")
                continue
            }
            #expect(number.literal == literal)
            #expect(number.int == nil, "\(literal)")
            #expect(number.double == value, "\(literal)")
        }
    }

    @Test("wholeValue: the Int a number is equal to, however written; nil when it has a fraction or does not fit")
    func wholeValues() throws {
        let cases: [(String, Int?)] = [
            ("7", 7), ("-0", 0), ("7.0", 7), ("7e0", 7), ("0.7e1", 7), ("700e-2", 7), ("-12.000", -12), ("1E+2", 100),
            ("0.0", 0), ("-0.0", 0), ("0e99999999999999999999", 0), ("0.000e-5", 0), ("9223372036854775807.0", Int.max),
            ("92233720368547758.07e2", Int.max), ("-9223372036854775807e0", -Int.max),
            ("7.5", nil), ("0.5", nil), ("1e-1", nil), ("1e-400", nil), ("1.0000000000000000001", nil),
            ("9223372036854775808.0", nil), ("1e19", nil), ("1.5e-99999999999", nil),
        ]
        for (literal, value) in cases {
            guard case .number(let number) = try parseJSON(literal) else {
                Issue.record("\(literal) is not a number")
                continue
            }
            #expect(number.wholeValue == value, "\(literal)")
        }
    }

    @Test("numbers end at the first byte outside the grammar")
    func numbersInArrays() throws {
        #expect(
            try parseJSON("[-0,0.0,1e1,2]")
                == .array([
                    .number(JSONNumber(literal: "-0", integer: 0)), .number(JSONNumber(literal: "0.0", double: 0)),
                    .number(JSONNumber(literal: "1e1", double: 10)), jsonInteger(2),
                ]))
    }

    @Test("keys that differ as Unicode scalars are different keys, even if canonically equivalent")
    func distinctKeys() throws {
        for text in [
            #"{"é":1,"e\u0301":2}"#, "{\"\u{212A}\":1,\"K\":2}", "{\"\u{212B}\":1,\"\u{C5}\":2}", #"{"a":1,"A":2}"#,
        ] {
            guard case .object(let members) = try parseJSON(text) else {
                Issue.record("\(text) is not an object")
                continue
            }
            #expect(members.count == 2, "\(text)")
        }
    }

    @Test("a key repeated in one object is refused at the repeat, also when spelled differently")
    func duplicateKeys() {
        #expect(
            jsonRejection(Array(#"{"a":1,"a":2}"#.utf8)) == RequestJSONError(offset: 7, reason: #"duplicate key "a""#))
        #expect(
            jsonRejection(Array(#"{"a":1,"\u0061":2}"#.utf8))
                == RequestJSONError(offset: 7, reason: #"duplicate key "a""#))
        #expect(
            jsonRejection(Array(#"{"label":"x", "likes":1, "label":"y"}"#.utf8))
                == RequestJSONError(offset: 25, reason: #"duplicate key "label""#))
        #expect(
            jsonRejection(Array(#"{"\ud83d\ude00":1,"😀":2}"#.utf8))
                == RequestJSONError(offset: 18, reason: #"duplicate key "\u{1f600}""#))
        // The same key in different objects is fine.
        #expect(jsonRejection(Array(#"{"a":{"a":1},"b":[{"a":1},{"a":2}]}"#.utf8)) == nil)
    }

    @Test("duplicates are found in large objects too (hashed past a few members)")
    func duplicateKeysInLargeObjects() {
        for count in [15, 16, 17, 40, 2_000] {
            let members = (0..<count).map { "\"k\($0)\":\($0)" }
            #expect(jsonRejection(Array(("{" + members.joined(separator: ",") + "}").utf8)) == nil)
            for repeated in [0, count / 2, count - 1] {
                let text = "{" + members.joined(separator: ",") + ","
                let offset = text.utf8.count
                let rejection = jsonRejection(Array((text + "\"k\(repeated)\":0}").utf8))
                #expect(rejection == RequestJSONError(offset: offset, reason: "duplicate key \"k\(repeated)\""))
            }
        }
    }

    @Test("nesting up to maxDepth parses; one level more is refused at the opening bracket")
    func depth() throws {
        #expect(try parseJSON("[[[[1]]]]", maxDepth: 4) == .array([.array([.array([.array([jsonInteger(1)])])])]))
        #expect(try parseJSON(#"{"a":{"b":[{"c":{}}]}}"#, maxDepth: 5) != .null)
        #expect(
            jsonRejection(Array("[[[[[1]]]]]".utf8), maxDepth: 4)
                == RequestJSONError(offset: 4, reason: "nesting deeper than 4"))
        #expect(
            jsonRejection(Array("[[[[[]]]]]".utf8), maxDepth: 4)
                == RequestJSONError(offset: 4, reason: "nesting deeper than 4"))
        #expect(
            jsonRejection(Array(#"{"a":{"b":[{"c":{}}]}}"#.utf8), maxDepth: 4)
                == RequestJSONError(offset: 16, reason: "nesting deeper than 4"))
        // Siblings do not add up: depth is nesting, not count.
        #expect(try parseJSON("[[1],[2],[[3]],{}]", maxDepth: 3) != .null)
        #expect(try parseJSON("5", maxDepth: 0) == jsonInteger(5))
        #expect(
            jsonRejection(Array("{}".utf8), maxDepth: 0) == RequestJSONError(offset: 0, reason: "nesting deeper than 0")
        )
        #expect(
            jsonRejection(Array("[]".utf8), maxDepth: -3)
                == RequestJSONError(offset: 0, reason: "nesting deeper than 0"))
    }

    @Test("a million opening brackets end at the depth limit, without recursion")
    func deepInput() {
        let bytes = [UInt8](repeating: UInt8(ascii: "["), count: 1_000_000)
        #expect(jsonRejection(bytes, maxDepth: 64) == RequestJSONError(offset: 64, reason: "nesting deeper than 64"))
        let objects = Array(String(repeating: #"{"a":"#, count: 200_000).utf8)
        #expect(jsonRejection(objects, maxDepth: 32) == RequestJSONError(offset: 160, reason: "nesting deeper than 32"))
    }

    @Test("errors describe themselves with their offset")
    func errorDescription() {
        #expect(
            RequestJSONError(offset: 12, reason: "expected ',' or '}'").description == "byte 12: expected ',' or '}'")
    }
}
