import ListDomain
import ListServer
import Testing

/// The overrides a POST body gives, parsed from `text`.
private func creation(_ text: String) throws -> ItemOverrides {
    try ItemBody.creation(parseJSON(text))
}

/// The patch a PATCH body gives, parsed from `text`.
private func patch(_ text: String) throws -> ItemPatch {
    try ItemBody.patch(parseJSON(text))
}

/// What `body` throws for the JSON `text`, or nil.
private func rejection<Result>(_ text: String, _ body: (RequestJSON) throws(ItemBodyError) -> Result) throws
    -> ItemBodyError?
{
    let json = try parseJSON(text)
    do {
        _ = try body(json)
        return nil
    } catch {
        return error
    }
}

/// What both entry points throw for `text`, when they agree; nil if either accepts it.
private func bothReject(_ text: String) throws -> ItemBodyError? {
    let created = try rejection(text, ItemBody.creation)
    let patched = try rejection(text, ItemBody.patch)
    #expect(created == patched, "\(text)")
    return created
}

@Suite("Body: item fields")
struct ItemBodyTests {
    @Test("POST: every field")
    func everyField() throws {
        let body = ##"{"label":"Hello","author":"Zoë","width":640,"height":480,"color":"#A1b2C3","likes":0}"##
        #expect(
            try creation(body)
                == ItemOverrides(label: "Hello", author: "Zoë", width: 640, height: 480, color: 0xA1B2C3, likes: 0))
    }

    @Test("POST: label alone; optional fields may be null, meaning generated")
    func labelAlone() throws {
        #expect(try creation(#"{"label":"x"}"#) == ItemOverrides(label: "x"))
        let nulls = #"{"author":null,"width":null,"height":null,"label":"x","color":null,"likes":null}"#
        #expect(try creation(nulls) == ItemOverrides(label: "x"))
    }

    @Test(
        "POST: label is required, and null is not a label",
        arguments: [
            "{}", #"{"author":"a"}"#, #"{"label":null}"#, #"{"label":null,"author":"a"}"#,
        ])
    func labelRequired(text: String) throws {
        #expect(try rejection(text, ItemBody.creation) == ItemBodyError(field: "label", reason: "label is required"))
    }

    @Test("PATCH: a merge patch; null returns a field to generated, absent keeps it")
    func mergePatch() throws {
        #expect(try patch("{}") == ItemPatch())
        var expected = ItemPatch()
        expected.label = .clear
        expected.author = .set("Ana")
        expected.width = .set(1)
        expected.color = .set(0x00FF00)
        expected.likes = .clear
        #expect(try patch(##"{"label":null,"author":"Ana","width":1,"color":"#00ff00","likes":null}"##) == expected)

        var everything = ItemPatch()
        everything.label = .clear
        everything.author = .clear
        everything.width = .clear
        everything.height = .clear
        everything.color = .clear
        everything.likes = .clear
        let allNull = #"{"label":null,"author":null,"width":null,"height":null,"color":null,"likes":null}"#
        #expect(try patch(allNull) == everything)

        let base = ItemOverrides(label: "old", author: "me", width: 5, likes: 3)
        #expect(expected.applied(to: base) == ItemOverrides(author: "Ana", width: 1, color: 0x00FF00))
    }

    @Test(
        "the body must be an object",
        arguments: [
            ("[]", "an array"), (#""label""#, "a string"), ("1", "a number"), ("true", "a boolean"), ("null", "null"),
        ])
    func notAnObject(text: String, kind: String) throws {
        let expected = ItemBodyError(field: nil, reason: "the body must be a JSON object, got \(kind)")
        #expect(try bothReject(text) == expected)
    }

    @Test("id is the server's")
    func id() throws {
        #expect(
            try rejection(#"{"label":"x","id":3}"#, ItemBody.creation)
                == ItemBodyError(field: "id", reason: #"field "id": the id is assigned by the server"#))
        #expect(
            try rejection(#"{"id":3}"#, ItemBody.patch)
                == ItemBodyError(field: "id", reason: #"field "id": the id cannot be changed"#))
        #expect(try rejection(#"{"id":null,"label":"x"}"#, ItemBody.creation)?.field == "id")
    }

    @Test(
        "an unknown field is named, keys compare exactly",
        arguments: [
            "colour", "Label", "label ", "ｌabel", "", "likes\u{0}", "ID",
        ])
    func unknownField(key: String) throws {
        var json = JSONWriter()
        json.append(string: key)
        let body = "{\"label\":\"x\"," + String(decoding: json.bytes, as: UTF8.self) + ":1}"
        let error = try bothReject(body)
        #expect(error?.field == key)
        #expect(error?.reason.hasPrefix("unknown field \"") == true)
        #expect(error?.reason.hasSuffix("; an item has label, author, width, height, color and likes") == true)
    }

    @Test("the first problem in document order is reported")
    func firstProblem() throws {
        #expect(try bothReject(#"{"width":0,"colour":1}"#)?.field == "width")
        #expect(try bothReject(#"{"colour":1,"width":0}"#)?.field == "colour")
    }

    @Test(
        "label and author lengths count Characters",
        arguments: [
            ("label", 1, true), ("label", 500, true), ("label", 501, false), ("label", 0, false),
            ("author", 1, true), ("author", 100, true), ("author", 101, false), ("author", 0, false),
        ])
    func lengths(field: String, count: Int, valid: Bool) throws {
        // "e" + U+0301 is one Character of two scalars; 🎉 one Character of four bytes.
        for unit in ["a", "e\u{301}", "🎉", "👩‍👩‍👧"] {
            let text = String(repeating: unit, count: count)
            var json = JSONWriter()
            json.append(string: text)
            let value = String(decoding: json.bytes, as: UTF8.self)
            let body = field == "label" ? "{\"label\":\(value)}" : "{\"label\":\"x\",\"author\":\(value)}"
            let limit = field == "label" ? 500 : 100
            let maxBytes = field == "label" ? 2_000 : 400
            // The byte limit is checked first: 500 family emoji are 500 Characters but 9,000 bytes.
            let expected =
                text.utf8.count > maxBytes
                ? ItemBodyError(
                    field: field,
                    reason: "field \"\(field)\": expected at most \(maxBytes) bytes of UTF-8, got \(text.utf8.count)")
                : valid
                    ? nil
                    : ItemBodyError(
                        field: field,
                        reason: "field \"\(field)\": expected a string of 1 to \(limit) characters, got \(count)")
            #expect(try rejection(body, ItemBody.creation) == expected, "\(unit) × \(count)")
            #expect(try rejection(body, ItemBody.patch) == expected, "\(unit) × \(count)")
        }
    }

    @Test(
        "label and author are bounded in bytes too: one Character of 30,000 combining marks is refused, naming the field",
        arguments: [("label", 2_000), ("author", 400)])
    func byteLimits(field: String, maxBytes: Int) throws {
        func body(_ text: String) -> String {
            field == "label" ? "{\"label\":\"\(text)\"}" : "{\"label\":\"x\",\"author\":\"\(text)\"}"
        }
        let huge = "e" + String(repeating: "\u{301}", count: 30_000)  // one Character, 60,001 bytes
        #expect(huge.count == 1)
        let expected = ItemBodyError(
            field: field, reason: "field \"\(field)\": expected at most \(maxBytes) bytes of UTF-8, got 60001")
        #expect(try rejection(body(huge), ItemBody.creation) == expected)
        #expect(try rejection(body(huge), ItemBody.patch) == expected)
        // Exactly at the limit in bytes (and within the Characters): accepted; one byte more: refused.
        let atLimit = "e" + String(repeating: "\u{301}", count: (maxBytes - 1) / 2)
        #expect(atLimit.utf8.count == maxBytes - (maxBytes - 1) % 2)
        #expect(try rejection(body(atLimit), ItemBody.creation) == nil)
        let over = String(repeating: "a", count: maxBytes + 1)
        #expect(try rejection(body(over), ItemBody.creation)?.field == field)
    }

    @Test("strings with U+0000 are refused, escaped or not")
    func nul() throws {
        let expected = ItemBodyError(field: "author", reason: #"field "author": U+0000 is not allowed"#)
        #expect(try bothReject(#"{"label":"x","author":"a\u0000b"}"#) == expected)
        #expect(try bothReject(#"{"label":"x","author":"\u0000"}"#) == expected)
    }

    @Test(
        "integer fields take whole numbers in their ranges, however written (JSON Schema's integer)",
        arguments: [
            ("width", "1", 1), ("width", "100000", 100_000), ("height", "1", 1), ("height", "100000", 100_000),
            ("likes", "0", 0), ("likes", "1000000000", 1_000_000_000), ("likes", "-0", 0),
            ("width", "1.0", 1), ("height", "1e2", 100), ("width", "2571.0", 2571), ("height", "65536.000", 65_536),
            ("likes", "1.5e3", 1500), ("likes", "150000E-2", 1500), ("likes", "0.1e1", 1), ("likes", "-0.0", 0),
            ("likes", "0e99999999999999999999", 0), ("likes", "1e9", 1_000_000_000), ("width", "1E+5", 100_000),
        ])
    func integers(field: String, literal: String, value: Int) throws {
        let overrides = try creation("{\"label\":\"x\",\"\(field)\":\(literal)}")
        let stored = field == "width" ? overrides.width : field == "height" ? overrides.height : overrides.likes
        #expect(stored == value)
    }

    @Test(
        "integer fields refuse everything else, naming the field and what it got",
        arguments: [
            ("width", "0", "0"), ("width", "100001", "100001"), ("height", "-1", "-1"), ("likes", "-1", "-1"),
            ("likes", "1000000001", "1000000001"), ("width", "1.5", "1.5"), ("height", "1e-1", "1e-1"),
            ("width", "1.0000000000000000001", "1.0000000000000000001"), ("likes", "1.0000000001e9", "1.0000000001e9"),
            ("height", "1e19", "1e19"), ("likes", "-1.0", "-1.0"), ("width", "0.0", "0.0"),
            ("likes", "9223372036854775807", "9223372036854775807"), ("width", #""640""#, #""640""#),
            ("height", "true", "true"), ("likes", "[1]", "an array"), ("width", "{}", "an object"),
            ("likes", "0." + String(repeating: "1", count: 100), "0." + String(repeating: "1", count: 62) + "..."),
        ])
    func badIntegers(field: String, literal: String, shown: String) throws {
        let range = field == "likes" ? "0...1000000000" : "1...100000"
        let expected = ItemBodyError(
            field: field, reason: "field \"\(field)\": expected an integer in \(range), got \(shown)")
        #expect(try bothReject("{\"label\":\"x\",\"\(field)\":\(literal)}") == expected)
    }

    @Test(
        "color: #rrggbb in either case, stored as 0xRRGGBB",
        arguments: [
            ("#000000", 0x000000), ("#ffffff", 0xFFFFFF), ("#FFFFFF", 0xFFFFFF), ("#a1B2c3", 0xA1B2C3),
            ("#0a0B0c", 0x0A0B0C),
        ] as [(String, UInt32)])
    func colors(text: String, value: UInt32) throws {
        #expect(try creation("{\"label\":\"x\",\"color\":\"\(text)\"}").color == value)
        #expect(try patch("{\"color\":\"\(text)\"}").color == .set(value))
    }

    @Test(
        "color: anything else is refused",
        arguments: [
            (#""red""#, #""red""#), (##""#fff""##, ##""#fff""##), (##""#12345g""##, ##""#12345g""##),
            (#""123456""#, #""123456""#), (##""#1234567""##, ##""#1234567""##), (##""#+12345""##, ##""#+12345""##),
            (##""# 12345""##, ##""# 12345""##), (##""#-12345""##, ##""#-12345""##),
            ("\"#１２３４５６\"", ##""#\u{ff11}\u{ff12}\u{ff13}\u{ff14}\u{ff15}\u{ff16}""##),
            (#""""#, #""""#), ("1193046", "1193046"), ("false", "false"), ("[]", "an array"),
        ])
    func badColors(literal: String, shown: String) throws {
        let expected = ItemBodyError(
            field: "color", reason: "field \"color\": expected a string \"#rrggbb\", got \(shown)")
        #expect(try bothReject("{\"label\":\"x\",\"color\":\(literal)}") == expected)
    }

    @Test(
        "string fields refuse other types",
        arguments: [
            ("label", "5", "5"), ("author", "false", "false"), ("label", #"["x"]"#, "an array"),
            ("author", #"{"a":1}"#, "an object"),
        ])
    func badStrings(field: String, literal: String, shown: String) throws {
        let limit = field == "label" ? 500 : 100
        let expected = ItemBodyError(
            field: field, reason: "field \"\(field)\": expected a string of 1 to \(limit) characters, got \(shown)")
        #expect(try bothReject("{\"label\":\"x\",\"\(field)\":\(literal)}".replacingLabel(field)) == expected)
    }

    @Test("a field given twice in a hand-built value is refused (the parser already refuses it in a body)")
    func repeatedField() throws {
        let json = RequestJSON.object([(key: "label", value: .string("a")), (key: "label", value: .string("b"))])
        let expected = ItemBodyError(field: "label", reason: #"field "label" appears twice"#)
        #expect(throws: expected) { try ItemBody.creation(json) }
        #expect(throws: expected) { try ItemBody.patch(json) }
    }

    @Test("errors describe themselves with their reason")
    func errorDescription() {
        #expect(ItemBodyError(field: "x", reason: "why").description == "why")
    }
}

extension String {
    /// This body with its `"label":"x",` prefix dropped when `field` is the label itself (so the label is tested).
    fileprivate func replacingLabel(_ field: String) -> String {
        field == "label" ? "{" + dropFirst(#"{"label":"x","#.count) : self
    }
}
