import ListDomain
import Testing

/// Item generation as values (the golden bytes are in ListServerTests' `CatalogJSONTests`, next to the JSON writer).
@Suite("Catalog")
struct CatalogTests {
    @Test func differentSeedsGiveDifferentItems() {
        let a = Catalog(seed: 42, count: 1_000)
        let b = Catalog(seed: 43, count: 1_000)
        var sameColor = 0
        var sameAmount = 0
        for id in 0..<1_000 as Range<UInt64> {
            if a.item(id)?.color == b.item(id)?.color { sameColor += 1 }
            if a.amount(for: id) == b.amount(for: id) { sameAmount += 1 }
        }
        #expect(sameColor < 5)
        #expect(sameAmount == 0)
    }

    @Test("an item with overrides is the generated item with those fields replaced, and nothing else")
    func itemWithOverrides() throws {
        let catalog = Catalog(seed: 7, count: 100)
        let cases = [
            ItemOverrides(),
            ItemOverrides(label: "sent"),
            ItemOverrides(author: "Ada", width: 1, height: 2),
            ItemOverrides(label: "all", author: "B", width: 3, height: 4, color: 0x00_0A_0B, likes: 5),
            ItemOverrides(color: 0xFF_FF_FF, likes: 0),
        ]
        for overrides in cases {
            for id: UInt64 in [0, 9, 99] {
                #expect(catalog.item(id, with: overrides) == overrides.applied(to: try #require(catalog.item(id))))
            }
        }
        // An id being handed out lies past the catalog's count: generated all the same.
        #expect(catalog.item(100, with: ItemOverrides()) == Catalog(seed: 7, count: 101).item(100))
    }

    @Test func fieldsStayInTheirRanges() throws {
        let catalog = Catalog(seed: 2024, count: 20_000)
        var authors = Set<String>()
        var portrait = 0
        var likes: [Int] = []
        for id in 0..<20_000 as Range<UInt64> {
            let item = try #require(catalog.item(id))
            #expect(item.id == id)
            #expect(item.label == "Line \(id)")
            #expect((640...6000).contains(item.width) && (640...6000).contains(item.height))
            let hex = Array(item.color.utf8)
            #expect(hex.count == 7 && hex[0] == UInt8(ascii: "#"))
            #expect(hex.dropFirst().allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
            #expect((0...10_000).contains(item.likes))
            let amount = catalog.amount(for: id)
            #expect(amount >= 0 && amount < 1)
            authors.insert(item.author)
            if item.height > item.width { portrait += 1 }
            likes.append(item.likes)
        }
        #expect(authors.count == 64)
        #expect(authors.contains { !$0.allSatisfy(\.isASCII) })
        #expect((4_500...7_000).contains(portrait))  // about 28 %: 30 % of the non-square sizes
        likes.sort()
        #expect((2_200...2_800).contains(likes[likes.count / 2]))  // median of 10 001 · u² is 2 500
    }
}
