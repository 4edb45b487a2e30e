/// Makes the request ids of one event loop: `<process>-<loop>-<counter>`, e.g. `5f3a9c21-0-1a`.
///
/// `<process>` is 8 random hex digits drawn once per process (so ids from two runs do not collide in a log
/// collector), `<loop>` the loop's index and `<counter>` a per-loop count in hex: unique within the process across
/// all loops with no shared state, and cheap (no UUID, no Foundation, and up to 16^4 requests per loop the id fits a
/// small string, which allocates nothing). Loop thread only.
struct RequestIDGenerator {
    /// The process's part, made once.
    static let processPrefix: String = {
        var generator = SystemRandomNumberGenerator()
        let value = UInt32.random(in: .min ... .max, using: &generator)
        let hex = String(value, radix: 16)
        return String(repeating: "0", count: 8 - hex.utf8.count) + hex
    }()

    /// `<process>-<loop>-` as bytes.
    private let prefix: [UInt8]
    private var counter: UInt64 = 0

    /// A generator for the loop with index `loopIndex`.
    init(loopIndex: Int) {
        prefix = Array("\(Self.processPrefix)-\(loopIndex)-".utf8)
    }

    /// The next id.
    mutating func next() -> String {
        let value = counter
        counter &+= 1
        let digits = max(1, (UInt64.bitWidth - value.leadingZeroBitCount + 3) / 4)
        return String(unsafeUninitializedCapacity: prefix.count + digits) { buffer in
            _ = buffer.initialize(fromContentsOf: prefix)
            var rest = value
            for index in stride(from: prefix.count + digits - 1, through: prefix.count, by: -1) {
                buffer[index] = Self.hexDigits[Int(rest & 0xF)]
                rest >>= 4
            }
            return prefix.count + digits
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
}
