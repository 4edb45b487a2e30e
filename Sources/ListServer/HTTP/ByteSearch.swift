/// A search for ASCII text in a string's UTF-8, in place.
///
/// `String.UTF8View.firstRange(of:)` goes through `_StringProcessing`'s generic searcher, which copied the view
/// into an array first: the journal asked it of every request-target it took in (for `client_id=`), and it was the
/// larger part of a journal entry's cost (perf, issue 34).
enum ByteSearch {
    /// Whether `text` contains `needle`.
    static func contains(_ text: String, _ needle: StaticString) -> Bool {
        var text = text
        return text.withUTF8 { haystack in
            needle.withUTF8Buffer { needle in
                guard let first = needle.first else { return true }
                guard haystack.count >= needle.count else { return false }
                var start = 0
                let last = haystack.count - needle.count
                while start <= last {
                    if haystack[start] == first {
                        var matched = 1
                        while matched < needle.count && haystack[start + matched] == needle[matched] { matched += 1 }
                        if matched == needle.count { return true }
                    }
                    start += 1
                }
                return false
            }
        }
    }
}
