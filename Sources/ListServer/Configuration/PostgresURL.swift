/// ``SettingKey/dataURL``: where a PostgreSQL store is, `postgres://user:password@host:port/db?sslmode=…` (or
/// `postgresql://`), as libpq reads it; and the same URL with its password hidden, for everything a person or a log
/// sees.
///
/// Only the form is checked here (the scheme, and something after it); libpq reads the rest when the store
/// connects, and a URL it cannot use fails the start with libpq's words and the redacted URL.
package struct PostgresURL: Sendable, Equatable, CustomStringConvertible {
    /// The URL as given: what libpq is handed, and nothing else.
    package let value: String

    package init?(_ value: String) {
        guard value.hasPrefix("postgres://") || value.hasPrefix("postgresql://"),
            value.split(separator: "://", maxSplits: 1).count == 2
        else { return nil }
        self.value = value
    }

    /// The URL with the password of its user part replaced by `<set>`, and the value of any `password=` query
    /// parameter too: `postgres://app:<set>@db:5432/lists`.
    package var redacted: String {
        guard let schemeEnd = value.firstRange(of: "://") else { return "<unreadable>" }
        var rest = Substring(value[schemeEnd.upperBound...])
        var query: Substring = ""
        if let mark = rest.firstIndex(of: "?") {
            query = rest[mark...]
            rest = rest[..<mark]
        }
        // The user part ends at the last "@" before the path (a password may itself hold "@", percent-encoded or
        // not).
        let authorityEnd = rest.firstIndex(of: "/") ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        let path = rest[authorityEnd...]
        if let at = authority.lastIndex(of: "@") {
            let user = authority[..<at]
            if let colon = user.firstIndex(of: ":") {
                authority = user[..<colon] + ":<set>" + authority[at...]
            }
        }
        return String(value[..<schemeEnd.upperBound]) + authority + path + Self.redactingPassword(in: query)
    }

    package var description: String { redacted }

    /// Why a ``SettingKey/dataURL`` value is refused.
    package struct ParseError: Error, CustomStringConvertible {
        package let description: String
    }

    /// A ``SettingKey/dataURL`` value: nil for the empty string (SQLite), else a URL of the right form.
    static func setting(parsing raw: String) throws(ParseError) -> PostgresURL? {
        let text = String(raw.trimmingSpaces)
        if text.isEmpty { return nil }
        guard let url = PostgresURL(text) else {
            throw ParseError(description: "not a postgres:// or postgresql:// URL")
        }
        return url
    }

    /// `query` (`?a=1&password=x`) with the value of each `password` parameter replaced by `<set>`.
    private static func redactingPassword(in query: Substring) -> String {
        guard !query.isEmpty else { return "" }
        let pairs = query.dropFirst().split(separator: "&", omittingEmptySubsequences: false).map { pair in
            pair.lowercased().hasPrefix("password=") ? "password=<set>" : String(pair)
        }
        return "?" + pairs.joined(separator: "&")
    }
}
