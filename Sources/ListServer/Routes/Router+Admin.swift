import ListDomain

/// `POST /admin/reset`: start over between UI tests, optionally with a different catalog.
extension Router {
    /// `POST /admin/reset` with an empty body, `{}`, or `{"seed": S}`.
    ///
    /// Drops every write to the list (durably: a `reset` change is committed, and the id sequence restarts at the
    /// base count), clears the detail cache and the fault counters (the fault sequence and every `fail_first`
    /// count), bumps the list's version (so every `ETag` changes and every list body says so), and with a seed
    /// switches the whole list to it. With `X-Dataset` only that dataset is reset (the detail cache, which serves
    /// the default list, stays). Answers 200
    /// `{"version":V,"seed":S,"count":N,"cleared":{"details":D,"fault_counters":F}}`.
    ///
    /// Access, which the router checks before this runs (``authorizeAdmin(_:)``, for every admin route): a web page
    /// of another origin than the server's own (or ``SettingKey/adminAllowedOrigins``) is refused 403
    /// (``AdminOrigin``); with ``SettingKey/adminToken`` configured, `Authorization: Bearer <token>` is required
    /// (compared in constant time; 401 with `WWW-Authenticate: Bearer` otherwise); without one, only loopback clients
    /// are let in (403).
    ///
    /// - Throws: 400 `invalid-body` for a body that is not that JSON.
    func adminReset(_ request: HTTPRequest) throws(Problem) -> RouteOutcome {
        let list = try Self.listName(request.headers)
        let seed = try ResetRequestBody(request.body).seed
        let writes = self.writes
        let cache = self.cache
        let faults = faultInjectors.injector(for: list)
        return .deferred {
            let outcome = await writes.submit(WriteOperation(list: list, action: .reset(seed: seed)))
            guard case .done(.reset(let reset)) = outcome else {
                return Self.writeResponse(outcome, list: writes.lists.state(of: list))
            }
            // The detail cache serves the default list's seed; a dataset's reset leaves it alone.
            let details =
                list == ListRegistry.defaultList
                ? cache.reset(to: Catalog(seed: reset.seed, count: reset.count)) : 0
            let faultCounters = faults.reset()
            var json = JSONWriter(capacity: 160)
            json.append(raw: "{\"version\":")
            json.append(integer: reset.version)
            json.append(raw: ",\"seed\":")
            json.append(integer: reset.seed)
            json.append(raw: ",\"count\":")
            json.append(integer: reset.count)
            json.append(raw: ",\"cleared\":{\"details\":")
            json.append(integer: details)
            json.append(raw: ",\"fault_counters\":")
            json.append(integer: faultCounters)
            json.append(raw: "}}")
            return HTTPResponse(status: 200, headers: ["Content-Type": MediaType.json], body: json.bytes)
        }
    }

    /// Lets the request in, or throws 403 (a web page of another origin: ``AdminOrigin``), 401 (token configured, not
    /// given or wrong) or 403 (no token, not loopback).
    func authorizeAdmin(_ request: HTTPRequest) throws(Problem) {
        if let refusal = service.adminOrigin.refusal(request.headers) {
            throw Problem(.forbidden, detail: refusal)
        }
        guard service.adminToken.isSet else {
            guard request.fromLoopback else {
                throw Problem(
                    .forbidden,
                    detail:
                        "admin endpoints accept only loopback clients while no \(SettingKey.adminToken.name) is configured"
                )
            }
            return
        }
        let challenge: HTTPHeaders = ["WWW-Authenticate": "Bearer realm=\"ListServer admin\""]
        guard let credentials = request.headers["Authorization"].flatMap(Self.bearerCredentials) else {
            throw Problem(
                .unauthorized,
                detail: "admin endpoints require \"Authorization: Bearer <\(SettingKey.adminToken.name)>\"",
                headers: challenge)
        }
        guard service.adminToken.matches(credentials) else {
            throw Problem(
                .unauthorized, detail: "the bearer token is not \(SettingKey.adminToken.name)", headers: challenge)
        }
    }

    /// The credentials of an `Authorization: Bearer <token>` value (scheme in any case, RFC 9110 §11.1), or nil.
    static func bearerCredentials(_ value: String) -> Substring? {
        let parts = value.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return parts[1].drop { $0 == " " }
    }
}
