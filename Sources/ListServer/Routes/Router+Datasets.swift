import ListDomain
import Synchronization

/// Datasets: isolated lists for parallel UI tests, named by the `X-Dataset` request field (or `?dataset=` where a
/// browser cannot send one).
///
/// Each dataset is the generated list plus its own writes, id sequence, change feed, idempotency keys and
/// `fail_first` counts; `POST /admin/reset` with the field resets that dataset only, and
/// `DELETE /admin/datasets/<name>` forgets one. A dataset nobody wrote to costs nothing.
extension Router {
    /// The request field naming the dataset.
    static let datasetField = "X-Dataset"

    /// The list a request names: `X-Dataset` (1–64 of `[A-Za-z0-9._-]`), or the shared default without it.
    static func listName(_ headers: HTTPHeaders) throws(Problem) -> String {
        guard let name = headers[datasetField] else { return ListRegistry.defaultList }
        try checkDatasetName(name, what: "\(datasetField)")
        return name
    }

    /// The list a request names by `X-Dataset` or, for what a browser loads without a header of its choosing
    /// (`EventSource`, `<img>`), by the query parameter `dataset`; both given, they must agree.
    static func listName(_ headers: HTTPHeaders, query: [QueryItem]) throws(Problem) -> String {
        let list = try listName(headers)
        guard let dataset = query.first(where: { $0.name == "dataset" })?.value else { return list }
        do {
            try checkDatasetName(dataset, what: "query parameter \"dataset\"")
        } catch {
            throw Problem(.invalidParameter, detail: error.detail, parameter: "dataset")
        }
        if headers[datasetField] != nil && dataset != list {
            throw Problem(
                .invalidParameter,
                detail: "X-Dataset \(Problem.quoted(list)) and dataset=\(Problem.quoted(dataset)) name two datasets",
                parameter: "dataset")
        }
        return dataset
    }

    /// 400 unless `name` is 1–64 of `[A-Za-z0-9._-]`.
    static func checkDatasetName(_ name: String, what: String) throws(Problem) {
        guard DatasetName.isValid(name.utf8) else {
            throw Problem(
                .invalidHeader, detail: "\(what) must be 1 to 64 of A-Z a-z 0-9 . _ -, got \(Problem.quoted(name))")
        }
    }

    /// `DELETE /admin/datasets/<name>`: the dataset's writes, changes, idempotency keys and fault counters
    /// forgotten; 204. Its version and change sequence go on (one header row stays), with a `reset` change in its
    /// feed, so no `ETag` or feed position of the old dataset names anything in the new one.
    func dropDataset(_ name: String, _ request: HTTPRequest) throws(Problem) -> RouteOutcome {
        try Self.checkDatasetName(name, what: "the dataset name")
        let writes = self.writes
        let faults = faultInjectors
        let profiles = self.profiles
        let journal = observability.journal
        return .deferred {
            let outcome = await writes.submit(WriteOperation(list: name, action: .drop))
            if case .done = outcome {
                // A dataset never written to commits nothing, yet may have a stored profile: it goes too.
                if profiles.entry(of: name) != nil {
                    do throws(StoreFailure) {
                        try await writes.store.setProfile(nil, of: name)
                    } catch {
                        return Self.writeResponse(.failed(error), list: writes.lists.state(of: name))
                    }
                }
                faults.drop(name)
                profiles.set(nil, for: name)
                profiles.changedDirectly(name)
                journal?.remove(name)
            }
            return Self.writeResponse(outcome, list: writes.lists.state(of: name))
        }
    }
}

/// A ``FaultInjector`` per dataset, so `fail_first` counts and fault sequences are the dataset's own.
///
/// Bounded: at most ``capacity`` datasets keep counters, each for the ``pairsPerDataset`` (client, resource) pairs
/// seen last; past that, the least recently created datasets' are forgotten. With the default list's 100,000
/// pairs that is at most about 45 MB, where 1,024 datasets of 100,000 pairs each could have taken 12 GB.
final class FaultInjectorRegistry: Sendable {
    static let capacity = 1024
    /// The (client, resource) pairs whose `fail_first` attempts a dataset counts: a UI test run uses a handful.
    static let pairsPerDataset = 256

    /// The default dataset's injector (``SettingKey/faultSeed``).
    let shared: FaultInjector
    private let seed: UInt64
    /// The injectors by dataset, in the order they were made, and the seeds profiles gave (an injector forgotten
    /// for ``capacity`` is made again from its dataset's seed; at most one a profile, ``ProfileRegistry/capacity``).
    private let named = Mutex<(injectors: [String: FaultInjector], order: [String], seeds: [String: UInt64])>(
        ([:], [], [:]))

    init(_ shared: FaultInjector, seed: UInt64) {
        self.shared = shared
        self.seed = seed
    }

    /// The injector of dataset `name` ("" for the default).
    func injector(for name: String) -> FaultInjector {
        if name == ListRegistry.defaultList { return shared }
        return named.withLock { named in
            if let injector = named.injectors[name] { return injector }
            let injector = FaultInjector(seed: named.seeds[name] ?? seed, failFirstCapacity: Self.pairsPerDataset)
            named.injectors[name] = injector
            named.order.append(name)
            if named.order.count > Self.capacity {
                named.injectors[named.order.removeFirst()] = nil
            }
            return injector
        }
    }

    /// Starts dataset `name`'s counters and draws over, from `seed` (the server's when nil).
    func reseed(_ name: String, seed: UInt64?) {
        guard name != ListRegistry.defaultList else { return }  // the default list's draws are the server's
        named.withLock { named in
            named.seeds[name] = seed
            if named.injectors[name] == nil { named.order.append(name) }
            named.injectors[name] = FaultInjector(seed: seed ?? self.seed, failFirstCapacity: Self.pairsPerDataset)
            if named.order.count > Self.capacity { named.injectors[named.order.removeFirst()] = nil }
        }
    }

    /// Forgets dataset `name`'s counters.
    func drop(_ name: String) {
        named.withLock { named in
            named.injectors[name] = nil
            named.seeds[name] = nil
            named.order.removeAll { $0 == name }
        }
    }
}
