import ListDomain

extension Settings {
    /// The slow store's latency distribution, from `store.latency.*`: `uniform` between `min_ms` and `max_ms`,
    /// `fixed` at `fixed_ms`, `lognormal` around `median_ms` with `spread`, capped at `max_ms`, or `none`.
    var latency: LatencyDistribution {
        switch latencyDistribution {
        case .uniform: .uniform(min: .milliseconds(latencyMinMs), max: .milliseconds(latencyMaxMs))
        case .fixed: .fixed(.milliseconds(latencyFixedMs))
        case .lognormal:
            .lognormal(median: .milliseconds(latencyMedianMs), spread: latencySpread, max: .milliseconds(latencyMaxMs))
        case .none: .none
        }
    }
}

extension Settings {
    /// The latency of an image fetch, from `image.latency.*`, shaped as ``latency`` is.
    var imageLatency: LatencyDistribution {
        switch imageLatencyDistribution {
        case .uniform: .uniform(min: .milliseconds(imageLatencyMinMs), max: .milliseconds(imageLatencyMaxMs))
        case .fixed: .fixed(.milliseconds(imageLatencyFixedMs))
        case .lognormal:
            .lognormal(
                median: .milliseconds(imageLatencyMedianMs), spread: imageLatencySpread,
                max: .milliseconds(imageLatencyMaxMs))
        case .none: .none
        }
    }
}

extension ServiceOptions {
    /// The options `settings` configure: `cors.allow_origin`, `items.latency_ms` and `admin.token`.
    init(_ settings: Settings) {
        self.init(
            cors: settings.corsAllowOrigin == .none ? nil : CORSPolicy(origins: settings.corsAllowOrigin),
            pageLatency: .milliseconds(settings.pageLatencyMs),
            adminToken: settings.adminToken, picsumEnabled: settings.picsumEnabled,
            publicURL: settings.publicURL.text.isEmpty ? nil : settings.publicURL.text)
    }
}

extension FaultSettings {
    /// The fault settings `settings` configure: `delay.max_ms` and `faults.*`.
    init(_ settings: Settings) {
        self.init(
            maxDelay: .milliseconds(settings.maxDelayMs), hangLimit: .milliseconds(settings.hangMs),
            retryAfterSeconds: settings.retryAfterSeconds, rate: settings.faultRate, mix: settings.faultKinds)
    }
}
