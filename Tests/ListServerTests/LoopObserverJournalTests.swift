import Foundation
import Synchronization
import Testing

@testable import ListServer

/// How a loop's observer hands its records to the journal: collections asked for one at a time.
@Suite("LoopObserver: the journal's collections")
struct LoopObserverJournalTests {
    /// A loop's observer on `journal` that counts the collections it asks its loop for.
    final class Loop: @unchecked Sendable {  // one thread
        let observer: LoopObserver
        var asked = 0

        init(_ journal: Journal) {
            observer = LoopObserver(metrics: nil, accessLog: nil, journal: journal)
            observer.scheduleCollect = { [unowned self] in asked += 1 }
        }

        /// One page request, journaled and answered.
        func page(_ number: Int) {
            let request = HTTPRequest(method: .get, target: "/items?page=\(number)", peer: "127.0.0.1")
            let route = RouteLabel(index: Route.templates.firstIndex(of: "/items"))
            let exchange = observer.begin(request, route: route, journaled: true)
            observer.end(exchange, HTTPResponse(status: 200))
        }
    }

    @Test("a loop asks for one collection at a time, however often another loop's collection empties its buffer")
    func oneCollectionAtATime() {
        let journal = JournalTests.journal(capacity: 1_000)
        let one = Loop(journal)
        let two = Loop(journal)
        one.page(1)
        two.page(1)
        #expect(one.asked == 1 && two.asked == 1)
        // Loop one's timer fires: every loop's buffer is taken. Loop two's own collection is still to come, so its
        // next records ask for none (each asked-for collection empties the buffers the others record into again).
        one.observer.collectDue()
        for number in 2...50 {
            two.page(number)
            one.page(number)
        }
        #expect(one.asked == 2 && two.asked == 1)
        two.observer.collectDue()
        two.page(51)
        #expect(two.asked == 2)
        // Every request reached the journal, each once.
        #expect(journal.entries(of: "").entries.count == 101)
    }

    @Test(
        "a loop whose collection falls due during another's asks again rather than wait for it",
        .timeLimit(.minutes(1)))  // waiting would be a deadlock: the other collection waits for this test
    func busyAsksAgain() {
        let journal = JournalTests.journal(capacity: 1_000)
        let one = Loop(journal)
        let two = Loop(journal)
        // Listeners are called inside a collection: loop one's is held there, on its own thread, while loop two's
        // timer fires on this one (a lock tried again on the thread that holds it is no test of this).
        let (entered, release, done) = (
            DispatchSemaphore(value: 0), DispatchSemaphore(value: 0), DispatchSemaphore(value: 0)
        )
        journal.followers.store(1, ordering: .relaxed)
        journal.addListener { _, _, _ in
            entered.signal()
            release.wait()
        }
        one.page(1)
        two.page(1)
        #expect(two.asked == 1)
        Thread {
            one.observer.collectDue()
            done.signal()
        }.start()
        entered.wait()
        two.observer.collectDue()
        #expect(two.asked == 2, "loop two asked its loop again")
        two.page(2)
        #expect(two.asked == 2, "and stays asked-for: no second request needed")
        release.signal()
        done.wait()
        release.signal()  // for the listener of loop two's collection, next
        two.observer.collectDue()
        #expect(journal.entries(of: "").entries.count == 3)
    }
}
