import ListDomain
import Testing

@testable import ListServer

/// Renders `catalog.writeItem(id)` as a String.
private func itemJSON(_ catalog: Catalog, _ id: UInt64) -> String {
    var json = JSONWriter()
    catalog.writeItem(id, into: &json)
    return String(decoding: json.bytes, as: UTF8.self)
}

/// Renders `item.writeJSON` (the field-by-field path) as bytes.
private func fieldByField(_ item: Item) -> [UInt8] {
    var json = JSONWriter()
    item.writeJSON(into: &json)
    return json.bytes
}

/// The catalog as the server writes it: golden items (the generated data, byte for byte), pages and details.
@Suite("Catalog: JSON")
struct CatalogJSONTests {
    /// Golden values, cross-checked against an independent Python implementation of the derivation (the
    /// `blur_hash`es against the Python `blurhash` package's decoder, by scripts/bytes-test.sh). If one of these
    /// fails, every server would serve different data than before: the derivation, the salts, the name table, the
    /// size table or the photos' layout changed.
    @Test(arguments: [
        (
            UInt64(0),
            ##"{"id":0,"label":"Line 0","author":"Ananya Iyer","width":3000,"height":2000,"color":"#31a76e","blur_hash":"LV62_KkpVtkpuhkCaykCkWj[fPfQ","likes":6975,"image_url":"/items/0/image"}"##
        ),
        (
            1,
            ##"{"id":1,"label":"Line 1","author":"Tariq Aziz","width":1280,"height":720,"color":"#826735","blur_hash":"LHF5A_%0NHxZ~oofaeofxuj[ayj[","likes":6283,"image_url":"/items/1/image"}"##
        ),
        (
            2,
            ##"{"id":2,"label":"Line 2","author":"Olga Petrova","width":1536,"height":2048,"color":"#529e1b","blur_hash":"LJ9mcwthV]th*DkBaykBoyj@ayf7","likes":2491,"image_url":"/items/2/image"}"##
        ),
        (
            3,
            ##"{"id":3,"label":"Line 3","author":"Santiago López","width":2160,"height":3840,"color":"#11048b","blur_hash":"LD2E{QjyawjyoTfSfPfSj^fRfQfR","likes":118,"image_url":"/items/3/image"}"##
        ),
        (
            1_000_000,
            ##"{"id":1000000,"label":"Line 1000000","author":"Ahmed Hassan","width":3000,"height":2000,"color":"#a8139f","blur_hash":"LJJVeX,xWU,w]uoMa{o3oNfRfPju","likes":6552,"image_url":"/items/1000000/image"}"##
        ),
        (
            9_007_199_254_740_991,
            ##"{"id":9007199254740991,"label":"Line 9007199254740991","author":"Lucas Bernard","width":768,"height":1024,"color":"#83c78f","blur_hash":"LjFIFktQRjtQ.lkCaykCo#j[ayj[","likes":1708,"image_url":"/items/9007199254740991/image"}"##
        ),
    ])
    func goldenItems(id: UInt64, expected: String) {
        let catalog = Catalog(seed: 42, count: Catalog.maximumCount)
        #expect(itemJSON(catalog, id) == expected)
    }

    @Test func goldenAmounts() {
        let catalog = Catalog(seed: 42, count: Catalog.maximumCount)
        // amount = n / 2^53 exactly; pinning n catches any drift in the last bit.
        #expect(catalog.amount(for: 0) == Double(6_851_048_224_760_445) * 0x1p-53)
        #expect(catalog.amount(for: 1) == Double(4_868_804_835_116_589) * 0x1p-53)
        #expect(catalog.amount(for: 9_007_199_254_740_991) == Double(7_242_657_444_977_259) * 0x1p-53)
        var json = JSONWriter()
        ItemDetail(id: 0, amount: catalog.amount(for: 0)).writeJSON(into: &json)
        #expect(json.bytes == Array(#"{"id":0,"amount":0.760619148194635}"#.utf8))
        #expect(Catalog(seed: 0, count: 10).amount(for: 3) == 0.7428338802962934)
    }

