import Foundation
import ListDomain
import Testing

@testable import ListServer

/// Read-your-writes across replicas, at the router: a read of a list heard to be ahead waits for the catch-up.
@Suite("Router: reads wait for a catch-up another server's commit asked for")
struct RouterReplicaTests {
    @Test("a read of a list heard ahead is deferred until the copy catches up, then shows the write")
    func readWaitsForTheCatchUp() async throws {
        var service = ServiceOptions()
        service.catchUpWait = .seconds(30)  // the read must outwait the write, however loaded the machine
        let router = RouterFixture.router(store: MemoryListStore(), service: service)
        let lists = router.writes.lists
        #expect(router.respond("/items/10000").status == 404)  // nothing heard: answered at once
        #expect(lists.hear("", sequence: 1))  // another server created item 10000

        let waiting = Task { await router.respondDeferred("/items/10000") }
        try await Task.sleep(for: .milliseconds(30))
        // Here the write arrives as a catch-up would bring it (a commit through this router installs the same way).
        let created = await router.write(.post, "/items", json: #"{"label":"from elsewhere"}"#)
        #expect(created.status == 201)
        let answer = await waiting.value
        #expect(answer.status == 200)
        #expect(String(decoding: answer.body, as: UTF8.self).contains("from elsewhere"))
        #expect(router.respond("/items/10000").status == 200)  // caught up: no wait any more
    }

    @Test("an image names its dataset in the query (<img>): its read waits for that dataset")
    func imagesWaitForTheirDataset() async throws {
        let router = RouterFixture.router(store: MemoryListStore())
        #expect(router.writes.lists.hear("ui-7", sequence: 3))
        guard case .deferred = router.route(HTTPRequest(method: .get, target: "/items/1/image?dataset=ui-7")) else {
            Issue.record("the image of a dataset heard ahead was answered at once")
            return
        }
        guard case .response = router.route(HTTPRequest(method: .get, target: "/items/1?dataset=ui-7")) else {
            Issue.record("an item read with ?dataset (which only images and events take) waited")
            return
        }
    }

    @Test("writes, other lists and other routes are not held; a read waits 200 ms at most")
    func onlyReadsOfThatListWait() async throws {
        var service = ServiceOptions()
        service.catchUpWait = .milliseconds(50)
        let router = RouterFixture.router(store: MemoryListStore(), service: service)
        #expect(router.writes.lists.hear("", sequence: 5))
        #expect(router.respond("/items/1", headers: ["X-Dataset": "other"]).status == 200)
        #expect(router.respond("/healthz").status == 200)
        let started = ContinuousClock.now
        let answer = await router.respondDeferred("/items?limit=1")
        #expect(answer.status == 200)  // answered from the copy as it is, once the wait is over
        #expect(ContinuousClock.now - started >= .milliseconds(50))
        router.writes.lists.forgetHeard("")
        #expect(router.respond("/items?limit=1").status == 200)
    }
}
