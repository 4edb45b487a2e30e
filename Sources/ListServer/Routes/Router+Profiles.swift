import ListDomain

/// `PUT`, `GET` and `DELETE /admin/datasets/<name>/profile`: what every request to a dataset meets, set at run time
/// (``DatasetProfile``), and how the router applies it (``applyingProfile(of:target:resource:to:)``).
///
/// A profile applies to every request that names the dataset, by `/d/<name>/`, `X-Dataset` or `?dataset=`, on the
/// routes of a dataset (items, details, images, uploads, writes, Picsum's, the change feed and its stream), on
/// every loop from the next request on. An outage answers 503 `injected-fault` with `Retry-After` (the seconds left,
/// rounded up); a script step answers its status as a problem (`injected-fault`, with its `Retry-After`), acts out
/// its wire fault on that answer or on the route's own, and holds the answer `body_delay_ms`. A replaced answer's
/// work never runs: a write answered 503 by a step is not written. CORS preflights meet nothing. Stored before it
/// is answered (a restart sets it again; servers that share a PostgreSQL store are told and set it too), dropped
/// with the dataset (`DELETE /admin/datasets/<name>`, or its expiry). Admin access as for the other admin routes.
extension Router {
    func datasetProfile(_ name: String, _ request: HTTPRequest) throws(Problem) -> RouteOutcome {
        try Self.checkDatasetName(name, what: "the dataset name")
        switch request.method {
        case .put:
            let profile = try readProfile(request.body, of: name)
            guard profiles.fits(profile, for: name) else { throw Self.profilesFull }
            guard profile.chat == nil || chatActivity.hasRoom(for: name) else {
                throw Problem(
                    .datasetLimit,
                    detail: "\(ChatActivityDriver<ContinuousClock>.capacity) datasets have simulated participants "
                        + "already (chat); clear one's profile first")
            }
            // Stored first (a 200 means a restart keeps it, and the servers that share the store are told), then
            // set here; the body as sent, which reads back the same. The tokens' key stays as stored (the store
            // keeps it over a new body: a token issued before a change still works, and a revoke through another
            // server meanwhile is not undone); read back after the write, it is the one set here.
            let body = request.body
            let key = profiles.entry(of: name)?.entry.tokenKey ?? Self.newTokenKey()
            return .deferred { [self] in
                let stored = StoredProfile(body: body, setAt: WallTime.now(), tokenKey: key)
                if let failure = await storing(stored, of: name) { return failure }
                let tokenKey = (try? await writes.store.profile(of: name))?.tokenKey ?? key
                guard profiles.set(profile, for: name, setAt: stored.setAt, tokenKey: tokenKey) else {
                    return Self.profilesFull.response()  // filled meanwhile; stored, and set at the next start
                }
                profiles.changedDirectly(name)
                // The dataset's fault draws start over, from the profile's seed or the server's.
                faultInjectors.reseed(name, seed: profile.faults?.seed)
                return profileResponse(name)
            }
        case .delete:
            return .deferred { [self] in
                if let failure = await storing(nil, of: name) { return failure }
                profiles.set(nil, for: name)
                profiles.changedDirectly(name)
                faultInjectors.reseed(name, seed: nil)
                return HTTPResponse(status: 204)
            }
        default:
            return .response(profileResponse(name))
        }
    }

    /// `body` read as `name`'s profile: a `PUT`'s, or one stored (which a setting changed since may refuse).
    private func readProfile(_ body: [UInt8], of name: String) throws(Problem) -> DatasetProfile {
        try ProfileBody.profile(
            body, dataset: name, routes: Self.profileRoutes, maxDelayMs: Int(faults.maxDelay / .milliseconds(1)))
    }

    static let profilesFull = Problem(
        .datasetLimit,
        detail: "the profiles hold as much as they may (\(ProfileRegistry.capacity) datasets, "
            + "\(ProfileRegistry.maximumBytes >> 20) MiB); clear finished ones first "
            + "(DELETE /admin/datasets/<name>/profile)")

