/// What a commit tells the other servers through PostgreSQL's `NOTIFY`: which list changed, and up to which
/// change sequence number. The change itself is a row of `changes`; the payload stays a few dozen bytes, far
/// below PostgreSQL's limit of 8,000.
struct PostgresNotification: Equatable {
    /// The channel of the servers whose tables are in the connection's current schema, as an SQL expression:
    /// notifications are per database, and servers with tables in different schemas of one database (the tests)
    /// must not hear each other. The schema's name goes in as an MD5 digest, so the channel is always 43 ASCII
    /// bytes: `pg_notify` refuses a channel over 63 bytes, which a schema name over 44 would make.
    static let channel = "'listserver_' || md5(current_schema())"

    let list: String
    /// The sequence number the list reached; nil when it was removed (an idle dataset expired) or for a profile.
    let sequence: UInt64?
    /// The list's profile changed (`"p <hex>"`): set, cleared or dropped with the list. Builds from before profiles
    /// ignore it (its first part does not parse).
    var profile = false

    /// `"p <list name as hex>"`: `list`'s profile changed.
    static func profilePayload(list: String) -> String {
        "p" + payload(list: list, sequence: nil).dropFirst()
    }

    /// ``profilePayload(list:)`` as an SQL expression, of a `bytea` column that holds the list's name (UTF-8): for a
    /// statement that notifies for the rows it changes. Hex digits in lower case, as ``payload(list:sequence:)``
    /// writes them.
    static func profilePayloadSQL(column: String) -> String {
        "'p ' || encode(\(column), 'hex')"
    }

    /// `"<sequence> <list name as hex>"`, or `"x <list name as hex>"` for a removal (a build from before removals
    /// ignores it: its sequence does not parse): a list name may hold any character (hex keeps the payload plain
    /// ASCII, which `NOTIFY` needs).
    static func payload(list: String, sequence: UInt64?) -> String {
        var text = sequence.map(String.init) ?? "x"
        text += " "
        for byte in list.utf8 {
            text.append(Self.hexDigits[Int(byte >> 4)])
            text.append(Self.hexDigits[Int(byte & 0xF)])
        }
        return text
    }

    /// The notification `payload` holds, or nil for one that is not ours.
    init?(payload: String) {
        let parts = payload.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0] == "x" || parts[0] == "p" || UInt64(parts[0]) != nil,
            parts[1].utf8.count % 2 == 0
        else {
            return nil
        }
        profile = parts[0] == "p"
        let sequence = UInt64(parts[0])
        var bytes: [UInt8] = []
        var high: UInt8?
        for character in parts[1].utf8 {
            guard let nibble = Self.nibble(character) else { return nil }
            if let first = high {
                bytes.append(first << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        guard let list = String(validating: bytes, as: UTF8.self) else { return nil }
        self.list = list
        self.sequence = sequence
    }

    private static let hexDigits = Array("0123456789abcdef")

    private static func nibble(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
