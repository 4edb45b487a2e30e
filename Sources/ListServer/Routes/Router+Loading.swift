import ListDomain

/// Datasets on first use: a dataset whose rows are stored but not read since the server started is read before a
/// request to it is routed.
///
/// The server starts with only the names of the stored lists (so start-up does not grow with the datasets on
/// disk); the first request that names one (by `X-Dataset`, or `?dataset=` where a browser cannot send the header)
/// waits, in a task, never on the loop, while the ``WriteCoordinator`` reads it (on the store's thread, as one of
/// its groups, so no load races a commit), then is routed as usual. Writes need none of this: the coordinator
/// loads the lists a group writes to itself. While every stored dataset is in memory, the check is one atomic load.
///
/// A dataset can also leave memory (the memory budget, `ListRegistry+Memory.swift`) between that check and the
/// route's read of it, on another thread: so routes read their list with ``readableState(of:)``, one look that finds
/// it or says it is out, and a request whose list went out is loaded and routed again (``routeAgainAfterLoading``)
/// rather than answered from a list that looks as if nobody had written to it.
extension Router {
    /// List `name`'s state for a read; throws a problem that makes ``route(_:_:waitingForOthers:)`` load the list
    /// and route the request again when it is stored but not in memory.
    func readableState(of name: String) throws(Problem) -> ListState {
        guard let state = writes.lists.stateInMemory(of: name) else {
            var problem = Problem(
                .storeUnavailable, detail: "dataset \(Problem.quoted(name)) could not be read from the store",
                headers: ["Retry-After": "1"])
            problem.datasetToLoad = name
            throw problem
        }
        return state
    }

    /// The request, loaded and routed again, when its answer is a list it found out of memory; nil otherwise (and
    /// on the second try, whose problem is answered: 503 with `Retry-After`).
    func routeAgainAfterLoading(
        _ answer: Result<RouteOutcome, Problem>, _ request: HTTPRequest, _ match: Match, retried: Bool
    ) -> RouteOutcome? {
        guard !retried, case .failure(let problem) = answer, let name = problem.datasetToLoad else { return nil }
        let writes = self.writes
        return .after { [self] in
            await writes.load(name)
            return route(request, match, retried: true)
        }
    }

    /// The request, routed once its dataset is in memory; nil when it needs no loading.
    func routeAfterLoading(_ request: HTTPRequest, _ match: Match) -> RouteOutcome? {
        let lists = writes.lists
        guard lists.hasUnloaded, let name = Self.datasetNamed(request, match), lists.needsLoading(name) else {
            return nil
        }
        let writes = self.writes
        return .after { [self] in
            await writes.load(name)
            guard !lists.needsLoading(name) else {
                return .response(
                    Problem(
                        .storeUnavailable, detail: "dataset \(Problem.quoted(name)) could not be read from the store",
                        headers: ["Retry-After": "1"]
                    ).response())
            }
            return route(request, match)
        }
    }

    /// The dataset a request names, if it names a valid one: `X-Dataset`, else the query's `dataset` on a GET or
    /// HEAD the route answers and that reads it (the routes check both properly; a bad name is their 400, with
    /// nothing to load).
    private static func datasetNamed(_ request: HTTPRequest, _ match: Match) -> String? {
        if let name = request.headers[datasetField] {
            return (try? checkDatasetName(name, what: "")) == nil ? nil : name
        }
        guard request.method == .get || request.method == .head,
            let flags = (try? match.resource.get())?.route.flags, flags.datasetQuery, !flags.admin,
            flags.answers(request.method),
            let target = try? match.target.get(), let query = target.query,
            query.utf8.firstRange(of: "dataset=".utf8) != nil,
            let name = (try? target.queryItems())?.first(where: { $0.name == "dataset" })?.value
        else { return nil }
        return (try? checkDatasetName(name, what: "")) == nil ? nil : name
    }
}
