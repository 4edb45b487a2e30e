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

    /// A token key as a store keeps it: 16 bytes, big-endian.
    public static func bytes(of key: UInt128) -> [UInt8] {
        (0..<16).map { UInt8(truncatingIfNeeded: key >> (8 * (15 - $0))) }
    }

    /// The token key in `bytes` (``bytes(of:)``); 0 for anything but 16 bytes (a store never writes that).
    public static func tokenKey(_ bytes: [UInt8]) -> UInt128 {
        guard bytes.count == 16 else { return 0 }
        return bytes.reduce(0) { $0 << 8 | UInt128($1) }
    }
}
