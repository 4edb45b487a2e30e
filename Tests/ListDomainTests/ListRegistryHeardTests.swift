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
}
