import ListDomain

/// `POST /auth/token` and `POST /auth/revoke`: the bearer tokens of a dataset whose profile has `auth`
/// (``DatasetProfile/Auth``), so an app's sign-in, refresh-and-retry path can be tested.
///
/// The dataset is the one the request names (`/d/<name>/`, `X-Dataset`). A token is 32 hex digits, its expiry and
/// a signature (`ProfileRegistry+Tokens.swift`), valid `token_ttl_s` from now on every route of the dataset and on
/// every server that shares the store, in `Authorization: Bearer` or, for what a browser fetches
/// itself (`<img>`, `EventSource`), as `?access_token=` (RFC 6750 §2.3). A dataset without `auth` gets a token
/// too (an app signs in however the server is set), one it never asks for. The body is any JSON, unread, as a
/// sign-in form's would be. Neither route meets the profile (a token is what lets a client past it).
extension Router {
    /// How long a token lives when the dataset's profile asks for none: an hour.
    static let untrackedTokenSeconds = 3600

    func issueToken(_ request: HTTPRequest) throws(Problem) -> HTTPResponse {
        let dataset = try Self.listName(request.headers)
        var random = SystemRandomNumberGenerator()
        // A dataset whose profile wants no token gets a random one, never checked.
        let (token, expiresIn) =
            profiles.issue(for: dataset)
            ?? (UInt128(random.next()) << 64 | UInt128(random.next()), Self.untrackedTokenSeconds)
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

    /// Expires every token of the dataset now: its profile's tokens get a new key, stored with it (so every server
    /// that shares the store refuses them too, and a restart does not bring them back), and its clients' next
    /// requests get 401 and sign in again. A dataset without a profile has no tokens to revoke: 204 all the same.
    func revokeTokens(_ request: HTTPRequest) throws(Problem) -> RouteOutcome {
        let dataset = try Self.listName(request.headers)
        return .deferred { [self] in
            // One statement that changes the key alone. Read, changed and written back (as it was), the row
            // brought back a profile that another server deleted or replaced in between.
            let key = Self.newTokenKey()
            do throws(StoreFailure) {
                _ = try await writes.store.setTokenKey(key, of: dataset)
            } catch {
                return Self.writeResponse(.failed(error), list: writes.lists.state(of: dataset))
            }
            profiles.setTokenKey(key, for: dataset)  // also one set here but not stored (tests)
            profiles.changedDirectly(dataset)
            return HTTPResponse(status: 204)
        }
    }

    /// A new random key for a dataset's tokens.
    static func newTokenKey() -> UInt128 {
        var random = SystemRandomNumberGenerator()
        return UInt128(random.next()) << 64 | UInt128(random.next())
    }

    /// `value` as 32 lowercase hex digits.
    static func hex(_ value: UInt128) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 32 - digits.count) + digits
    }
}
