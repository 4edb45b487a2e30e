/// A failure ListServer can inject into an answer, as a client developer names it.
///
/// The raw value is the name used in the server's configuration and in `?fail=`: `500`, `503`, `429`, `reset`,
/// `truncated`, `hang`.
public enum FaultKind: String, Sendable, CaseIterable, Equatable, Hashable {
    /// A 500 problem+json answer.
    case internalError = "500"
    /// A 503 problem+json answer with `Retry-After`.
    case unavailable = "503"
    /// A 429 problem+json answer with `Retry-After`.
    case tooManyRequests = "429"
    /// The connection is reset without an answer.
    case reset
    /// The answer's body is cut off halfway and the connection closed.
    case truncated
    /// No answer until a bounded time has passed, then the connection is closed.
    case hang
}

/// Which faults are injected, and how often each relative to the others: `503:3,500,reset` is three 503s for every
/// 500 and every reset.
public struct FaultMix: Sendable, Equatable {
    /// One kind and its relative weight (at least 1).
    public struct Entry: Sendable, Equatable {
        public let kind: FaultKind
        public let weight: UInt32

        public init(kind: FaultKind, weight: UInt32) {
            self.kind = kind
            self.weight = weight
        }
    }

    /// The kinds in the order given, each at most once.
    public let entries: [Entry]

    /// The sum of the weights; at least 1.
    public var totalWeight: UInt64 { entries.reduce(0) { $0 + UInt64($1.weight) } }

    /// Every kind, equally likely.
    public static let all = FaultMix(uncheckedEntries: FaultKind.allCases.map { Entry(kind: $0, weight: 1) })

    private init(uncheckedEntries: [Entry]) {
        entries = uncheckedEntries
    }

    /// Why a mix text was refused.
    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        /// What was wrong, for a problem's detail or a configuration message.
        public let description: String
    }

    /// The largest weight one kind may have.
    public static let maximumWeight: UInt32 = 1000

    /// Parses a comma-separated list of `kind` or `kind:weight` (weight 1...1000, default 1), each kind at most once:
    /// `503`, `503:3,500,reset`. Spaces around items are allowed.
    ///
    /// - Throws: ``ParseError`` naming the offending item and the accepted kinds.
    public init(parsing text: some StringProtocol) throws(ParseError) {
        var entries: [Entry] = []
        let kindNames = FaultKind.allCases.map(\.rawValue).joined(separator: ", ")
        for rawItem in text.split(separator: ",", omittingEmptySubsequences: false) {
            let item = rawItem.trimmingASCIISpaces()
            let parts = item.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            guard let kind = FaultKind(rawValue: String(parts[0])) else {
                throw ParseError(description: "unknown fault kind \"\(parts[0])\" (kinds: \(kindNames))")
            }
            var weight: UInt32 = 1
            if parts.count == 2 {
                guard let value = UInt32(parts[1]), parts[1].allSatisfy(\.isASCIIDigit),
                    (1...Self.maximumWeight).contains(value)
                else {
                    throw ParseError(
                        description: "the weight of \"\(kind.rawValue)\" must be in 1...1000, got \"\(parts[1])\"")
                }
                weight = value
            }
            guard !entries.contains(where: { $0.kind == kind }) else {
                throw ParseError(description: "fault kind \"\(kind.rawValue)\" is listed twice")
            }
            entries.append(Entry(kind: kind, weight: weight))
        }
        self.init(uncheckedEntries: entries)
    }

    /// The text form, which ``init(parsing:)`` reads back: `503:3,500,reset`.
    public var text: String {
        entries.map { $0.weight == 1 ? $0.kind.rawValue : "\($0.kind.rawValue):\($0.weight)" }.joined(separator: ",")
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}

extension StringProtocol {
    /// The text without leading and trailing ASCII spaces.
    fileprivate func trimmingASCIISpaces() -> Substring {
        var slice = self[...]
        while slice.first == " " { slice.removeFirst() }
        while slice.last == " " { slice.removeLast() }
        return Substring(slice)
    }
}