    @Test func otherSeedGolden() {
        #expect(
            itemJSON(Catalog(seed: 0, count: 10), 3)
                == ##"{"id":3,"label":"Line 3","author":"Zeynep Yılmaz","width":1920,"height":1080,"color":"#fc838f","blur_hash":"LPS_Gl^6WB^6}]oMn%oMf+fQjtfR","likes":4583,"image_url":"/items/3/image"}"##
        )
    }

    @Test func sameSeedAndIdGiveTheSameItemAndBytes() {
        let first = Catalog(seed: 7, count: 1 << 40)
        let second = Catalog(seed: 7, count: 1 << 40)
        for id in [0, 1, 999, 1 << 39, (1 << 40) - 1] as [UInt64] {
            #expect(first.item(id) == second.item(id))
            #expect(first.amount(for: id) == second.amount(for: id))
            #expect(itemJSON(first, id) == itemJSON(second, id))
        }
    }

    @Test func fastPathMatchesFieldByFieldRendering() throws {
        for seed in [0, 42, .max, 0x1234_5678_9ABC_DEF0] as [UInt64] {
            let catalog = Catalog(seed: seed, count: Catalog.maximumCount)
            let ids = Array(0..<300 as Range<UInt64>) + [1 << 32, 1 << 52, Catalog.maximumCount - 1]
            for id in ids {
                let item = try #require(catalog.item(id))
                let fast = Array(itemJSON(catalog, id).utf8)
                #expect(fast == fieldByField(item), "seed \(seed) id \(id)")
            }
        }
    }

    @Test func itemsPastTheEndAreNil() {
        let catalog = Catalog(seed: 1, count: 10)
        #expect(catalog.item(9) != nil)
        #expect(catalog.item(10) == nil)
        #expect(catalog.item(.max) == nil)
        #expect(itemJSON(catalog, 10) == "null")
        #expect(Catalog(seed: 1, count: 0).item(0) == nil)
    }

    @Test func writePageBody() throws {
        let catalog = Catalog(seed: 5, count: 3)
        var json = JSONWriter()
        catalog.writePage(catalog.page(1, limit: 2), into: &json)
        let expected =
            "{\"items\":[" + itemJSON(catalog, 0) + "," + itemJSON(catalog, 1)
            + "],\"page\":1,\"limit\":2,\"total\":3,\"total_pages\":2,\"next_page\":2,\"version\":1}"
        #expect(String(decoding: json.bytes, as: UTF8.self) == expected)

        json.reset()
        catalog.writePage(catalog.page(2, limit: 2), into: &json)
        let parsed = try #require(JSONValue.parse(json.bytes))
        guard case .array(let items) = try #require(parsed["items"]) else {
            Issue.record("items is not an array")
            return
        }
        #expect(items.count == 1)
        #expect(items[0]["id"] == .number("2"))
        #expect(items[0]["label"] == .string("Line 2"))
        #expect(parsed["next_page"] == .null)
        #expect(parsed["total_pages"] == .number("2"))
    }

    @Test func writePagePastTheEndAndEmptyCatalog() {
        var json = JSONWriter()
        Catalog(seed: 5, count: 3).writePage(Page(number: .max, limit: 100, total: 3), into: &json)
        #expect(
            String(decoding: json.bytes, as: UTF8.self)
                == #"{"items":[],"page":18446744073709551615,"limit":100,"total":3,"total_pages":1,"next_page":null,"version":1}"#
        )
        json.reset()
        let empty = Catalog(seed: 5, count: 0)
        empty.writePage(empty.page(1, limit: 20), into: &json)
        #expect(
            String(decoding: json.bytes, as: UTF8.self)
                == #"{"items":[],"page":1,"limit":20,"total":0,"total_pages":0,"next_page":null,"version":1}"#)
    }

    @Test func newestFirstPagesCountFromTheEnd() {
        let catalog = Catalog(seed: 5, count: 10)
        func body(_ number: UInt64, limit: UInt64) -> String {
            var json = JSONWriter()
            catalog.writePage(catalog.page(number, limit: limit), order: .desc, into: &json)
            return String(decoding: json.bytes, as: UTF8.self)
        }
        func items(_ ids: [UInt64]) -> String {
            "{\"items\":[" + ids.map { itemJSON(catalog, $0) }.joined(separator: ",") + "]"
        }
        #expect(body(1, limit: 3).hasPrefix(items([9, 8, 7])))
        #expect(body(3, limit: 3).hasPrefix(items([3, 2, 1])))
        #expect(body(4, limit: 3).hasPrefix(items([0])), "the last page holds the oldest item")
        #expect(body(5, limit: 3).hasPrefix(items([])), "past the end")
        #expect(
            body(1, limit: 2)
                == items([9, 8])
                + ",\"page\":1,\"limit\":2,\"total\":10,\"total_pages\":5,\"next_page\":2,\"version\":1}")
    }

    @Test func writePageEndsWithTheCatalogVersion() {
        var json = JSONWriter()
        Catalog(seed: 5, count: 0).writePage(Page(number: 2, limit: 5, total: 0), version: 42, into: &json)
        #expect(
            String(decoding: json.bytes, as: UTF8.self)
                == #"{"items":[],"page":2,"limit":5,"total":0,"total_pages":0,"next_page":null,"version":42}"#)
    }

    @Test func deepestPageOfTheLargestCatalogIsValidJSON() throws {
        let catalog = Catalog(seed: 42, count: Catalog.maximumCount)
        let page = catalog.page(450_359_962_737_050, limit: 20)  // 2^53 / 20, rounded up: the last page
        #expect(page.ids == 9_007_199_254_740_980..<9_007_199_254_740_992)
        var json = JSONWriter()
        catalog.writePage(page, into: &json)
        let parsed = try #require(JSONValue.parse(json.bytes))
        guard case .array(let items) = try #require(parsed["items"]) else {
            Issue.record("items is not an array")
            return
        }
        #expect(items.count == 12)
        #expect(items.last?["id"] == .number("9007199254740991"))
        #expect(parsed["next_page"] == .null)
    }

    @Test func everyItemOfAPageParses() throws {
        let catalog = Catalog(seed: 9, count: 10_000)
        var json = JSONWriter()
        for number in [1, 2, 250, 500] as [UInt64] {
            json.reset()
            let page = catalog.page(number, limit: 20)
            catalog.writePage(page, into: &json)
            let parsed = try #require(JSONValue.parse(json.bytes))
            guard case .array(let items) = try #require(parsed["items"]) else {
                Issue.record("items is not an array")
                return
            }
            #expect(items.count == 20)
            for (offset, id) in page.ids.enumerated() {
                let item = try #require(catalog.item(id))
                #expect(items[offset]["author"] == .string(item.author))
                #expect(items[offset]["color"] == .string(item.color))
            }
        }
    }
}

