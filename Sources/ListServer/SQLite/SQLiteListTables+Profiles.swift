import ListDomain

/// The datasets' profiles (`profiles`, migrations 4 to 6): kept so a restart sets them again.
extension SQLiteListTables {
    /// Every stored profile, by dataset.
    func profiles() throws(StoreFailure) -> [String: StoredProfile] {
        do throws(SQLiteError) {
            return try connection.withStatement(SQL.allProfiles) { statement throws(SQLiteError) in
                var profiles: [String: StoredProfile] = [:]
                while try statement.step() {
                    profiles[statement.text(at: 0) ?? ""] = StoredProfile(
                        body: statement.blob(at: 1), setAt: WallTime(milliseconds: statement.int64(at: 2)),
                        tokenKey: UInt128(bigEndianBytes: statement.blob(at: 3)) ?? 0)
                }
                return profiles
            }
        } catch {
            throw error.storeFailure
        }
    }

    /// The stored profile of `list`, as a dictionary of at most one.
    func profiles(of list: String) throws(StoreFailure) -> [String: StoredProfile] {
        do throws(SQLiteError) {
            return try connection.withStatement(SQL.oneProfile) { statement throws(SQLiteError) in
                try statement.bind(list, at: 1)
                guard try statement.step() else { return [:] }
                return [
                    list: StoredProfile(
                        body: statement.blob(at: 0), setAt: WallTime(milliseconds: statement.int64(at: 1)),
                        tokenKey: UInt128(bigEndianBytes: statement.blob(at: 2)) ?? 0)
                ]
            }
        } catch {
            throw error.storeFailure
        }
    }

    /// Stores (or with nil, deletes) the profile of `list`, in a transaction of its own.
    func setProfile(_ profile: StoredProfile?, of list: String) throws(StoreFailure) {
        do throws(SQLiteError) {
            if !connection.isAutocommit { try run(SQL.rollback) }
            if let profile {
                try run(SQL.upsertProfile) { statement throws(SQLiteError) in
                    try statement.bind(list, at: 1)
                    try statement.bind(profile.body, at: 2)
                    try statement.bind(profile.setAt.milliseconds, at: 3)
                    try statement.bind(profile.tokenKey.bigEndianBytes, at: 4)
                }
            } else {
                try run(SQL.deleteProfile) { statement throws(SQLiteError) in try statement.bind(list, at: 1) }
            }
        } catch {
            throw error.storeFailure
        }
    }
}

extension SQLiteListTables {
    /// Gives `list`'s stored profile the token key `key`, in a transaction of its own; whether it had one.
    func setTokenKey(_ key: UInt128, of list: String) throws(StoreFailure) -> Bool {
        do throws(SQLiteError) {
            if !connection.isAutocommit { try run(SQL.rollback) }
            try run(SQL.setTokenKey) { statement throws(SQLiteError) in
                try statement.bind(list, at: 1)
                try statement.bind(key.bigEndianBytes, at: 2)
            }
            return connection.changes > 0
        } catch {
            throw error.storeFailure
        }
    }
}

extension SQLiteListTables {
    /// Keeps these last uses of profiles (a later one only), in one transaction.
    func recordProfileUse(_ uses: [String: WallTime]) throws(StoreFailure) {
        try recordTimes(uses, with: SQL.recordProfileUse)
    }

    /// Deletes the profiles neither met nor set after `cutoff`, at most `limit`, in one statement; their datasets.
    func expireProfiles(idleBefore cutoff: WallTime, limit: Int) throws(StoreFailure) -> [String] {
        if !connection.isAutocommit { try? run(SQL.rollback) }
        return try names(SQL.expireProfiles, cutoff: cutoff, limit: limit)
    }
}

extension SQLiteListTables.SQL {
    static let allProfiles: StaticString = "SELECT list, body, set_at, token_key FROM profiles"
    static let oneProfile: StaticString = "SELECT body, set_at, token_key FROM profiles WHERE list = ?1"
    /// A profile stored over one keeps its token key (a revoke that came between is not undone).
    static let upsertProfile: StaticString = """
        INSERT INTO profiles (list, body, set_at, token_key) VALUES (?1, ?2, ?3, ?4)
        ON CONFLICT (list) DO UPDATE SET body = excluded.body, set_at = excluded.set_at
        """
    static let setTokenKey: StaticString = "UPDATE profiles SET token_key = ?2 WHERE list = ?1"
    static let deleteProfile: StaticString = "DELETE FROM profiles WHERE list = ?1"
    static let recordProfileUse: StaticString = "UPDATE profiles SET last_used = max(last_used, ?2) WHERE list = ?1"
    /// The outer condition is the one that counts (the store's one writer makes the inner one the same here; the
    /// PostgreSQL store's statement needs it, and both read alike).
    static let expireProfiles: StaticString = """
        DELETE FROM profiles WHERE max(set_at, last_used) <= ?1 AND list IN (
            SELECT list FROM profiles WHERE max(set_at, last_used) <= ?1 ORDER BY max(set_at, last_used) LIMIT ?2)
        RETURNING list
        """
}
