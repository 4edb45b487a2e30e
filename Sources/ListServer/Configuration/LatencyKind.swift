/// The shape of the simulated store latency: the ``SettingKey/latencyDistribution`` key.
///
/// Each kind uses its own keys and ignores the others', so that switching the distribution never requires touching
/// the others' values: `uniform` draws evenly from `store.latency.min_ms...store.latency.max_ms`; `fixed` always
/// waits ``SettingKey/latencyFixedMs``; `lognormal` draws `exp(N(ln median_ms, spread²))`, capped at
/// ``SettingKey/latencyMaxMs``; `none` answers at once. The raw values are the config names, read in any case.
enum LatencyKind: String, CaseIterable, Sendable {
    /// Every latency in `min_ms...max_ms` equally likely (the default).
    case uniform
    /// Always `fixed_ms`.
    case fixed
    /// Lognormal around `median_ms` with `spread` as the sigma of its logarithm, never above `max_ms`.
    case lognormal
    /// No simulated latency.
    case none
}
