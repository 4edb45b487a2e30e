import ListServer
import Testing

/// Bodies that are not RFC 8259 JSON, each with the byte offset and the reason the parser gives.
extension RequestJSONTests {
    @Test(
        "syntax errors say where and why",
        arguments: [
            ("", 0, "empty body"),
            (" \r\n\t", 4, "empty body"),
            (#"{"a":1 "b":2}"#, 7, #"expected ',' or '}', got '"'"#),
            (#"{"a":1"#, 6, "unexpected end of body, expected ',' or '}'"),
            ("[1 2]", 3, "expected ',' or ']', got '2'"),
            ("[1", 2, "unexpected end of body, expected ',' or ']'"),
            ("[", 1, "unexpected end of body, expected a value"),
            (#"{"a" 1}"#, 5, "expected ':' after the key, got '1'"),
            (#"{"a""#, 4, "unexpected end of body, expected ':' after the key"),
            (#"{"a":}"#, 5, "expected a value, got '}'"),
            ("{a:1}", 1, "expected a key in double quotes or '}', got 'a'"),
            (#"{"a":1,2}"#, 7, "expected a key in double quotes, got '2'"),
            ("{", 1, "unexpected end of body, expected a key in double quotes or '}'"),
            ("[,1]", 1, "expected a value, got ','"),
            ("]", 0, "expected a value, got ']'"),
            (#"{"a":1}x"#, 7, "trailing data after the value"),
            ("1 2", 2, "trailing data after the value"),
            ("{}{}", 2, "trailing data after the value"),
            ("nulll", 0, #"expected a value, got "nulll""#),
            ("truex", 0, #"expected a value, got "truex""#),
            ("True", 0, #"expected a value, got "True""#),
            ("[nul]", 1, #"expected a value, got "nul""#),
            ("undefined", 0, #"expected a value, got "undefined""#),
            ("#", 0, "expected a value, got '#'"),
        ])
    func syntax(text: String, offset: Int, reason: String) {
        #expect(jsonRejection(Array(text.utf8)) == RequestJSONError(offset: offset, reason: reason))
    }

    @Test(
        "what lenient parsers accept is refused",
        arguments: [
            ("[1,]", 3, "trailing comma before ']'"),
            ("[1, \n]", 5, "trailing comma before ']'"),
            (#"{"a":1,}"#, 7, "trailing comma before '}'"),
            (#"{"a":1, }"#, 8, "trailing comma before '}'"),
            ("['a']", 1, "strings take double quotes, not single quotes"),
            ("{'a':1}", 1, "keys take double quotes, not single quotes"),
            ("// note\n1", 0, "comments are not allowed"),
            ("[/* note */1]", 1, "comments are not allowed"),
            ("[1 /* note */]", 3, "expected ',' or ']', got '/'"),
            ("NaN", 0, "NaN and Infinity are not JSON numbers"),
            ("Infinity", 0, "NaN and Infinity are not JSON numbers"),
            ("-Infinity", 1, "NaN and Infinity are not JSON numbers"),
            ("[1,NaN]", 3, "NaN and Infinity are not JSON numbers"),
            ("\u{C}1", 0, "expected a value, got U+000C"),
            ("1\u{B}", 1, "trailing data after the value"),
            ("[1,\u{A0}2]", 3, "expected a value, got U+00A0"),
            ("[1,\u{2028}2]", 3, "expected a value, got U+2028"),
            ("\u{FEFF}{}", 0, "a byte order mark (U+FEFF) is not allowed"),
            (" \u{FEFF}{}", 1, "expected a value, got U+FEFF"),
        ])
    func lenientForms(text: String, offset: Int, reason: String) {
        #expect(jsonRejection(Array(text.utf8)) == RequestJSONError(offset: offset, reason: reason))
    }

    @Test(
        "numbers outside the grammar",
        arguments: [
            ("01", 1, "a number cannot have leading zeros"),
            ("-01", 2, "a number cannot have leading zeros"),
            ("00", 1, "a number cannot have leading zeros"),
            ("[0.5,007]", 6, "a number cannot have leading zeros"),
            ("+1", 0, "a number cannot start with '+'"),
            (".5", 0, "a number cannot start with '.'"),
            ("[-.5]", 2, "expected a digit after '-', got '.'"),
            ("1.", 2, "unexpected end of body, expected a digit after '.'"),
            ("[1.]", 3, "expected a digit after '.', got ']'"),
            ("1.e5", 2, "expected a digit after '.', got 'e'"),
            ("1e", 2, "unexpected end of body, expected a digit in the exponent"),
            ("1e+", 3, "unexpected end of body, expected a digit in the exponent"),
            ("[1E-x]", 4, "expected a digit in the exponent, got 'x'"),
            ("-", 1, "unexpected end of body, expected a digit after '-'"),
            ("-a", 1, "expected a digit after '-', got 'a'"),
            ("--1", 1, "expected a digit after '-', got '-'"),
            ("-Inf", 1, "expected a digit after '-', got 'I'"),
            ("0x10", 1, "trailing data after the value"),
            ("1_000", 1, "trailing data after the value"),
        ])
    func malformedNumbers(text: String, offset: Int, reason: String) {
        #expect(jsonRejection(Array(text.utf8)) == RequestJSONError(offset: offset, reason: reason))
    }

    @Test(
        "integers beyond Int64 and non-integers beyond Double are out of range, at the number's start",
        arguments: [
            ("9223372036854775808", 0), ("-9223372036854775809", 0), ("99999999999999999999999", 0),
            ("18446744073709551616", 0), ("[1, 1e309]", 4), ("-1e309", 0), ("1.8e308", 0),
            (#"{"n":123456789e999999999999999999999}"#, 5),
        ])
    func outOfRange(text: String, offset: Int) {
        #expect(jsonRejection(Array(text.utf8)) == RequestJSONError(offset: offset, reason: "number out of range"))
    }

    @Test(
        "strings: control characters, bad escapes, lone surrogates, no end",
        arguments: [
            ("\"a\tb\"", 2, "control character U+0009 in a string must be escaped"),
            ("\"\u{0}\"", 1, "control character U+0000 in a string must be escaped"),
            ("[\"x\\n\ny\"]", 5, "control character U+000A in a string must be escaped"),
            ("{\"\u{1F}\":1}", 2, "control character U+001F in a string must be escaped"),
            (#""\x""#, 1, #"invalid escape \x"#),
            (#""ok\U0041""#, 3, #"invalid escape \U"#),
            (#""\'""#, 1, #"invalid escape \'"#),
            ("\"\\\u{7}\"", 1, #"invalid escape \U+0007"#),
            (#""\u12""#, 1, #"expected 4 hex digits after \u"#),
            (#""\u12G4""#, 1, #"expected 4 hex digits after \u"#),
            (#""\u""#, 1, #"expected 4 hex digits after \u"#),
            (#""\ud800""#, 1, #"lone surrogate \ud800"#),
            (#""\uDBFF""#, 1, #"lone surrogate \udbff"#),
            (#""\udc00""#, 1, #"lone surrogate \udc00"#),
            (#""ab\uDFFF""#, 3, #"lone surrogate \udfff"#),
            (#""x\uD800\u0041""#, 2, #"lone surrogate \ud800"#),
            (#""\ud800\ud800""#, 1, #"lone surrogate \ud800"#),
            (#""\ud800x""#, 1, #"lone surrogate \ud800"#),
            (#""\ud800\n""#, 1, #"lone surrogate \ud800"#),
            (#""\udc00\ud800""#, 1, #"lone surrogate \udc00"#),
            (#"{"\ud800":1}"#, 2, #"lone surrogate \ud800"#),
            (#""\ud800\u12""#, 7, #"expected 4 hex digits after \u"#),
            (#""abc"#, 4, "unterminated string"),
            (#""a\""#, 4, "unterminated string"),
            (#""\"#, 2, "unterminated string"),
            (#"["é"#, 4, "unterminated string"),
        ])
    func badStrings(text: String, offset: Int, reason: String) {
        #expect(jsonRejection(Array(text.utf8)) == RequestJSONError(offset: offset, reason: reason))
    }

    @Test(
        "ill-formed UTF-8 is refused at the first byte of the bad sequence",
        arguments: [
            ([0x22, 0xC0, 0xAF, 0x22], 1),  // overlong "/"
            ([0x22, 0xC1, 0xBF, 0x22], 1),  // overlong U+007F
            ([0x22, 0xE0, 0x80, 0xAF, 0x22], 1),  // overlong, 3 bytes
            ([0x22, 0xE0, 0x9F, 0xBF, 0x22], 1),  // overlong U+07FF
            ([0x22, 0xF0, 0x80, 0x80, 0xAF, 0x22], 1),  // overlong, 4 bytes
            ([0x22, 0xF0, 0x8F, 0xBF, 0xBF, 0x22], 1),  // overlong U+FFFF
            ([0x22, 0xED, 0xA0, 0x80, 0x22], 1),  // U+D800 encoded
            ([0x22, 0xED, 0xBF, 0xBF, 0x22], 1),  // U+DFFF encoded
            ([0x22, 0xED, 0xA0, 0xBD, 0xED, 0xB8, 0x80, 0x22], 1),  // a surrogate pair in CESU-8
            ([0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], 1),  // U+110000
            ([0x22, 0xF5, 0x80, 0x80, 0x80, 0x22], 1),
            ([0x22, 0xF8, 0x88, 0x80, 0x80, 0x80, 0x22], 1),
            ([0x22, 0xFF, 0x22], 1),
            ([0x22, 0xFE, 0x22], 1),
            ([0x22, 0x61, 0x80, 0x22], 2),  // stray continuation byte
            ([0x22, 0xC3, 0xA9, 0xBF, 0x22], 3),
            ([0x22, 0xC3, 0x22], 1),  // cut short by the quote
            ([0x22, 0xE2, 0x82, 0x22], 1),
            ([0x22, 0xF0, 0x9F, 0x98, 0x22], 1),
            ([0x22, 0xE2, 0x82], 1),  // cut short by the end of the body
            ([0x22, 0x5C, 0x6E, 0xC3, 0x28, 0x22], 3),  // after an escape
            ([0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D], 2),  // in a key
            ([0xFF], 0),  // outside strings
            ([0x5B, 0x31, 0x2C, 0xC3], 3),
            ([0xEF, 0xBB], 0),
        ] as [([UInt8], Int)])
    func invalidUTF8(bytes: [UInt8], offset: Int) {
        #expect(jsonRejection(bytes) == RequestJSONError(offset: offset, reason: "invalid UTF-8"))
    }

    @Test("UTF-8 validation agrees with the standard library's on every 2-byte and many longer sequences")
    func utf8AgreesWithStandardLibrary() {
        let samples: [UInt8] = [
            0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC2, 0xE0, 0xED, 0xF0, 0xF4, 0xFF,
        ]
        var sequences: [[UInt8]] = []
        for lead in UInt8(0x80)...0xFF {
            for second in UInt8(0)...0xFF where second >= 0x80 || second == 0x41 {
                sequences.append([lead, second])
            }
            for second in samples {
                for third in samples {
                    sequences.append([lead, second, third])
                    for fourth in samples where lead >= 0xF0 {
                        sequences.append([lead, second, third, fourth])
                    }
                }
            }
        }
        var disagreements: [[UInt8]] = []
        for sequence in sequences {
            let valid = String(validating: sequence, as: UTF8.self) != nil
            let parsed = jsonRejection([0x22] + sequence + [0x22]) == nil
            if valid != parsed {
                disagreements.append(sequence)
            }
        }
        #expect(disagreements.isEmpty, "\(disagreements.prefix(10))")
    }
}
