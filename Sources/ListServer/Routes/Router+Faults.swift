import ListDomain

/// The per-request controls (see ``RequestControls``) applied to what the route answered.
///
/// - `delay_ms` holds every answer, on every path, errors included: the LibEvent layer sends it after a loop timer
///   (``HTTPResponse/delay``), so a delayed request costs no thread.
/// - Faults go into the data endpoints only (``Route/Facts/data``: the item, detail and image routes and Lorem
///   Picsum's, writes included), and only into a request that is otherwise valid: a bad path, method, id or page is answered as such. Which request fails is decided
///   by ``chooseFault(controls:request:target:)`` from `fail_first`, `fail_rate`, `fail` and `faults.*`. A 500, 503 or
///   429 replaces the answer (problem type `injected-fault`; 503 and 429 with `Retry-After`); for a detail it is
///   answered without consulting the cache. `reset`, `truncated` and `hang` are acted out on the connection with the
///   answer the route made (``HTTPResponse/fault``).
/// - Malformed controls are a 400 `invalid-parameter` naming the parameter, on every path; the route's own 404, 405
///   or 400 comes first.
extension Router {
    /// Whether ``applyingControls(of:target:resource:to:)`` may change the answer to a request for `target`: the target
    /// may carry a control parameter, or `faults.rate` injects faults on its own. A route whose answer has side
    /// effects (the detail cache's store fetch) defers them while this holds, so that a fault that replaces the
    /// answer drops them unrun.
    func mayApplyControls(to target: RequestTarget) -> Bool {
        faults.rate > 0 || !profiles.isEmpty || RequestControls.mayBePresent(in: target)
    }

    /// `answer` with the request's controls applied; `answer` itself when the target has no control parameter.
    ///
    /// - Parameters:
    ///   - target: The request's target, as ``match(_:)`` parsed it (once per request).
    ///   - resource: The resource it names; nil for an unknown path.
    ///   - answer: What the route answered.
    func applyingControls(
        of request: HTTPRequest, target: RequestTarget, resource: Resource?, to answer: Result<RouteOutcome, Problem>
    ) -> RouteOutcome {
        let kbpsField = request.headers[RequestControls.Name.kbpsHeader]
        guard mayApplyControls(to: target) || kbpsField != nil else { return answer.outcome }
        var controls = RequestControls()
        do throws(Problem) {
            if RequestControls.mayBePresent(in: target) {  // scanned again, off the common path only
                controls = try RequestControls(target: target, maxDelay: faults.maxDelay)
            }
            if let kbpsField, controls.bytesPerSecond == nil {  // the query's `kbps` wins
                guard let rate = RequestControls.bytesPerSecond(kbps: kbpsField) else {
                    throw Problem(
                        .invalidHeader,
                        detail: "\(RequestControls.Name.kbpsHeader) must be a decimal integer in "
                            + "1...\(RequestControls.maximumKbps) (kilobits a second), got \(Problem.quoted(kbpsField))"
                    )
                }
                controls.bytesPerSecond = rate
            }
        } catch {
            if case .failure = answer { return answer.outcome }
            return .response(error.response())
        }
        guard case .success(var outcome) = answer else { return answer.outcome.delayed(by: controls.delay) }
        // The dataset's profile first (Router+Profiles.swift); an answer it gives replaces the request's own faults.
        // Bound once, not copied per use: a verdict and its dataset copied three times cost some 600 instructions.
        let (dataset, verdict) = profileVerdict(of: request, target: target, resource: resource) ?? ("", nil)
        if let decision = verdict?.decision {
            return traveling(answering(decision, of: dataset, outcome), verdict, controls)
        }
        if let profileFaults = verdict?.faults, resource?.route.flags.data == true,
            controls.failMix == nil, controls.failRate == nil, controls.failFirst == nil
        {
            // A request without fault controls of its own meets its dataset's (the request's own win).
            controls.failMix = profileFaults.mix
            controls.failRate = profileFaults.rate
            controls.failFirst = profileFaults.failFirst
            controls.profile = dataset
        }
        if resource?.route.flags.data == true {
            if let failFirst = controls.failFirst, failFirst > 0, writes.store.isShared {
                outcome = countingSharedAttempt(controls: controls, request: request, target: target, of: outcome)
            } else if let (kind, how) = chooseFault(controls: controls, request: request, target: target) {
                outcome = injecting(kind, into: outcome, how: how)
            }
        }
        return traveling(outcome, verdict, controls)
    }

