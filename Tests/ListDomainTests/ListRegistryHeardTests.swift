import ListDomain
import Testing

/// What a server heard other servers commit, ahead of its copies: reads wait while a list is behind what was
/// heard, and installing a copy that far forgets it.
@Suite("ListRegistry: heard ahead")
struct ListRegistryHeardTests {
    func create(_ label: String) -> WriteOperation {
        WriteOperation(list: ListRegistry.defaultList, action: .create(ItemOverrides(label: label)))
    }

    @Test func aListIsBehindWhatWasHeardUntilACopyThatFarIsInstalled() async throws {
        let fixture = WriteFixture()
        let lists = fixture.lists
        #expect(!lists.isBehind(""))
        #expect(lists.hear("", sequence: 2))  // the copy is at 0
        #expect(lists.isBehind(""))
        #expect(!lists.isBehind("other"))
        _ = await fixture.submit(create("one"))
        #expect(lists.isBehind(""))  // at 1, heard 2
        _ = await fixture.submit(create("two"))
        #expect(!lists.isBehind(""))
        #expect(!lists.hear("", sequence: 2))  // already there: nothing to wait for
        #expect(!lists.hear("", sequence: 1))
    }

    @Test func theHighestSequenceHeardCounts() async throws {
        let fixture = WriteFixture()
        let lists = fixture.lists
        #expect(lists.hear("", sequence: 1))  // starts a wait: the caller catches the list up
        #expect(!lists.hear("", sequence: 3))  // raises what it waits for; no second catch-up
        #expect(!lists.hear("", sequence: 2))
        #expect(lists.hasHeardAhead)
        _ = await fixture.submit(create("one"))
        _ = await fixture.submit(create("two"))
        #expect(lists.isBehind(""))  // at 2, heard 3
        _ = await fixture.submit(create("three"))
        #expect(!lists.isBehind(""))
        #expect(!lists.hasHeardAhead)
    }

    @Test func aListForgottenIsNotWaitedFor() {
        let lists = ListRegistry(seed: 1, count: 10)
        #expect(lists.hear("ui-1", sequence: 5))
        #expect(lists.isBehind("ui-1"))
        lists.forgetHeard("ui-1")
        #expect(!lists.isBehind("ui-1"))
        lists.forgetHeard("ui-1")  // twice is fine
        #expect(lists.hear("ui-1", sequence: 6))
        #expect(lists.isBehind("ui-1"))
    }

    // Time-limited: with the clock standing still, a wait that nothing resumes would otherwise hang the run.
    @Test(
        "a read waiting for a copy is resumed by the install that catches it up, with the clock standing still",
        .timeLimit(.minutes(1)))
    func aWaitEndsWithTheInstall() async throws {
        let fixture = WriteFixture()
        let lists = fixture.lists
        let clock = TestClock()
        #expect(lists.hear("", sequence: 2))
        let waiting = Task { await lists.waitUntilLevel("", timeout: .seconds(1), clock: clock) }
        #expect(await clock.waitForSleepers(1))  // registered, its timeout armed
        _ = await fixture.submit(create("one"))
        #expect(lists.isBehind(""))  // at 1 of 2: still waiting
        _ = await fixture.submit(create("two"))
        await waiting.value
        #expect(clock.now.offset == .zero)  // no timeout passed: the install resumed it
        #expect(await clock.waitForSleepers(0))  // and its timer was cancelled, not left sleeping
        #expect(!lists.isBehind(""))
    }

    @Test(
        "a read waiting for a copy that does not come is let go at its timeout, or when the list is forgotten",
        .timeLimit(.minutes(1)))
    func aWaitEndsAtItsTimeout() async throws {
        let lists = ListRegistry(seed: 1, count: 10)
        let clock = TestClock()
        #expect(lists.hear("ui-1", sequence: 5))
        let timedOut = Task { await lists.waitUntilLevel("ui-1", timeout: .milliseconds(200), clock: clock) }
        #expect(await clock.waitForSleepers(1))
        clock.advance(by: .milliseconds(200))
        await timedOut.value
        #expect(lists.isBehind("ui-1"))  // let go, not caught up
        let forgotten = Task { await lists.waitUntilLevel("ui-1", timeout: .seconds(60), clock: clock) }
        #expect(await clock.waitForSleepers(1))
        lists.forgetHeard("ui-1")
        await forgotten.value
        await lists.waitUntilLevel("ui-1", timeout: .seconds(60), clock: clock)  // not behind: returns at once
    }
}
