/// A dataset's profile as a store keeps it: the body it was set with (JSON, as `PUT` sent it) and when it was set,
/// so that a restarted server, or another server sharing the store, sets the same profile with its outage at the
/// same phase; and the key its tokens are signed with, so that every server accepts the same tokens
/// (``ProfileRegistry/TokenSigner``).
public struct StoredProfile: Sendable, Equatable {
    public var body: [UInt8]
    public var setAt: WallTime
    /// The key of the dataset's tokens: kept by a `PUT` that changes the profile, new with `POST /auth/revoke`.
    public var tokenKey: UInt128

    public init(body: [UInt8], setAt: WallTime, tokenKey: UInt128) {
        self.body = body
        self.setAt = setAt
        self.tokenKey = tokenKey
    }
}