    /// Stores `stored` as `name`'s profile (nil deletes it); the problem answer when the store cannot.
    private func storing(_ stored: StoredProfile?, of name: String) async -> HTTPResponse? {
        do throws(StoreFailure) {
            try await writes.store.setProfile(stored, of: name)
            return nil
        } catch {
            return Self.writeResponse(.failed(error), list: writes.lists.state(of: name))  // (not read on failure)
        }
    }

    /// Sets `name`'s profile as the store holds it (nil: none), at start and when another server changed it: its
    /// outage keeps the phase it had from when it was set. One that is set already (this server's own change,
    /// heard back) is left alone, so its script does not start over; one that no longer reads (a setting changed
    /// since, `faults.max_delay_ms`) or does not fit is not set (`GET` shows none; a `PUT` replaces it); one
    /// whose tokens' key alone changed (a revoke) gets the key. Returns whether the profile is set as stored.
    @discardableResult
    func applyStored(_ stored: StoredProfile?, of name: String) -> Bool {
        guard let stored else {
            profiles.set(nil, for: name)
            faultInjectors.reseed(name, seed: nil)
            return true
        }
        if let entry = profiles.entry(of: name)?.entry, entry.setAt == stored.setAt {
            if entry.tokenKey != stored.tokenKey { profiles.setTokenKey(stored.tokenKey, for: name) }
            return true
        }
        guard let profile = try? readProfile(stored.body, of: name) else {
            profiles.set(nil, for: name)
            return false
        }
        let age = Duration.milliseconds(max(0, WallTime.now().milliseconds - stored.setAt.milliseconds))
        guard profiles.set(profile, for: name, age: age, setAt: stored.setAt, tokenKey: stored.tokenKey) else {
            return false
        }
        faultInjectors.reseed(name, seed: profile.faults?.seed)
        return true
    }

    /// Sets every stored profile (a server starting, or a replica that reconnected and may have missed changes):
    /// those the store no longer has are cleared.
    func applyStoredProfiles() async throws(StoreFailure) {
        let stored = try await writes.store.profiles()
        for (name, profile) in stored { applyStored(profile, of: name) }
        for name in profiles.datasets where stored[name] == nil { applyStored(nil, of: name) }
    }

    /// Drops the profiles no request met (and nobody set) for `unused`, stored too: a dataset that only has a
    /// profile has no rows to expire with (`DatasetLifecycle`). This server's uses go to the store first, and the
    /// store decides: servers that share it each record their own, so a profile one server never meets stays while
    /// another's clients use it. Returns the datasets whose profile went. A store that fails leaves the rest to the
    /// next pass (uses it did not take are offered again).
    func expireIdleProfiles(unusedFor unused: Duration, limit: Int) async -> [String] {
        let (uses, through) = profiles.unrecordedUses()
        let cutoff = WallTime(milliseconds: WallTime.now().milliseconds - Int64(unused / .milliseconds(1)))
        let removed: [String]
        do throws(StoreFailure) {
            try await writes.store.recordProfileUse(uses)
            profiles.usesRecorded(through: through)
            removed = try await writes.store.expireProfiles(idleBefore: cutoff, limit: limit)
        } catch {
            return []
        }
        // Read back rather than cleared: a PUT through this server between the store's delete and here is stored
        // and set, and stays (a store that fails to read: cleared, as the store had it). A shared store's listener
        // reads it, in order with what it heard (``ProfileRegistry/changedDirectly(_:)``); without one, here.
        for name in removed where !profiles.changedDirectly(name) {
            applyStored(try? await writes.store.profile(of: name), of: name)
        }
        return removed
    }

