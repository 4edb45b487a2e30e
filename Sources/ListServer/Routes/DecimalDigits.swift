extension UInt64 {
    /// How many digits `self` has in decimal (1 for 0; 20 at most).
    var decimalDigitCount: Int {
        var count = 1
        var rest = self
        while rest >= 10 {
            rest /= 10
            count += 1
        }
        return count
    }

    /// Writes `self` in decimal into `bytes[start ..< start + decimalDigitCount]`, last digit first: for header
    /// values built on the stack or in a string's own storage (`ETag`, `Location`), where an interpolation would go
    /// through `BinaryInteger.description` and string appends.
    func writeDecimal(into bytes: inout MutableSpan<UInt8>, at start: Int) {
        var rest = self
        for index in stride(from: start + decimalDigitCount - 1, through: start, by: -1) {
            bytes[index] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10)
            rest /= 10
        }
    }
}
