/// A dataset's bearer tokens (a profile's ``DatasetProfile/Auth``): signed, not remembered.
///
/// A token is 128 bits: when it expires (milliseconds since 1970) in the top 48, and the low 80 bits of a
/// signature of that expiry and the dataset's name under the dataset's ``ProfileRegistry/Entry/tokenKey``
/// (``ProfileRegistry/TokenSigner``). Any server that has the profile checks one without having seen it issued:
/// the key is stored with the profile, so servers that share a store (behind one load balancer) accept each
/// other's tokens, and a restart keeps them valid. Nothing is held per token, so issuing them costs no memory and
/// needs no bound. Revoking them all is a new key (``ProfileRegistry/setTokenKey(_:for:)``), stored like the
/// profile. Expiry is by the wall clock, which servers share; the rest of a profile counts monotonic time.
extension ProfileRegistry {
    /// Signs a token's expiry (milliseconds since 1970) for `dataset` under `key`: a keyed hash, the same on every
    /// server. The server's is XXH3 (`Digest/TokenSignature.swift`).
    public typealias TokenSigner = @Sendable (_ key: UInt128, _ dataset: String, _ expiry: Int64) -> UInt128

    /// The low 80 bits: where a token's signature goes.
    static let signatureMask: UInt128 = (1 << 80) - 1
    /// The latest expiry a token's 48 bits hold (the year 10889).
    static let latestExpiry: Int64 = (1 << 48) - 1

    /// The token that expires at `expiry` (milliseconds since 1970) for `dataset` under `key`.
    static func token(expiring expiry: Int64, dataset: String, key: UInt128, signer: TokenSigner) -> UInt128 {
        UInt128(UInt64(expiry)) << 80 | signer(key, dataset, expiry) & signatureMask
    }

    /// A token for `dataset`, valid for its profile's `token_ttl_s` from now, and that many seconds. Nil when the
    /// dataset's profile wants no token.
    public func issue(for dataset: String) -> (token: UInt128, expiresIn: Int)? {
        let wall = wallClock()
        guard
            let (key, ttl) = entries.withLock({ entries in
                entries.profiles[dataset].flatMap { entry in
                    entry.profile.auth.map { (entry.tokenKey, $0.tokenTTLSeconds) }
                }
            })
        else { return nil }
        let expiry = min(Self.latestExpiry, wall + Int64(ttl) * 1000)
        return (Self.token(expiring: expiry, dataset: dataset, key: key, signer: signer), ttl)
    }

    /// Signs `dataset`'s tokens with `key` from now on: with a new key, every token issued before is refused
    /// (`POST /auth/revoke`, or another server's revoke heard through the store). False when it has no profile.
    @discardableResult
    public func setTokenKey(_ key: UInt128, for dataset: String) -> Bool {
        entries.withLock { entries in
            guard entries.profiles[dataset] != nil else { return false }
            entries.profiles[dataset]!.tokenKey = key
            count.changed()
            return true
        }
    }
}

/// Why a request's token does not let it in.
public enum TokenRefusal: Sendable, Equatable, CustomStringConvertible {
    /// It carries none.
    case missing
    /// It carries something that is not a token (32 hex digits).
    case malformed
    /// A token this dataset did not sign, or one it revoked since.
    case unknown
    /// It expired.
    case expired

    /// Whether the request carried a token at all (RFC 6750 §3.1 gives no error code to one without).
    public var carried: Bool { self != .missing }

    public var description: String {
        switch self {
        case .missing: "the dataset's profile wants a bearer token, and the request carries none"
        case .malformed: "the token is not one this dataset issued (32 hex digits), or it was revoked"
        case .unknown: "the token is not one this dataset issued, or it was revoked"
        case .expired: "the token expired"
        }
    }
}

extension ProfileRegistry {
    /// Why `token` does not let a request to `dataset` in, its tokens signed with `key`; nil when it does.
    static func refusal(
        of token: UInt128?, carried: Bool, key: UInt128, registry: ProfileRegistry, dataset: String
    ) -> TokenRefusal? {
        guard carried else { return .missing }
        guard let token else { return .malformed }
        let expiry = Int64(truncatingIfNeeded: UInt64(truncatingIfNeeded: token >> 80))
        guard token == Self.token(expiring: expiry, dataset: dataset, key: key, signer: registry.signer) else {
            return .unknown
        }
        guard registry.wallClock() < expiry else { return .expired }
        return nil
    }
}
