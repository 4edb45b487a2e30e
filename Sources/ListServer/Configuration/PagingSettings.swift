/// Page sizes the router allows: the size used when a request names none, and the largest it may ask for.
///
/// Read from ``SettingKey/defaultLimit`` and ``SettingKey/maxLimit`` by
/// ``Settings/load(options:environment:activeProcessorCount:)``, which guarantees `1 <= defaultLimit <= maxLimit <=
/// 10_000`.
package struct PagingSettings: Sendable, Equatable {
    /// The page size when the request has no `limit` parameter.
    package var defaultLimit: Int

    /// The largest `limit` a request may ask for.
    package var maxLimit: Int

    /// Creates the settings; `1 <= defaultLimit <= maxLimit` is the caller's to keep.
    package init(defaultLimit: Int, maxLimit: Int) {
        self.defaultLimit = defaultLimit
        self.maxLimit = maxLimit
    }
}
