import ListDomain

/// `GET /admin/datasets`: what each dataset holds and when it was last used, for an operator of a shared server.
extension Router {
    /// The most datasets one answer lists, and its default.
    static let maximumDatasetsLimit: UInt64 = 1000
    static let defaultDatasetsLimit: UInt64 = 100

    /// `GET /admin/datasets?after=<name>&limit=L`: the datasets with writes, by name after `after`, at most `L`
    /// (default 100, at most 1,000), as
    /// `{"datasets":[{"name","items","written","bytes","last_used_ms","idle_s"}],"count","next_after","limit",
    /// "max_datasets","ttl_s"}`. `items` counts live items, `written` those with written fields, `bytes` what the
    /// store holds for it (about); `last_used_ms` is when it was last read or written (ms since 1970, to the minute
    /// or so; null until first recorded) and `idle_s` how long ago that was, so an operator sees which would expire
    /// next. `count` is the number of datasets, `next_after` the name to continue after (null at the end).
    ///
    /// Access as for the other admin endpoints (``authorizeAdmin(_:)``).
    func listDatasets(_ request: HTTPRequest, target: RequestTarget) throws(Problem) -> RouteOutcome {
        var after: String?
        var limit = Self.defaultDatasetsLimit
        let limitRule = QueryIntegerRule(name: "limit", range: 1...Self.maximumDatasetsLimit)
        for item in try ImageQuery.items(of: target) {
            switch item.name {
            case "after":
                try Self.checkDatasetName(item.value, what: "query parameter \"after\"")
                after = item.value
            case "limit": limit = try limitRule.validate(item.value)
            default: continue
            }
        }
        let writes = self.writes
        let ttl = service.datasetTTL
        return .deferred { [after, limit = Int(limit)] in
            let summaries: [DatasetSummary]
            do throws(StoreFailure) {
                summaries = try await writes.store.datasetSummaries(after: after, limit: limit)
            } catch {
                return Problem(
                    .storeUnavailable, detail: "the datasets could not be read (\(error.message))",
                    headers: ["Retry-After": "1"]
                ).response()
            }
            return Self.datasetsResponse(
                summaries, lists: writes.lists, limit: limit, max: writes.maxDatasets, ttl: ttl)
        }
    }

    /// The JSON of `GET /admin/datasets`; a use this server noted that the store has not yet is the last use.
    private static func datasetsResponse(
        _ summaries: [DatasetSummary], lists: ListRegistry, limit: Int, max: Int, ttl: Duration
    ) -> HTTPResponse {
        let now = lists.clockNow
        var json = JSONWriter(capacity: 96 + summaries.count * 128)
        json.append(raw: "{\"datasets\":[")
        for (index, summary) in summaries.enumerated() {
            if index > 0 { json.append(raw: ",") }
            let lastUsed = [summary.lastUsed, lists.lastUse(of: summary.name)].compactMap { $0 }.max()
            json.append(raw: "{\"name\":")
            json.append(string: summary.name)
            json.append(raw: ",\"items\":")
            json.append(integer: summary.liveCount)
            json.append(raw: ",\"written\":")
            json.append(integer: summary.writtenCount)
            json.append(raw: ",\"bytes\":")
            json.append(integer: summary.bytes)
            if let lastUsed {
                json.append(raw: ",\"last_used_ms\":")
                json.append(integer: Int(lastUsed.milliseconds))
                json.append(raw: ",\"idle_s\":")
                json.append(integer: Int(Swift.max(0, now.milliseconds - lastUsed.milliseconds) / 1000))
            } else {
                json.append(raw: ",\"last_used_ms\":null,\"idle_s\":null")
            }
            json.append(raw: "}")
        }
        json.append(raw: "],\"count\":")
        json.append(integer: lists.datasetCount)
        json.append(raw: ",\"next_after\":")
        if summaries.count == limit, let last = summaries.last {
            json.append(string: last.name)
        } else {
            json.append(raw: "null")
        }
        json.append(raw: ",\"limit\":")
        json.append(integer: limit)
        json.append(raw: ",\"max_datasets\":")
        json.append(integer: max)
        json.append(raw: ",\"ttl_s\":")
        json.append(integer: Int(ttl.components.seconds))
        json.append(raw: "}")
        return HTTPResponse(status: 200, headers: ["Content-Type": MediaType.json], body: json.bytes)
    }
}
