import ListDomain
import Testing

@Suite("Page")
struct PageTests {
    @Test func firstPage() {
        let page = Page(number: 1, limit: 20, total: 95)
        #expect(page.ids == 0..<20)
        #expect(page.totalPages == 5)
        #expect(page.nextPage == 2)
        #expect(page.previousPage == nil)
    }

    @Test func lastPartialPage() {
        let page = Page(number: 5, limit: 20, total: 95)
        #expect(page.ids == 80..<95)
        #expect(page.nextPage == nil)
        #expect(page.previousPage == 4)
    }

    @Test func lastFullPage() {
        let page = Page(number: 5, limit: 20, total: 100)
        #expect(page.ids == 80..<100)
        #expect(page.totalPages == 5)
        #expect(page.nextPage == nil)
    }

    @Test func pastTheEnd() {
        let page = Page(number: 6, limit: 20, total: 95)
        #expect(page.ids.isEmpty)
        #expect(page.ids == 95..<95)
        #expect(page.nextPage == nil)
        #expect(page.previousPage == 5)
    }

    @Test func emptyList() {
        let page = Page(number: 1, limit: 20, total: 0)
        #expect(page.totalPages == 0)
        #expect(page.ids.isEmpty)
        #expect(page.nextPage == nil)
        #expect(page.previousPage == nil)
    }

    @Test func limitOne() {
        let page = Page(number: 7, limit: 1, total: 10)
        #expect(page.ids == 6..<7)
        #expect(page.totalPages == 10)
        #expect(page.nextPage == 8)
        #expect(Page(number: 10, limit: 1, total: 10).nextPage == nil)
        #expect(Page(number: 10, limit: 1, total: 10).ids == 9..<10)
    }

    @Test func deepestPageOfTheLargestCatalog() {
        let total = Catalog.maximumCount  // 9_007_199_254_740_992
        let totalPages: UInt64 = 90_071_992_547_410  // ceil(2^53 / 100)
        let last = Page(number: totalPages, limit: 100, total: total)
        #expect(last.totalPages == totalPages)
        #expect(last.ids == 9_007_199_254_740_900..<9_007_199_254_740_992)
        #expect(last.nextPage == nil)
        #expect(last.previousPage == totalPages - 1)
        let beforeLast = Page(number: totalPages - 1, limit: 100, total: total)
        #expect(beforeLast.ids.count == 100)
        #expect(beforeLast.nextPage == totalPages)
        #expect(Page(number: totalPages + 1, limit: 100, total: total).ids.isEmpty)
    }

    @Test func hugeNumbersNeverTrap() {
        let maxPage = Page(number: .max, limit: 100, total: Catalog.maximumCount)
        #expect(maxPage.ids.isEmpty)
        #expect(maxPage.nextPage == nil)
        #expect(maxPage.previousPage == UInt64.max - 1)

        let maxLimit = Page(number: 1, limit: .max, total: 10)
        #expect(maxLimit.ids == 0..<10)
        #expect(maxLimit.totalPages == 1)
        #expect(Page(number: 2, limit: .max, total: 10).ids.isEmpty)
        #expect(Page(number: .max, limit: .max, total: .max).ids.isEmpty)

        // The very last id of a UInt64-sized list.
        let everything = Page(number: .max, limit: 1, total: .max)
        #expect(everything.ids == (UInt64.max - 1)..<UInt64.max)
        #expect(everything.totalPages == .max)
        #expect(everything.nextPage == nil)
        #expect(Page(number: 2, limit: .max, total: .max).totalPages == 1)
        #expect(Page(number: 1, limit: 2, total: .max).totalPages == 1 << 63)
    }

    @Test func degenerateInputsNeverTrap() {
        let zeroNumber = Page(number: 0, limit: 20, total: 95)
        #expect(zeroNumber.ids.isEmpty)
        #expect(zeroNumber.previousPage == nil)
        #expect(zeroNumber.nextPage == 1)
        let zeroLimit = Page(number: 1, limit: 0, total: 95)
        #expect(zeroLimit.ids.isEmpty)
        #expect(zeroLimit.totalPages == 0)
        #expect(zeroLimit.nextPage == nil)
    }

    @Test func pagesTileTheListExactlyOnce() {
        for total in 0...40 as ClosedRange<UInt64> {
            for limit in 1...9 as ClosedRange<UInt64> {
                let expectedPages = (total + limit - 1) / limit
                var covered: [UInt64] = []
                for number in 1...(expectedPages + 2) {
                    let page = Page(number: number, limit: limit, total: total)
                    #expect(page.totalPages == expectedPages)
                    #expect(page.ids.count <= Int(limit))
                    #expect(page.nextPage == (number < expectedPages ? number + 1 : nil))
                    covered += Array(page.ids)
                }
                #expect(covered == Array(0..<total), "total \(total) limit \(limit)")
            }
        }
    }

    @Test func catalogPagesUseTheCatalogCount() {
        let catalog = Catalog(seed: 1, count: 95)
        #expect(catalog.page(5, limit: 20) == Page(number: 5, limit: 20, total: 95))
    }
}
