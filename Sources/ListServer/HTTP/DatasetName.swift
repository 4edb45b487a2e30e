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