/// Cursor pages as the server writes them.
@Suite("CursorPage: JSON")
struct CursorPageJSONTests {
    @Test func writeCursorPageBody() throws {
        let catalog = Catalog(seed: 5, count: 10)
        var item = JSONWriter()
        var items: [String] = []
        for id in [9, 8] as [UInt64] {
            item.reset()
            catalog.writeItem(id, into: &item)
            items.append(String(decoding: item.bytes, as: UTF8.self))
        }
        var json = JSONWriter()
        let page = CursorPage(cursor: .start, order: .desc, limit: 2, total: 10)
        catalog.writeCursorPage(page, version: 3, into: &json)
        let expected =
            "{\"items\":[" + items.joined(separator: ",")
            + "],\"has_more\":true,\"next_cursor\":8,\"order\":\"desc\",\"limit\":2,\"total\":10,\"version\":3}"
        #expect(String(decoding: json.bytes, as: UTF8.self) == expected)
        #expect(JSONValue.parse(json.bytes) != nil)

        json.reset()
        catalog.writeCursorPage(
            CursorPage(cursor: .before(0), order: .asc, limit: 20, total: 10), version: 1, into: &json)
        #expect(
            String(decoding: json.bytes, as: UTF8.self)
                == #"{"items":[],"has_more":false,"next_cursor":null,"order":"asc","limit":20,"total":10,"version":1}"#)
    }
}
