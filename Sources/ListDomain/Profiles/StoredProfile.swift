/// A dataset's profile as a store keeps it: the body it was set with (JSON, as `PUT` sent it) and when it was set,
/// so that a restarted server, or another server sharing the store, sets the same profile with its outage at the
/// same phase.
public struct StoredProfile: Sendable, Equatable {
    public var body: [UInt8]
    public var setAt: WallTime

    public init(body: [UInt8], setAt: WallTime) {
        self.body = body
        self.setAt = setAt
    }
}
