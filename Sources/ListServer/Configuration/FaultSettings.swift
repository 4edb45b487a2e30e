import ListDomain

/// The limits and defaults of injected faults and delays (`?delay_ms`, `?fail=`, `faults.*`), as the router applies
/// them.
///
/// A plain value the configuration layer fills in; the defaults are what a server without fault configuration uses.
package struct FaultSettings: Sendable, Equatable {
    /// The largest `?delay_ms` a request may ask for; longer is a 400. Default 30 s.
    var maxDelay = Duration.seconds(30)
    /// How long an injected `hang` holds the connection open without answering before closing it. Default 10 s.
    var hangLimit = Duration.seconds(10)
    /// The `Retry-After` value, in seconds, of an injected 503 or 429. Default 1.
    var retryAfterSeconds = 1
    /// ``SettingKey/faultRate``: the share of data requests that get a fault without asking for one. Default 0 (none).
    var rate = 0.0
    /// ``SettingKey/faultKinds``: the faults drawn for ``SettingKey/faultRate`` and `?fail_rate` without `?fail`.
    /// Default all kinds.
    var mix = FaultMix.all
}
