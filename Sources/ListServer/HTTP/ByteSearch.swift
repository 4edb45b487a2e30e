/// A search for ASCII text in a string's UTF-8, in place, over its `Span`.
///
/// `String.UTF8View.firstRange(of:)` goes through `_StringProcessing`'s generic searcher, which copied the view
/// into an array first, and `starts(with:)` walks the view generically: the journal asked these of every
/// request-target it took in, and they were most of a journal entry's cost (perf and callgrind, issue 34).
enum ByteSearch {
    /// Whether `text` contains `needle`.
    static func contains(_ text: String, _ needle: String) -> Bool {
        let haystack = text.utf8.span
        let needle = needle.utf8.span
        guard needle.count > 0 else { return true }
        guard haystack.count >= needle.count else { return false }
        let first = needle[unchecked: 0]
        var start = 0
        while start <= haystack.count - needle.count {
            if haystack[unchecked: start] == first && matches(haystack, needle, at: start) { return true }
            start += 1
        }
        return false
    }

    /// Whether `text` starts with `prefix`.
    static func hasPrefix(_ text: String, _ prefix: String) -> Bool {
        let haystack = text.utf8.span
        let needle = prefix.utf8.span
        return haystack.count >= needle.count && matches(haystack, needle, at: 0)
    }

    /// Whether `needle` is in `haystack` at `start` (which has room for it).
    static func matches(_ haystack: Span<UInt8>, _ needle: Span<UInt8>, at start: Int) -> Bool {
        for index in 0..<needle.count where haystack[unchecked: start + index] != needle[unchecked: index] {
            return false
        }
        return true
    }
}
