/// The digits 0–9 as 5×7 bitmaps, built in so that every machine draws the same pixels (no font files, no
/// rasteriser).
enum BitmapFont {
    /// Columns of a glyph.
    static let glyphWidth = 5
    /// Rows of a glyph.
    static let glyphHeight = 7
    /// Columns from the start of one glyph to the start of the next (one blank column between them).
    static let advance = 6

    /// Each digit's rows, top first; bit 4 of a row is its leftmost column.
    private static let digits: [[UInt8]] = [
        [0b01110, 0b10001, 0b10011, 0b10101, 0b11001, 0b10001, 0b01110],  // 0
        [0b00100, 0b01100, 0b00100, 0b00100, 0b00100, 0b00100, 0b01110],  // 1
        [0b01110, 0b10001, 0b00001, 0b00010, 0b00100, 0b01000, 0b11111],  // 2
        [0b11111, 0b00010, 0b00100, 0b00010, 0b00001, 0b10001, 0b01110],  // 3
        [0b00010, 0b00110, 0b01010, 0b10010, 0b11111, 0b00010, 0b00010],  // 4
        [0b11111, 0b10000, 0b11110, 0b00001, 0b00001, 0b10001, 0b01110],  // 5
        [0b00110, 0b01000, 0b10000, 0b11110, 0b10001, 0b10001, 0b01110],  // 6
        [0b11111, 0b00001, 0b00010, 0b00100, 0b01000, 0b01000, 0b01000],  // 7
        [0b01110, 0b10001, 0b10001, 0b01110, 0b10001, 0b10001, 0b01110],  // 8
        [0b01110, 0b10001, 0b10001, 0b01111, 0b00001, 0b00010, 0b01100],  // 9
    ]

    /// Whether the pixel at `column` (0..<glyphWidth), `row` (0..<glyphHeight) of `digit` (0...9) is set.
    static func isSet(digit: Int, column: Int, row: Int) -> Bool {
        digits[digit][row] & (0b10000 >> UInt8(column)) != 0
    }

    /// The decimal digits of `value`, most significant first.
    static func decimalDigits(of value: UInt64) -> [Int] {
        var digits: [Int] = []
        var rest = value
        repeat {
            digits.append(Int(rest % 10))
            rest /= 10
        } while rest > 0
        return digits.reversed()
    }

    /// The width in font columns of a run of `count` glyphs.
    static func textWidth(_ count: Int) -> Int {
        count == 0 ? 0 : advance * count - (advance - glyphWidth)
    }
}
