/// Checks the ``SettingKey/host`` setting: an IPv4 or IPv6 literal, or `localhost`.
///
/// The grammar is the one `inet_pton` accepts (dotted-quad IPv4 without leading zeros; IPv6 with at most one `::` and
/// an optional trailing IPv4 part), written in Swift so that configuration code stays free of C calls and pointers.
/// Host names other than `localhost`, brackets (`[::1]`) and zone suffixes (`fe80::1%eth0`) are rejected.
enum HostAddress {
    /// Whether `host` is a valid ``SettingKey/host`` value.
    static func isValid(_ host: String) -> Bool {
        host.lowercased() == "localhost" || isIPv4(host[...]) || isIPv6(host)
    }

    /// Whether `text` is a dotted-quad IPv4 address such as `127.0.0.1`.
    static func isIPv4(_ text: Substring) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4
            && parts.allSatisfy { part in
                (1...3).contains(part.count)
                    && part.allSatisfy { $0.isASCII && $0.isNumber }
                    && (part == "0" || part.first != "0")
                    && Int(part).map { $0 <= 255 } == true
            }
    }

    /// Whether `text` is an IPv6 address such as `::1`, `2001:db8::8a2e:370:7334` or `::ffff:192.0.2.1`.
    static func isIPv6(_ text: String) -> Bool {
        let halves = text.split(separator: "::", omittingEmptySubsequences: false)
        guard halves.count <= 2 else {
            return false
        }
        var groups = 0
        for (halfIndex, half) in halves.enumerated() where !half.isEmpty {
            let parts = half.split(separator: ":", omittingEmptySubsequences: false)
            for (partIndex, part) in parts.enumerated() {
                let isLastPart = halfIndex == halves.count - 1 && partIndex == parts.count - 1
                if isLastPart && part.contains(".") {
                    guard isIPv4(part) else {
                        return false
                    }
                    groups += 2
                } else {
                    guard (1...4).contains(part.count), part.allSatisfy({ $0.isASCII && $0.isHexDigit }) else {
                        return false
                    }
                    groups += 1
                }
            }
        }
        // "::" stands for at least one group of zeros.
        return halves.count == 2 ? groups <= 7 : groups == 8
    }
}
