import ListDomain

/// `POST /auth/token` and `POST /auth/revoke`: the bearer tokens of a dataset whose profile has `auth`
/// (``DatasetProfile/Auth``), so an app's sign-in, refresh-and-retry path can be tested.
///
/// The dataset is the one the request names (`/d/<name>/`, `X-Dataset`). A token is 32 random hex digits, valid
/// `token_ttl_s` from now on every route of the dataset, in `Authorization: Bearer` or, for what a browser fetches
/// itself (`<img>`, `EventSource`), as `?access_token=` (RFC 6750 §2.3). A dataset without `auth` gets a token
/// too (an app signs in however the server is set), one it never asks for. The body is any JSON, unread, as a
/// sign-in form's would be. Neither route meets the profile (a token is what lets a client past it).
extension Router {
    /// How long a token lives when the dataset's profile asks for none: an hour.
    static let untrackedTokenSeconds = 3600

    func issueToken(_ request: HTTPRequest) throws(Problem) -> HTTPResponse {
        let dataset = try Self.listName(request.headers)
        var random = SystemRandomNumberGenerator()
        let token = UInt128(random.next()) << 64 | UInt128(random.next())
        var expiresIn = Self.untrackedTokenSeconds
        if profiles.entry(of: dataset)?.entry.profile.auth != nil {
            guard let issued = profiles.issue(token, for: dataset) else {
                throw Problem(
                    .datasetLimit,
                    detail: "the profiles hold as much as they may (\(ProfileRegistry.maximumBytes >> 20) MiB); "
                        + "revoke tokens (POST /auth/revoke) or clear finished profiles first")
            }
            expiresIn = issued.expiresIn
        }
        var json = JSONWriter(capacity: 128)
        json.append(raw: "{\"access_token\":")
        json.append(string: Self.hex(token))
        json.append(raw: ",\"token_type\":\"Bearer\",\"expires_in\":")
        json.append(integer: expiresIn)
        json.append(raw: "}")
        // RFC 6749 §5.1: a token answer is never cached.
        return HTTPResponse(
            status: 200, headers: ["Content-Type": MediaType.json, "Cache-Control": "no-store"], body: json.bytes)
    }

    /// Expires every token of the dataset now: its clients' next requests get 401 and sign in again.
    func revokeTokens(_ request: HTTPRequest) throws(Problem) -> HTTPResponse {
        profiles.revokeTokens(of: try Self.listName(request.headers))
        return HTTPResponse(status: 204)
    }

    /// `value` as 32 lowercase hex digits.
    static func hex(_ value: UInt128) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 32 - digits.count) + digits
    }
}