    /// The profile of `name` as it stands; a dataset without one has the empty profile (no outage, no steps).
    func profileResponse(_ name: String) -> HTTPResponse {
        let (entry, elapsed) =
            profiles.entry(of: name)
            ?? (ProfileRegistry.Entry(profile: DatasetProfile(), since: .zero, left: []), .zero)
        var json = JSONWriter(capacity: 256)
        entry.writeJSON(dataset: name, elapsed: elapsed, into: &json)
        return HTTPResponse(
            status: 200, headers: ["Content-Type": MediaType.json], body: json.bytes)
    }

    /// Whether requests to `route` meet their dataset's profile: the dataset's own routes, not the server's.
    static func meetsProfile(_ route: Route) -> Bool {
        route.flags.data || route == .changes || route == .events
    }

    /// The routes a step may name, from the route table.
    static let profileRoutes: [ProfileBody.Route] = Route.allCases.filter(meetsProfile).map { route in
        ProfileBody.Route(
            template: route.facts.template, methods: route.facts.methods.map(\.name), stream: route.facts.stream)
    }

    /// The dataset whose profile a request meets. `?dataset=` names it where the routes read it, on GET and HEAD
    /// (what `<img>` and `EventSource` send), as the dataset loading does; nil for a name the route refuses itself
    /// (which then answers, unchanged by any profile).
    func profileDataset(of request: HTTPRequest, target: RequestTarget, route: Route) -> String? {
        route.flags.datasetQuery && (request.method == .get || request.method == .head)
            ? try? Self.listName(request.headers, query: (try? target.queryItems()) ?? [])
            : try? Self.listName(request.headers)
    }

    /// What the profile of the request's dataset does to it, and the dataset; nil when it has none (one atomic
    /// load while no dataset has a profile).
    func profileVerdict(of request: HTTPRequest, target: RequestTarget, resource: Resource?)
        -> (dataset: String, verdict: ProfileRegistry.Verdict?)?
    {
        // CORS preflights are the browser's, not the app's: they meet nothing (a 503 would read as a CORS error).
        guard !profiles.isEmpty, request.method != .options, let route = resource?.route, Self.meetsProfile(route)
        else { return nil }
        guard let dataset = profileDataset(of: request, target: target, route: route) else { return nil }
        let verdict = profiles.verdict(dataset, loop: request.loop) {
            Self.profileRequest(request, target: target, route: route, needs: $0)
        }
        return verdict.map { (dataset, $0) }
    }

    /// What a profile looks at in `request`: what `needs` asks for, the rest left empty.
    static func profileRequest(_ request: HTTPRequest, target: RequestTarget, route: Route, needs: ProfileRequest.Needs)
        -> ProfileRequest
    {
        var query: [DatasetProfile.Match.Parameter] = []
        var plainQuery: Substring?
        // Both fields in one pass over the headers (each lookup is a pass).
        let (authorization, clientID) =
            needs.token || needs.client ? request.headers.values("Authorization", "X-Client-Id") : (nil, nil)
        var token = needs.token ? bearerToken(authorization) : nil
        let tokenInQuery = needs.token && token == nil && target.query?.contains("access_token=") == true
        if needs.query, !tokenInQuery, let raw = target.query, !Self.hasEscapes(raw.utf8.span) {
            plainQuery = raw  // a step's conditions are checked on it in place
        } else if needs.query || tokenInQuery {
            // Decoded only when a step looks at it, or it may hold the token (a `<img>`'s).
            query = ((try? target.queryItems()) ?? []).map { .init(name: $0.name, value: $0.value) }
            if token == nil, let text = query.first(where: { $0.name == "access_token" })?.value {
                token = (tokenValue(text.utf8.span), true)
            }
        }
        return ProfileRequest(
            method: request.method.name, route: Route.templates[route.rawValue], query: query, plainQuery: plainQuery,
            kind: profileKind(route),
            client: needs.client ? clientID ?? request.peer : "", token: token?.value,
            carriesToken: token != nil)
    }

