/// Whether a request to an admin endpoint may come from where it comes from: the cross-site request forgery guard.
///
/// Loopback clients may call the admin endpoints without a token (when ``SettingKey/adminToken`` is empty), and a web
/// page on any origin can make the developer's browser send them one: `POST /admin/reset` with `Content-Type:
/// text/plain` is a simple request, sent without a preflight, so any site the developer opens could reset or drop their
/// lists. A browser says where a request comes from (`Origin`, Fetch Metadata's `Sec-Fetch-Site`); clients that are not
/// browsers (curl, test runners, the generated client) send neither, and are let in as before.
///
/// The rule, for every admin endpoint:
/// - with `Origin`: allowed when it is the server's own origin (the request's `Host`, or ``SettingKey/publicURL``'s
///   origin, over `http` or `https`) or listed in ``SettingKey/adminAllowedOrigins`` (`*`: any); `null` and every other
///   origin get 403;
/// - without `Origin`: 403 when `Sec-Fetch-Site` is `cross-site` (a link or form from another site).
///
/// The app at `/` is the server's own origin, so its Reset works as before.
struct AdminOrigin: Sendable, Equatable {
    /// ``SettingKey/adminAllowedOrigins``: origins allowed besides the server's own (`.none`: none; `.any`: every one).
    let allowed: CORSOrigins
    /// ``SettingKey/publicURL``'s origin (`scheme://host[:port]`, without its path), if one is set.
    let publicOrigin: String?

    init(allowed: CORSOrigins, publicURL: String?) {
        self.allowed = allowed
        publicOrigin = publicURL.flatMap(Self.origin(ofURL:))
    }

    /// Why `headers` may not reach an admin endpoint, or nil when they may.
    func refusal(_ headers: HTTPHeaders) -> String? {
        guard let origin = headers["Origin"] else {
            if let site = headers["Sec-Fetch-Site"], HTTPHeaders.namesMatch(site, "cross-site") {
                return "admin endpoints refuse cross-site requests (Sec-Fetch-Site: cross-site)"
            }
            return nil
        }
        let normalized = Self.normalized(origin)
        switch allowed {
        case .any: return nil
        case .only(let origins) where normalized.map(origins.contains) == true: return nil
        default: break
        }
        if let normalized, isOwn(normalized, host: headers["Host"]) { return nil }
        return "admin endpoints refuse requests from web pages of other origins; Origin \(Problem.quoted(origin)) "
            + "is not this server's own, nor in \(SettingKey.adminAllowedOrigins.name)"
    }

    /// Whether `origin` (normalized) is this server's: its `Host` over `http` or `https`, or the public URL's.
    private func isOwn(_ origin: String, host: String?) -> Bool {
        if origin == publicOrigin { return true }
        guard let host = host.flatMap(HostAuthority.normalized) else { return false }
        return origin == Self.normalized("http://" + host) || origin == Self.normalized("https://" + host)
    }

    /// `text` as browsers send an origin: lowercased, without the scheme's default port; nil for anything that is
    /// not `http(s)://host[:port]` (`null` among them).
    static func normalized(_ text: String) -> String? {
        guard case .only(let origins) = try? CORSOrigins(parsing: text), origins.count == 1 else { return nil }
        return origins[0]
    }

    /// The origin of `url` (`http(s)://host[:port]`, path dropped), normalized.
    private static func origin(ofURL url: String) -> String? {
        let parts = url.split(separator: "/", maxSplits: 3, omittingEmptySubsequences: false)
        guard parts.count >= 3 else { return nil }  // "http:", "", "host[:port]", "path"
        return normalized(parts[0] + "//" + parts[2])
    }
}
