import ListDomain

/// `PUT`, `GET` and `DELETE /admin/datasets/<name>/profile`: what every request to a dataset meets, set at run time
/// (``DatasetProfile``), and how the router applies it (``applyingProfile(of:target:resource:to:)``).
///
/// A profile applies to every request that names the dataset, by `/d/<name>/`, `X-Dataset` or `?dataset=`, on the
/// routes of a dataset (items, details, images, uploads, writes, Picsum's, the change feed and its stream), on
/// every loop from the next request on. An outage answers 503 `injected-fault` with `Retry-After` (the seconds left,
/// rounded up); a script step answers its status as a problem (`injected-fault`, with its `Retry-After`), acts out
/// its wire fault on that answer or on the route's own, and holds the answer `body_delay_ms`. A replaced answer's
/// work never runs: a write answered 503 by a step is not written. CORS preflights meet nothing. Kept in memory (a
/// restart forgets it), dropped with the dataset (`DELETE /admin/datasets/<name>`, or its expiry). Admin access as
/// for the other admin routes.
extension Router {
    func datasetProfile(_ name: String, _ request: HTTPRequest) throws(Problem) -> RouteOutcome {
        try Self.checkDatasetName(name, what: "the dataset name")
        switch request.method {
        case .put:
            let profile = try ProfileBody.profile(
                request.body, dataset: name, routes: Self.profileRoutes,
                maxDelayMs: Int(faults.maxDelay / .milliseconds(1)))
            guard profiles.set(profile, for: name) else {
                throw Problem(
                    .datasetLimit,
                    detail: "the profiles hold as much as they may (\(ProfileRegistry.capacity) datasets, "
                        + "\(ProfileRegistry.maximumBytes >> 20) MiB); clear finished ones first "
                        + "(DELETE /admin/datasets/<name>/profile)")
            }
            // The dataset's fault draws start over, from the profile's seed or the server's.
            faultInjectors.reseed(name, seed: profile.faults?.seed)
            return .response(profileResponse(name))
        case .delete:
            profiles.set(nil, for: name)
            faultInjectors.reseed(name, seed: nil)
            return .response(HTTPResponse(status: 204))
        default:
            return .response(profileResponse(name))
        }
    }

    /// The profile of `name` as it stands; a dataset without one has the empty profile (no outage, no steps).
    private func profileResponse(_ name: String) -> HTTPResponse {
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

    /// `outcome` as the profile of the request's dataset has it, or nil when the profile leaves it alone (or there
    /// is none: one atomic load while no dataset has a profile).
    func applyingProfile(of request: HTTPRequest, target: RequestTarget, resource: Resource?, to outcome: RouteOutcome)
        -> RouteOutcome?
    {
        // CORS preflights are the browser's, not the app's: they meet nothing (a 503 would read as a CORS error).
        guard !profiles.isEmpty, request.method != .options, let route = resource?.route, Self.meetsProfile(route)
        else { return nil }
        guard let dataset = profileDataset(of: request, target: target, route: route) else { return nil }
        let decision = profiles.decide(dataset) {
            let query = ((try? target.queryItems()) ?? []).map {
                DatasetProfile.Match.Parameter(name: $0.name, value: $0.value)
            }
            return ProfileRequest(method: request.method.name, route: route.facts.template, query: query)
        }
        switch decision {
        case nil:
            return nil
        case .outage(let remaining):
            let seconds = max(1, Int((remaining + .milliseconds(999)).components.seconds))
            return .response(
                Problem(
                    .injectedFault,
                    detail: "dataset \(Problem.quoted(dataset)) is in an outage its profile set, for \(seconds) s more",
                    headers: ["Retry-After": String(seconds)], status: 503
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
            return scripted
        }
    }
}
