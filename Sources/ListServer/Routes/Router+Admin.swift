import ListDomain

/// `POST /admin/reset`: start over between UI tests, optionally with a different catalog.
extension Router {
    /// `POST /admin/reset` with an empty body, `{}`, or `{"seed": S}`.
    ///
    /// Clears the detail cache and the fault counters (the fault sequence and every `fail_first` count), restarts
    /// the list's growth, bumps the catalog version (so every `ETag` changes and every list body says so), and with
    /// a seed switches the whole catalog to it. Answers 200
    /// `{"version":V,"seed":S,"count":N,"cleared":{"details":D,"fault_counters":F}}`.
    ///
    /// Access: with `admin.token` configured, `Authorization: Bearer <token>` is required (compared in constant
    /// time; 401 with `WWW-Authenticate: Bearer` otherwise); without one, only loopback clients are let in (403).
    ///
    /// - Throws: 401/403 as above; 400 `invalid-body` for a body that is not that JSON.
    func adminReset(_ request: HTTPRequest) throws(Problem) -> RouteOutcome {
        try authorizeAdmin(request)
        let seed = try ResetRequestBody(request.body).seed
        let catalogs = self.catalogs
        let cache = self.cache
        let faults = faultInjector
        return .deferred {
            let snapshot = catalogs.reset(seed: seed)
            let details = await cache.reset(to: snapshot.catalog)
            let faultCounters = faults.reset()
            var json = JSONWriter(capacity: 160)
            json.append(raw: "{\"version\":")
            json.append(integer: snapshot.version)
            json.append(raw: ",\"seed\":")
            json.append(integer: snapshot.catalog.seed)
            json.append(raw: ",\"count\":")
            json.append(integer: snapshot.catalog.count)
            json.append(raw: ",\"cleared\":{\"details\":")
            json.append(integer: details)
            json.append(raw: ",\"fault_counters\":")
            json.append(integer: faultCounters)
            json.append(raw: "}}")
            return HTTPResponse(status: 200, headers: ["Content-Type": MediaType.json], body: json.bytes)
        }
    }

    /// Lets the request in, or throws 401 (token configured, not given or wrong) or 403 (no token, not loopback).
    private func authorizeAdmin(_ request: HTTPRequest) throws(Problem) {
        guard service.adminToken.isSet else {
            guard request.fromLoopback else {
                throw Problem(
                    .forbidden,
                    detail: "admin endpoints accept only loopback clients while no admin.token is configured")
            }
            return
        }
        let challenge: HTTPHeaders = ["WWW-Authenticate": "Bearer realm=\"ListServer admin\""]
        guard let credentials = request.headers["Authorization"].flatMap(Self.bearerCredentials) else {
            throw Problem(
                .unauthorized, detail: "admin endpoints require \"Authorization: Bearer <admin.token>\"",
                headers: challenge)
        }
        guard service.adminToken.matches(credentials) else {
            throw Problem(.unauthorized, detail: "the bearer token is not admin.token", headers: challenge)
        }
    }

    /// The credentials of an `Authorization: Bearer <token>` value (scheme in any case, RFC 9110 §11.1), or nil.
    static func bearerCredentials(_ value: String) -> Substring? {
        let parts = value.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return parts[1].drop { $0 == " " }
    }
}
