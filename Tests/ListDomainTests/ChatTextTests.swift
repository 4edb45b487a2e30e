import Testing

@testable import ListDomain

@Suite("Generated message texts")
struct ChatTextTests {
    /// The texts of messages 0..<20,000 of conversations 0..<5 under seed 7.
    static let texts: [String] = (0..<5 as Range<UInt64>).flatMap { conversation in
        (0..<4_000 as Range<UInt64>).map { ChatText.text(seed: 7, conversation: conversation, message: $0) }
    }

    @Test("the mix the type promises: short, one or two sentences, long ones, emoji and right-to-left in their shares")
    func shares() {
        var short = 0
        var long = 0
        var emoji = 0
        var rightToLeft = 0
        for text in Self.texts {
            if text.unicodeScalars.contains(where: { (0x0590...0x06FF).contains($0.value) }) {
                rightToLeft += 1
                continue
            }
            if text.unicodeScalars.contains(where: { $0.value >= 0x2600 }) { emoji += 1 }
            let words = text.unicodeScalars.filter { $0.isASCII }.split(separator: " ").filter {
                $0.contains { ("a"..."z").contains($0) || ("A"..."Z").contains($0) }
            }
            // A sentence ends with `.`, `!` or `?` (runs of them count once).
            let sentences = words.filter { word in word.last.map { ".!?".unicodeScalars.contains($0) } ?? false }
            if sentences.isEmpty {
                #expect((1...6).contains(words.count), "a few words: \(text)")
                short += 1
            }
            if sentences.count >= 10 { long += 1 }
        }
        let count = Double(Self.texts.count)
        #expect((0.04...0.06).contains(Double(rightToLeft) / count), "one in twenty right to left: \(rightToLeft)")
        #expect((0.35...0.41).contains(Double(short) / count), "about 40 % × 19/20 a few words: \(short)")
        #expect((0.03...0.07).contains(Double(long) / count), "about 5 % × 19/20 ten sentences or more: \(long)")
        #expect((0.11...0.17).contains(Double(emoji) / count), "one in seven with emoji: \(emoji)")
    }

    @Test("texts are varied, fit in maximumBytes with the slack, and hold nothing JSON would escape")
    func bounds() {
        // The right-to-left texts are ten, with or without emoji; of the others, short ones may meet again.
        let leftToRight = Self.texts.filter { !$0.unicodeScalars.contains { (0x0590...0x06FF).contains($0.value) } }
        #expect(Set(leftToRight).count > leftToRight.count * 88 / 100, "nearly nine in ten texts differ")
        let longest = Self.texts.map(\.utf8.count).max() ?? 0
        #expect(longest + PackedText.slack <= ChatText.maximumBytes)
        #expect(longest > 500, "some texts are long: \(longest) bytes")
        // The page path's speed rests on it (PackedText): the tables in a first-level cache of 32 KB.
        #expect(ChatText.pieces.byteCount < 32 * 1_024, "the tables take \(ChatText.pieces.byteCount) bytes")
        for text in Self.texts {
            #expect(!text.isEmpty && text.first != " " && text.last != " ", "\(text)")
            #expect(!text.utf8.contains { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") })
        }
    }
}