    /// Whether a query has a `%` or a `+` (an escape: then it is decoded, not read as sent).
    private static func hasEscapes(_ query: Span<UInt8>) -> Bool {
        for index in 0..<query.count where query[index] == UInt8(ascii: "%") || query[index] == UInt8(ascii: "+") {
            return true
        }
        return false
    }

    /// Which of a profile's latencies a route's answers get.
    static func profileKind(_ route: Route) -> ProfileRequest.Kind {
        switch route {
        case .itemDetail: .detail
        case .itemImage, .itemImageFile, .picsumIDSquare, .picsumIDSized, .picsumSeedSquare, .picsumSeedSized,
            .picsumSquare, .picsumSized:
            .image
        case .events: .stream
        default: .list
        }
    }

    /// The token of an `Authorization: Bearer <token>` field (the scheme in any case), if it is one: its number
    /// when it is one (``tokenValue(_:)``), nil when it is not.
    static func bearerToken(_ authorization: String?) -> (value: UInt128?, carried: Bool)? {
        guard let field = authorization else { return nil }
        // Over the field's bytes in place: through `Substring.UTF8View` and a generic comparison of the scheme,
        // the 32 digits cost ~1,900 instructions.
        let bytes = field.utf8.span
        // "Bearer " in any case: `| 0x20` lowers an ASCII letter, and only `B` or `b` lowers to `b`.
        guard bytes.count > 7, bytes[0] | 0x20 == UInt8(ascii: "b"), bytes[1] | 0x20 == UInt8(ascii: "e"),
            bytes[2] | 0x20 == UInt8(ascii: "a"), bytes[3] | 0x20 == UInt8(ascii: "r"),
            bytes[4] | 0x20 == UInt8(ascii: "e"), bytes[5] | 0x20 == UInt8(ascii: "r"), bytes[6] == UInt8(ascii: " ")
        else { return nil }
        return (tokenValue(bytes.extracting(7...)), true)
    }

    /// A token's number: exactly 32 hex digits, as `POST /auth/token` writes them; nil for anything else. Read from
    /// the bytes in place: no string is made or hashed per request.
    static func tokenValue(_ text: Span<UInt8>) -> UInt128? {
        guard text.count == 32, let high = hexValue(text.extracting(..<16)), let low = hexValue(text.extracting(16...))
        else { return nil }
        return UInt128(high) << 64 | UInt128(low)
    }

    /// Up to 16 hex digits' number (two halves make a token: shifting a UInt128 a digit at a time cost twice as
    /// much); nil when one is not a hex digit.
    private static func hexValue(_ digits: Span<UInt8>) -> UInt64? {
        var value: UInt64 = 0
        var invalid: UInt8 = 0
        for index in 0..<digits.count {
            let digit = hexDigit[Int(digits[index])]
            invalid |= digit  // 0xFF marks a byte that is not a digit; checked once, after the loop
            value = value << 4 | UInt64(digit & 0x0F)
        }
        return invalid & 0xF0 == 0 ? value : nil
    }

    /// Each byte's value as a hex digit, 0xFF for a byte that is not one.
    private static let hexDigit: [UInt8] = (0...255).map { byte in
        switch UInt8(byte) {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt8(byte) - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt8(byte) - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt8(byte) - UInt8(ascii: "A") + 10
        default: 0xFF
        }
    }