    /// `fail_first` with a store that servers share: the attempt is counted in the store (a round trip, so the
    /// answer waits for it), and the route's outcome runs only when no fault replaces it (a write that fails
    /// with a 503 is not written). When the store cannot count, this server's own count decides.
    func countingSharedAttempt(
        controls: RequestControls, request: HTTPRequest, target: RequestTarget, of outcome: RouteOutcome
    ) -> RouteOutcome {
        let list = controls.profile ?? (try? Self.listName(request.headers)) ?? ""
        let faultInjector = faultInjectors.injector(for: list)
        let client = request.headers["X-Client-Id"] ?? ""
        let resource = Self.faultResource(target)
        let store = writes.store
        return .deferred { [self] in
            let counted = try? await store.countAttempt(list: list, client: client, resource: resource)
            let attempt = counted.flatMap { $0 } ?? faultInjector.attempt(client: client, resource: resource)
            guard let (kind, how) = Self.failFirstFault(controls, attempt: attempt, faultInjector) else {
                return await outcome.awaitedResponse()
            }
            return await injecting(kind, into: outcome, how: how).awaitedResponse()
        }
    }

    /// What `?fail_first` injects without `?fail`: a 503, the answer a retrying client is most likely built for.
    static let failFirstDefault = try! FaultMix(parsing: "503")

    /// The fault of a client's `attempt` (counted from 1) at a `fail_first=N` resource: one drawn from `fail`
    /// (default 503) for the first N, none after; and what asked for it.
    static func failFirstFault(_ controls: RequestControls, attempt: UInt64, _ faultInjector: FaultInjector)
        -> (kind: FaultKind, how: String)?
    {
        guard let failFirst = controls.failFirst, attempt <= failFirst,
            let kind = faultInjector.draw(rate: 1, mix: controls.failMix ?? failFirstDefault)
        else { return nil }
        let asked = controls.profile.map { "dataset \(Problem.quoted($0))'s profile, fail_first \(failFirst)" }
        return (kind, (asked ?? "?fail_first=\(failFirst)") + ": attempt \(attempt) of this client")
    }

    /// Which fault to inject into a valid data request, if any, and what asked for it (for the problem's detail).
    ///
    /// - `fail_first=N`: the first N requests for this resource from this client (``faultResource(_:)``,
    ///   `X-Client-Id`) fail with a kind from `fail` (default 503), later ones get no fault at all.
    /// - otherwise `fail_rate=R` (default 1 when `fail` is given, else ``SettingKey/faultRate``) of the requests fail
    ///   with a kind from `fail` (default ``SettingKey/faultKinds``).
    ///
    /// Every draw comes from the shared ``FaultInjector``, seeded by ``SettingKey/faultSeed``: the same seed and the
    /// same sequence of requests fail the same way. A rate of 0 draws nothing.
    func chooseFault(controls: RequestControls, request: HTTPRequest, target: RequestTarget)
        -> (kind: FaultKind, how: String)?
    {
        let rate = controls.failRate ?? (controls.failMix != nil ? 1 : faults.rate)
        // Nothing to count or draw (a request to a dataset without a profile, while another has one): no injector
        // is looked up, which takes the registry's lock.
        guard controls.failFirst != nil || rate > 0 else { return nil }
        // Counters and draws are the dataset's own (an invalid X-Dataset was refused before this): the one whose
        // profile gave the controls, if one did (it may be named by `?dataset=`), else `X-Dataset`'s.
        let faultInjector = faultInjectors.injector(
            for: controls.profile ?? (try? Self.listName(request.headers)) ?? "")
        if let failFirst = controls.failFirst {
            guard failFirst > 0 else { return nil }
            let client = request.headers["X-Client-Id"] ?? ""
            let attempt = faultInjector.attempt(client: client, resource: Self.faultResource(target))
            return Self.failFirstFault(controls, attempt: attempt, faultInjector)
        }
        guard let kind = faultInjector.draw(rate: rate, mix: controls.failMix ?? faults.mix) else { return nil }
        let asked = [
            controls.failMix.map { "fail=" + $0.text }, controls.failRate.map { "fail_rate=" + String($0) },
        ].compactMap { $0 }
        if let dataset = controls.profile {
            return (kind, "dataset \(Problem.quoted(dataset))'s profile: " + asked.joined(separator: ", "))
        }
        return (
            kind, asked.isEmpty ? "\(SettingKey.faultRate.name)=\(faults.rate)" : "?" + asked.joined(separator: "&")
        )
    }

