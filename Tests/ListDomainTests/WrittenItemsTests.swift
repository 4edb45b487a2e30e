import Testing

@testable import ListDomain

@Suite("WrittenItems")
struct WrittenItemsTests {
    private func item(_ label: String, _ revision: UInt64) -> WrittenItem {
        WrittenItem(overrides: ItemOverrides(label: label), revision: revision)
    }

    @Test("created ids by position and patched generated ids by hash hold the same as a dictionary")
    func actsLikeADictionary() {
        let base: UInt64 = 10_000
        var items = WrittenItems(denseFrom: base)
        var expected: [UInt64: WrittenItem] = [:]
        var random = SplitMix64(seed: 12)
        // Generated ids below the base, created ids past it (several chunks, with gaps), and ids past the dense span.
        let far = base + UInt64(WrittenItems.chunkSize * WrittenItems.maximumChunks)
        let candidates: [ClosedRange<UInt64>] = [0...(base - 1), base...(base + 2_000), far...(far + 10)]
        for step in 0..<5_000 {
            let range = candidates[Int(random.next() % 3)]
            let id = UInt64.random(in: range, using: &random)
            if random.next() % 4 == 0 {
                items[id] = nil
                expected[id] = nil
            } else {
                let written = item("label \(step)", UInt64(step))
                items[id] = written
                expected[id] = written
            }
            #expect(items[id] == expected[id])
        }
        #expect(items.count == expected.count)
        #expect(items.all == expected)
        #expect(items == WrittenItems(expected))
        #expect(items == WrittenItems(expected, denseFrom: base))
        #expect(WrittenItems(expected) == items)
        for id in [base - 1, base, base + 255, base + 256, base + 5_000, far, far + 11] {
            #expect(items[id] == expected[id], "id \(id)")
        }
    }

    @Test("a small table is small: chunks end at their last written slot, and the sparse part is one table at first")
    func growsWithWhatItHolds() {
        var items = WrittenItems(denseFrom: 1_000)
        items[1_000] = item("first created", 1)
        #expect(items.allocatedSlots == (dense: 1, buckets: 0))
        for id in UInt64(1_001)..<1_256 { items[id] = item("created", id) }
        #expect(items.allocatedSlots == (dense: 256, buckets: 0))
        items[1_256] = item("next chunk", 1)
        #expect(items.allocatedSlots == (dense: 257, buckets: 0))
        items[3] = item("a generated one, patched", 2)
        #expect(items.allocatedSlots == (dense: 257, buckets: 1))
        for id in UInt64(10)..<UInt64(10 + WrittenItems.bucketThreshold) { items[id] = item("patched", id) }
        #expect(items.allocatedSlots.buckets == WrittenItems.bucketCount)
        // Split or not, every item reads back.
        #expect(items[3] == item("a generated one, patched", 2))
        #expect((10..<UInt64(10 + WrittenItems.bucketThreshold)).allSatisfy { items[$0] == item("patched", $0) })
        #expect(items.count == 257 + 1 + WrittenItems.bucketThreshold)
        // A slot past the end of its chunk reads as nothing, and clearing it allocates nothing.
        #expect(items[1_300] == nil)
        items[1_300] = nil
        #expect(items.allocatedSlots.dense == 257)
    }

    @Test("removing every item leaves an empty table equal to a new one")
    func emptiesAgain() {
        var items = WrittenItems(denseFrom: 100)
        for id in UInt64(0)..<1_000 { items[id] = item("x", id) }
        #expect(items.count == 1_000)
        for id in UInt64(0)..<1_000 { items[id] = nil }
        #expect(items.isEmpty && items.all.isEmpty)
        #expect(items == WrittenItems())
        // Clearing what was never written changes nothing.
        items[5_000_000] = nil
        items[3] = nil
        #expect(items.isEmpty)
    }

