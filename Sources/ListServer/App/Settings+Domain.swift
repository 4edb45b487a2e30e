import ListDomain

extension Settings {
    /// The slow store's latency distribution, from `store.latency.*`: `uniform` between `min_ms` and `max_ms`,
    /// `fixed` at `fixed_ms`, `lognormal` around `median_ms` with `spread`, capped at `max_ms`, or `none`.
    var latency: LatencyDistribution {
        Self.distribution(
            latencyDistribution, minMs: latencyMinMs, maxMs: latencyMaxMs, fixedMs: latencyFixedMs,
            medianMs: latencyMedianMs, spread: latencySpread)
    }

    /// The distribution of `kind` with these parameters (the keys of `store.latency.*` or `image.latency.*`).
    static func distribution(
        _ kind: LatencyKind, minMs: Int, maxMs: Int, fixedMs: Int, medianMs: Int, spread: Double
    ) -> LatencyDistribution {
        switch kind {
        case .uniform: .uniform(min: .milliseconds(minMs), max: .milliseconds(maxMs))
        case .fixed: .fixed(.milliseconds(fixedMs))
        case .lognormal: .lognormal(median: .milliseconds(medianMs), spread: spread, max: .milliseconds(maxMs))
        case .none: .none
        }
    }
}

extension Settings {
    /// The latency of an image fetch, from `image.latency.*`, shaped as ``latency`` is.
    var imageLatency: LatencyDistribution {
        Self.distribution(
            imageLatencyDistribution, minMs: imageLatencyMinMs, maxMs: imageLatencyMaxMs, fixedMs: imageLatencyFixedMs,
            medianMs: imageLatencyMedianMs, spread: imageLatencySpread)
    }
}

extension ServiceOptions {
    /// The options `settings` configure: ``SettingKey/corsAllowOrigin``, ``SettingKey/pageLatencyMs``,
    /// ``SettingKey/adminToken``, ``SettingKey/adminAllowedOrigins``, ``SettingKey/imageProgressive``,
    /// ``SettingKey/picsumEnabled`` and ``SettingKey/publicURL``.
    init(_ settings: Settings) {
        let publicURL = settings.publicURL.text.isEmpty ? nil : settings.publicURL.text
        self.init(
            cors: settings.corsAllowOrigin == .none ? nil : CORSPolicy(origins: settings.corsAllowOrigin),
            pageLatency: .milliseconds(settings.pageLatencyMs),
            adminToken: settings.adminToken,
            datasetTTL: .seconds(settings.datasetTTLSeconds),
            adminOrigin: AdminOrigin(allowed: settings.adminAllowedOrigins, publicURL: publicURL),
            imageProgressive: settings.imageProgressive, picsumEnabled: settings.picsumEnabled, publicURL: publicURL)
    }
}

extension FaultSettings {
    /// The fault settings `settings` configure: ``SettingKey/maxDelayMs`` and `faults.*`.
    init(_ settings: Settings) {
        self.init(
            maxDelay: .milliseconds(settings.maxDelayMs), hangLimit: .milliseconds(settings.hangMs),
            retryAfterSeconds: settings.retryAfterSeconds, rate: settings.faultRate, mix: settings.faultKinds)
    }
}
