import Glibc

/// The `Date` field of a loop's answers, as C text, made again when the second changes: evhttp would make it for
/// every answer that has none (``HTTPDate``). Touched only on its loop's thread.
final class DateField {
    /// The second the text is of (`time`), and the text: 29 bytes and a NUL.
    private var second: time_t = -1
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
