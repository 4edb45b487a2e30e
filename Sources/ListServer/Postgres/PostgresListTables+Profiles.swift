import ListDomain

/// The datasets' profiles (`profiles`, migrations 3 to 5), shared by the servers: a change is stored and announced to the
/// others (`"p <list>"`) in one transaction, so each reads it once it is there.
extension PostgresListTables {
    /// The stored profiles: every one (`list` nil), or `list`'s.
    func profiles(of list: String?) throws(StoreFailure) -> [String: StoredProfile] {
        try withConnection(retrying: true) { connection throws(PostgresError) in
            let rows: PostgresRows
            if let list {
                rows = try connection.execute(SQL.oneProfile, [.utf8(list)])
            } else {
                rows = try connection.execute(SQL.allProfiles)
            }
            var profiles: [String: StoredProfile] = [:]
            for row in 0..<rows.count {
                profiles[String(decoding: rows.bytes(row, 0), as: UTF8.self)] = StoredProfile(
                    body: rows.bytes(row, 1), setAt: WallTime(milliseconds: rows.int64(row, 2)),
                    tokenKey: UInt128(bigEndianBytes: rows.bytes(row, 3)) ?? 0)
            }
            return profiles
        }
    }

    /// Stores (or with nil, deletes) `list`'s profile and tells the other servers, in one transaction.
    func setProfile(_ profile: StoredProfile?, of list: String) throws(StoreFailure) {
        let name = PostgresValue.utf8(list)
        let change: PostgresConnection.Statement =
            profile.map {
                .init(
                    SQL.upsertProfile,
                    [
                        name, .bytea($0.body), .bigint($0.setAt.milliseconds),
                        .bytea($0.tokenKey.bigEndianBytes),
                    ])
            }
            ?? .init(SQL.deleteProfile, [name])
        try withConnection { connection throws(PostgresError) in
            _ = try connection.pipeline([
                .init("BEGIN"), change,
                .init(SQL.notify, [.text(PostgresNotification.profilePayload(list: list))]), .init("COMMIT"),
            ])
        }
    }
}

extension PostgresListTables {
    /// Gives `list`'s stored profile the token key `key` and tells the other servers, in one transaction; whether
    /// it had one.
    func setTokenKey(_ key: UInt128, of list: String) throws(StoreFailure) -> Bool {
        try withConnection { connection throws(PostgresError) in
            let results = try connection.pipeline([
                .init("BEGIN"),
                .init(SQL.setTokenKey, [.utf8(list), .bytea(key.bigEndianBytes)]),
                .init(SQL.notify, [.text(PostgresNotification.profilePayload(list: list))]), .init("COMMIT"),
            ])
            return results[1].count > 0
        }
    }
}

extension PostgresListTables {
    /// Keeps these last uses of profiles (a later one only), each statement on its own, as `recordUse` does: in
    /// one transaction, its row locks (taken in each server's own order) could deadlock with another server's
    /// record or expiry, and PostgreSQL would abort one; a record applied in part is still right.
    func recordProfileUse(_ uses: [String: WallTime]) throws(StoreFailure) {
        try withConnection(retrying: true) { connection throws(PostgresError) in
            for (list, time) in uses {
                try connection.execute(SQL.recordProfileUse, [.utf8(list), .bigint(time.milliseconds)])
            }
        }
    }

    /// Deletes the profiles neither met nor set after `cutoff`, at most `limit`, and tells the other servers, in
    /// one statement; their datasets.
    func expireProfiles(idleBefore cutoff: WallTime, limit: Int) throws(StoreFailure) -> [String] {
        try withConnection { connection throws(PostgresError) in
            let rows = try connection.execute(SQL.expireProfiles, [.bigint(cutoff.milliseconds), .int(max(limit, 0))])
            return (0..<rows.count).map { String(decoding: rows.bytes($0, 0), as: UTF8.self) }
        }
    }
}

extension PostgresListTables.SQL {
    static let allProfiles = "SELECT list, body, set_at, token_key FROM profiles"
    static let oneProfile = "SELECT list, body, set_at, token_key FROM profiles WHERE list = $1"
    static let upsertProfile = """
        INSERT INTO profiles (list, body, set_at, token_key) VALUES ($1, $2, $3, $4)
        ON CONFLICT (list) DO UPDATE SET body = excluded.body, set_at = excluded.set_at
        """
    static let deleteProfile = "DELETE FROM profiles WHERE list = $1"
    static let setTokenKey = "UPDATE profiles SET token_key = $2 WHERE list = $1 RETURNING list"
    static let recordProfileUse = "UPDATE profiles SET last_used = GREATEST(last_used, $2) WHERE list = $1"
    /// The outer condition is checked again on a row that another server's transaction changed while this one
    /// waited for it (read committed): a profile set or met meanwhile is not deleted. The notifications go out
    /// when the statement commits.
    static let expireProfiles = """
        WITH gone AS (
            DELETE FROM profiles WHERE GREATEST(set_at, last_used) <= $1 AND list IN (
                SELECT list FROM profiles WHERE GREATEST(set_at, last_used) <= $1
                ORDER BY GREATEST(set_at, last_used) LIMIT $2)
            RETURNING list)
        SELECT list, pg_notify(\(PostgresNotification.channel), \(PostgresNotification.profilePayloadSQL(column: "list")))
        FROM gone
        """
}
