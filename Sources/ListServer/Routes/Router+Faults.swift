import ListDomain

/// The per-request controls (see ``RequestControls``) applied to what the route answered.
///
/// - `delay_ms` holds every answer, on every path, errors included: the LibEvent layer sends it after a loop timer
///   (``HTTPResponse/delay``), so a delayed request costs no thread.
/// - `fail=<mix>` injects a fault into the data endpoints (`/items`, `/items/<id>`, `/items/<id>/detail`) only, and
///   only into a request that is otherwise valid: a bad path, method, id or page is answered as such. A 500, 503 or
///   429 replaces the answer (problem type `injected-fault`; 503 and 429 with `Retry-After`); for a detail it is
///   answered without consulting the cache. `reset`, `truncated` and `hang` are acted out on the connection with the
///   answer the route made (``HTTPResponse/fault``).
/// - Malformed controls are a 400 `invalid-parameter` naming the parameter, on every path; the route's own 404, 405
///   or 400 comes first.
extension Router {
    /// `answer` with the request's controls applied; `answer` itself when the target has no control parameter.
    func applyingControls(of request: HTTPRequest, to answer: Result<RouteOutcome, Problem>) -> RouteOutcome {
        guard RequestControls.mayBePresent(in: request.target) else { return answer.outcome }
        let target: RequestTarget
        let controls: RequestControls
        do throws(Problem) {
            target = try RequestTarget(request.target)
            controls = try RequestControls(target: target, maxDelay: faults.maxDelay)
        } catch {
            if case .failure = answer { return answer.outcome }
            return .response(error.response())
        }
        guard case .success(var outcome) = answer else { return answer.outcome.delayed(by: controls.delay) }
        if isDataEndpoint(target), let kind = chooseFault(controls: controls, request: request) {
            outcome = injecting(kind, into: outcome, controls: controls)
        }
        return outcome.delayed(by: controls.delay)
    }

    /// Which fault to inject into `request`, if any: the one decision the seeded fault injector takes over.
    ///
    /// For now, `fail=<mix>` alone always fails, with the first kind of the mix.
    func chooseFault(controls: RequestControls, request: HTTPRequest) -> FaultKind? {
        // `fail_rate` and `fail_first` are parsed and validated, and wired by the FaultInjector integration.
        guard controls.failRate == nil, controls.failFirst == nil else { return nil }
        return controls.failMix?.entries.first?.kind
    }

    /// `outcome` with `kind` injected: a problem in its place, or the answer marked with a wire fault.
    func injecting(_ kind: FaultKind, into outcome: RouteOutcome, controls: RequestControls) -> RouteOutcome {
        switch kind {
        case .internalError, .unavailable, .tooManyRequests:
            .response(injectedProblem(kind, how: controls.failMix.map { "?fail=" + $0.text } ?? "configuration"))
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
        return Problem(
            .injectedFault, detail: "this \(status) was injected (\(how))", headers: headers, status: status
        ).response()
    }

    /// Whether `target` names a data endpoint, the only ones faults are injected into.
    private func isDataEndpoint(_ target: RequestTarget) -> Bool {
        guard let segments = try? target.segments(maximumCount: Self.maximumSegments) else { return false }
        switch Resource(segments: segments) {
        case .items, .item, .itemDetail: return true
        default: return false
        }
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
        }
    }

    /// This outcome held `delay` longer before it is sent.
    func delayed(by delay: Duration) -> RouteOutcome {
        delay == .zero ? self : mapResponse { $0.delay += delay }
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
