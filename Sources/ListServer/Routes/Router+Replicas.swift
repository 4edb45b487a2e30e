import ListDomain

/// Read-your-writes across replicas that share a store: a read of a list another server has committed to beyond
/// this server's copy waits, briefly, for the copy to catch up.
///
/// The other server's commit reaches this one as a notification (``ListRegistry/hear(_:sequence:)``) about as
/// soon as the writer's client gets its 201; the catch-up takes a few milliseconds more. A client that sends its
/// next read to this replica in between would see the list before its own write. So a read of the item routes
/// (`GET`/`HEAD` of `/items`, `/items/<id>`, its detail and its image) of a list heard to be ahead waits, in a task
/// (never on the loop, and without polling: the install that catches the copy up resumes it), then is answered as
/// usual; after 200 ms, or while the store
/// is unreachable (the catch-up cannot happen), it is answered from the copy as it is. With nothing heard ahead,
/// the check is one atomic load.
extension Router {
    /// The read, deferred until its list's copy has caught up with what other servers committed; nil when it need
    /// not wait (most requests: not a read of a list, or nothing heard ahead).
    func readAfterCatchUp(_ request: HTTPRequest, _ match: Match) -> RouteOutcome? {
        let lists = writes.lists
        guard lists.hasHeardAhead, request.method == .get || request.method == .head,
            let resource = try? match.resource.get()
        else { return nil }
        let flags = resource.route.flags
        guard flags.catchesUp else { return nil }
        let list: String?
        if flags.datasetQuery {
            // `<img>` names its dataset in the query.
            let query = (try? match.target.get()).flatMap { try? ImageQuery.items(of: $0) } ?? []
            list = try? Self.listName(request.headers, query: query)
        } else {
            list = try? Self.listName(request.headers)
        }
        guard let list, lists.isBehind(list), writes.store.isReachable else { return nil }
        return .deferred { [self] in
            await lists.waitUntilLevel(list, timeout: service.catchUpWait, clock: ContinuousClock())
            return await route(request, match, waitingForOthers: false).awaitedResponse()
        }
    }
}
