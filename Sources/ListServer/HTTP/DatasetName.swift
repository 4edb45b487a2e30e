/// The rule for a dataset's name, wherever it is given (`X-Dataset`, `?dataset=`, `/d/<name>/`).
enum DatasetName {
    /// Whether `utf8` is 1–64 of `[A-Za-z0-9._-]`.
    static func isValid(_ utf8: some Collection<UInt8>) -> Bool {
        (1...64).contains(utf8.count)
            && utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
                    true
                default: false
                }
            }
    }
}

extension DatasetName {
    /// The length of the `/d/<name>` a request-target's path starts with, for the byte-level checks that run before
    /// the router does (the upload limit, the connections kept for probes and admin): 0 when it has none, or a name
    /// that breaks the rule (which the router then refuses). `byte(i)` is the path's byte at `i`, for `i < count`.
    static func basePrefixLength(count: Int, byte: (Int) -> UInt8) -> Int {
        guard count >= 4, byte(0) == UInt8(ascii: "/"), byte(1) == UInt8(ascii: "d"), byte(2) == UInt8(ascii: "/")
        else { return 0 }
        var end = 3
        while end < count, byte(end) != UInt8(ascii: "/"), byte(end) != UInt8(ascii: "?") { end += 1 }
        guard end < count, byte(end) == UInt8(ascii: "/"), isValid((3..<end).lazy.map(byte)) else { return 0 }
        return end
    }
}