    @Test("a copy is untouched by writes to the original, in a shared chunk and bucket alike")
    func copiesAreValues() {
        var items = WrittenItems(denseFrom: 100)
        items[5] = item("generated", 1)
        items[100] = item("created", 2)
        let copy = items
        items[5] = item("changed", 3)
        items[101] = item("next", 4)
        items[100] = nil
        #expect(copy[5] == item("generated", 1) && copy[100] == item("created", 2) && copy[101] == nil)
        #expect(copy.count == 2 && items.count == 2)
        #expect(copy != items)
    }

    @Test("a written item takes 80 bytes, and a set number or upload reads back as written")
    func compactItems() {
        // Two copies of every written item are kept (the coordinator's left-right), so its size is the memory a
        // POST costs; it was 160 bytes with the numbers as optionals and the upload inline.
        #expect(MemoryLayout<WrittenItem?>.stride == 80)
        var overrides = ItemOverrides(width: 0, color: 0xFFFFFF, likes: 1_000_000_000)
        #expect(overrides.width == 0 && overrides.height == nil && overrides.color == 0xFFFFFF)
        #expect(overrides.likes == 1_000_000_000 && !overrides.isEmpty)
        overrides.width = nil
        overrides.color = nil
        overrides.likes = nil
        #expect(overrides.isEmpty && overrides == ItemOverrides())
        let image = StoredImage(format: .png, width: 2, height: 3, byteCount: 40, digest: 7, revision: 9)
        var item = WrittenItem(overrides: overrides, revision: 1, image: image)
        let copy = item
        item.image = nil
        #expect(copy.image == image && item.image == nil && copy != item)
        item.image = image
        #expect(copy == item)
    }

    @Test("the memory a table holds follows its writes: slots, entries and long text, back down when removed")
    func approximateBytes() {
        #expect(WrittenItems.slotBytes == MemoryLayout<WrittenItem?>.stride)
        #expect(WrittenItems.chunkEntryBytes == MemoryLayout<[WrittenItem?]?>.stride)
        let base: UInt64 = 1_000
        var items = WrittenItems(denseFrom: base)
        #expect(items.approximateBytes == 0)
        // A created item: its slot, and the chunk table's entry; a label of up to 15 bytes lives inside the string.
        let first = WrittenItems.slotBytes + WrittenItems.chunkEntryBytes
        #expect(items.growthBytes(at: base) == first)
        items[base] = item("short", 1)
        #expect(items.approximateBytes == first)
        #expect(items.growthBytes(at: base) == 0 && items.growthBytes(at: base + 1) == WrittenItems.slotBytes)
        let long = String(repeating: "é", count: 500)  // 1,000 UTF-8 bytes
        items[base] = item(long, 2)
        #expect(items.approximateBytes == first + 1_000 + 32)
        items[base] = nil  // the slot stays (ids are never reused); the text goes
        #expect(items.approximateBytes == first)
        // A patched generated item: an entry of the sparse part, and its text, both gone when it is removed.
        var patched = item(long, 3)
        patched.overrides.author = String(repeating: "a", count: 16)
        patched.image = StoredImage(format: .png, width: 2, height: 3, byteCount: 40, digest: 7, revision: 9)
        #expect(items.growthBytes(at: 7) == WrittenItems.entryBytes)
        items[7] = patched
        #expect(items.approximateBytes == first + WrittenItems.entryBytes + 1_032 + 48 + WrittenItems.uploadBytes)
        #expect(items.growthBytes(at: 7) == 0)
        items[7] = item("short", 4)
        #expect(items.approximateBytes == first + WrittenItems.entryBytes)
        items[7] = nil
        #expect(items.approximateBytes == first)
        // An id far past the last one (the list grew meanwhile): the slots before it and the chunks up to it.
        let far = base + UInt64(3 * WrittenItems.chunkSize + 9)
        #expect(items.growthBytes(at: far) == 3 * WrittenItems.chunkEntryBytes + 10 * WrittenItems.slotBytes)
        // Many created items: a slot each, and an entry for each chunk they fill.
        for id in (base + 1)...(base + 1_000) { items[id] = item("x", id) }
        #expect(items.approximateBytes == 1_001 * WrittenItems.slotBytes + 4 * WrittenItems.chunkEntryBytes)
    }
}