    /// What `fail_first` counts attempts at: the path and the query without the control parameters and the
    /// token, so `/items?page=2&fail_first=2` and `/items?fail_first=2&page=2&delay_ms=10&kbps=64` are the same
    /// resource, and a renewed `access_token` does not start the count over (nor does a token get into a store).
    static func faultResource(_ target: RequestTarget) -> String {
        let controlNames: Set = [
            RequestControls.Name.delay, RequestControls.Name.fail, RequestControls.Name.failRate,
            RequestControls.Name.failFirst, RequestControls.Name.kbps, "access_token",
        ]
        let items = ((try? target.queryItems()) ?? []).filter { !controlNames.contains($0.name) }
        return target.path + "?" + items.map { $0.name + "=" + $0.value }.joined(separator: "&")
    }

    /// `outcome` with `kind` injected: a problem in its place, or the answer marked with a wire fault.
    func injecting(_ kind: FaultKind, into outcome: RouteOutcome, how: String) -> RouteOutcome {
        switch kind {
        case .internalError, .unavailable, .tooManyRequests:
            .response(injectedProblem(kind, how: how))
        case .reset:
            outcome.mapResponse { $0.fault = .reset }
        case .truncated:
            outcome.mapResponse { $0.fault = .truncated }
        case .hang:
            outcome.mapResponse { [hangLimit = faults.hangLimit] in $0.fault = .hang(hangLimit) }
        }
    }

    /// The problem answer of an injected 500, 503 or 429; `how` says what asked for it (`?fail=503`).
    func injectedProblem(_ kind: FaultKind, how: String) -> HTTPResponse {
        let status = Int(kind.rawValue) ?? 500
        var headers = HTTPHeaders()
        if kind == .unavailable || kind == .tooManyRequests {
            headers.add("Retry-After", String(faults.retryAfterSeconds))
        }
        var response = Problem(
            .injectedFault, detail: "this \(status) was injected (\(how))", headers: headers, status: status
        ).response()
        response.note = .injected(String(status))
        return response
    }

}

extension RouteOutcome {
    /// This outcome with `transform` applied to its response, now or once the deferred work is done.
    func mapResponse(_ transform: @escaping @Sendable (inout HTTPResponse) -> Void) -> RouteOutcome {
        switch self {
        case .response(var response):
            transform(&response)
            return .response(response)
        case .deferred(let work):
            return .deferred {
                var response = await work()
                transform(&response)
                return response
            }
        case .pending(let pending):
            return .pending(pending.map(transform))
        case .stream:
            return self  // an event stream has no single response to hold or cut
        case .after(let next):
            return .after { await next().mapResponse(transform) }
        }
    }

    /// This outcome held `delay` longer before it is sent.
    func delayed(by delay: Duration) -> RouteOutcome {
        delay == .zero ? self : mapResponse { $0.delay += delay }
    }

    /// The response, however it comes: made, awaited or called back. A stream has none (`fail_first` never
    /// applies to `/items/events`, which is no data endpoint): a 503 problem, should one ever get here.
    func awaitedResponse() async -> HTTPResponse {
        switch self {
        case .response(let response): response
        case .deferred(let work): await work()
        case .pending(let pending): await pending.response()
        case .stream:
            Problem(.storeUnavailable, detail: "an event stream cannot be answered with one response").response()
        case .after(let next): await next().awaitedResponse()
        }
    }
}

extension Result<RouteOutcome, Problem> {
    /// The outcome, or the problem's response.
    fileprivate var outcome: RouteOutcome {
        switch self {
        case .success(let outcome): outcome
        case .failure(let problem): .response(problem.response())
        }
    }
}
