import Glibc

/// The `Date` field of a loop's answers, as C text, made again when the second changes (``HTTPDate``): evhttp would
/// make one for every HTTP/1.1 answer that has none (and none for HTTP/1.0, which RFC 9110 asks for as well).
/// Touched only on its loop's thread.
final class DateField {
    /// The second the text is of (`time`), and the text: 29 bytes and a NUL.
    private var second = time_t.min  // (-1 is 1969's last second, and `time`'s error)
    private let text = UnsafeMutablePointer<CChar>.allocate(capacity: 30)

    init() {
        text.initialize(repeating: 0, count: 30)
    }

    deinit {
        text.deallocate()
    }

    /// The date now, valid until the next call.
    var current: UnsafePointer<CChar> {
        let now = time(nil)
        if now != second {
            second = now
            for (index, byte) in HTTPDate.imfFixdate(secondsSince1970: Int64(now)).enumerated() {
                text[index] = CChar(bitPattern: byte)
            }
        }
        return UnsafePointer(text)
    }
}