    /// The answer a profile's decision gives in place of the route's (`outcome`, which a step's wire fault or
    /// delay may act on).
    func answering(_ decision: ProfileRegistry.Decision, of dataset: String, _ outcome: RouteOutcome) -> RouteOutcome {
        switch decision {
        case .outage(let remaining):
            let seconds = Self.wholeSecondsUp(remaining)
            var response = Problem(
                .injectedFault,
                detail: "dataset \(Problem.quoted(dataset)) is in an outage its profile set, for \(seconds) s more",
                headers: ["Retry-After": String(seconds)], status: 503
            ).response()
            response.note = .injected("outage")
            return .response(response)
        case .rateLimited(let retryAfter):
            let seconds = Self.wholeSecondsUp(retryAfter)
            var response = Problem(
                .injectedFault,
                detail: "this client asked dataset \(Problem.quoted(dataset)) more often than its profile's "
                    + "rate_limit lets it; again in \(seconds) s",
                headers: ["Retry-After": String(seconds)], status: 429
            ).response()
            response.note = .injected("rate_limit")
            return .response(response)
        case .unauthorized(let reason):
            // RFC 6750 §3.1: a request without a token gets the challenge alone; one whose token is not good,
            // `invalid_token` and why.
            let challenge =
                reason.carried
                ? "Bearer realm=\"ListServer\", error=\"invalid_token\", error_description=\"\(reason)\""
                : "Bearer realm=\"ListServer\""
            return .response(
                Problem(
                    .unauthorized,
                    detail: "dataset \(Problem.quoted(dataset)): \(reason); get one with POST /auth/token",
                    headers: ["WWW-Authenticate": challenge]
                ).response())
        case .scripted(let answer, let step, let left):
            var scripted = outcome
            if let status = answer.status {
                var headers = HTTPHeaders()
                if let seconds = answer.retryAfterSeconds { headers.add("Retry-After", String(seconds)) }
                scripted = .response(
                    Problem(
                        .injectedFault,
                        detail: "this \(status) was scripted by dataset \(Problem.quoted(dataset))'s profile (step "
                            + "\(step + 1), \(left) more)",
                        headers: headers, status: status
                    ).response())
            }
            if let kind = answer.kind {
                scripted = injecting(kind, into: scripted, how: "profile")
            }
            if let delay = answer.bodyDelayMs {
                scripted = scripted.delayed(by: .milliseconds(delay))
            }
            return scripted.mapResponse { $0.note = .injected("scripted") }
        }
    }

    /// `outcome` as it travels: held for the request's `delay_ms` and the profile's latency, sent at the
    /// request's `kbps` or the profile's bandwidth (after its first byte), with the client's rate-limit standing.
    func traveling(_ outcome: consuming RouteOutcome, _ verdict: ProfileRegistry.Verdict?, _ controls: RequestControls)
        -> RouteOutcome
    {
        var delay = controls.delay + (verdict?.latency ?? .zero)
        let rate = controls.bytesPerSecond ?? verdict?.bandwidth?.bytesPerSecond
        if rate != nil, let firstByte = verdict?.bandwidth?.firstByteMs { delay += .milliseconds(firstByte) }
        let limit = verdict?.rateLimit
        guard rate != nil || limit != nil else { return outcome.delayed(by: delay) }
        // A response made already is changed in place (consumed, not copied): no closure to allocate.
        switch consume outcome {
        case .response(var response):
            Self.travel(&response, delay: delay, rate: rate, limit: limit)
            return .response(response)
        case let other:
            return other.mapResponse { [delay] in Self.travel(&$0, delay: delay, rate: rate, limit: limit) }
        }
    }

    /// What ``traveling(_:_:_:)`` does to a response: the delay, the rate, and the client's rate-limit standing.
    private static func travel(
        _ response: inout HTTPResponse, delay: Duration, rate: Int?, limit: ProfileRegistry.RateLimitStatus?
    ) {
        response.delay += delay
        if let rate { response.bytesPerSecond = rate }
        if let limit {
            response.rateLimit = RateLimitFields(
                quota: limit.quota, window: limit.windowSeconds, remaining: limit.remaining, reset: limit.resetSeconds)
        }
    }

    /// `duration` in whole seconds, rounded up, at least 1: what `Retry-After` says.
    static func wholeSecondsUp(_ duration: Duration) -> Int {
        max(1, Int((duration + .milliseconds(999)).components.seconds))
    }
}
