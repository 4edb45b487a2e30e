import Testing

@testable import ListDomain

/// Simulated participants (issue 36): the script is a pure function of the seed and the turn, and the driver acts it
/// out on a manual clock (no real sleeping): typing, then the message, then the edit or deletion.
@Suite("Chat: simulated participants")
struct ChatActivityTests {
    static let shape = ChatCatalog.Shape(conversations: 12, messagesPerConversation: 40)

    @Test("a turn is the same for the same seed; another seed draws other turns; the app's user never writes")
    func scriptIsDeterministic() {
        let catalog = ChatCatalog(seed: 5, shape: Self.shape)
        let activity = ChatActivity(messagesPerMinute: 30, typing: .milliseconds(1500), editRatio: 0.3, seed: 9)
        let script = ChatActivityScript(activity, catalog: catalog)
        let again = ChatActivityScript(activity, catalog: catalog)
        var other = activity
        other.seed = 10
        let otherScript = ChatActivityScript(other, catalog: catalog)
        var differs = 0
        for number in UInt64(0)..<200 {
            let turn = script.turn(number)
            #expect(turn == again.turn(number))
            if turn.conversation != otherScript.turn(number).conversation || turn.text != otherScript.turn(number).text
            {
                differs += 1
            }
            #expect(turn.conversation < catalog.conversationCount)
            #expect(turn.participant >= 1 && turn.participant < catalog.participants(of: turn.conversation).count)
            #expect(turn.typingAt == .seconds(2) * Int(number))  // 30 a minute: one every 2 s
            #expect(turn.sendAt == turn.typingAt + .milliseconds(1500))
            #expect(!turn.text.isEmpty)
            #expect(turn.deleteAt == nil)  // no delete ratio
            if let editAt = turn.editAt {
                #expect(editAt > turn.sendAt && editAt < turn.typingAt + .seconds(4))
                #expect(turn.editText != nil && turn.editText != turn.text)
            }
        }
        #expect(differs > 150)
        // Without a seed of its own, the dataset's.
        let unseeded = ChatActivity(messagesPerMinute: 30)
        #expect(
            ChatActivityScript(unseeded, catalog: catalog).turn(3)
                == ChatActivityScript(unseeded, catalog: ChatCatalog(seed: 5, shape: Self.shape)).turn(3))
        #expect(
            ChatActivityScript(unseeded, catalog: catalog).turn(3).text
                != ChatActivityScript(unseeded, catalog: ChatCatalog(seed: 6, shape: Self.shape)).turn(3).text)
    }

    @Test("edits, deletions and replies come at the rates asked for; a restart goes on from the turn due")
    func rates() {
        let catalog = ChatCatalog(seed: 1, shape: Self.shape)
        let script = ChatActivityScript(
            ChatActivity(messagesPerMinute: 60, editRatio: 0.3, deleteRatio: 0.1), catalog: catalog)
        let turns = (UInt64(0)..<10_000).map(script.turn)
        let edited = Double(turns.count { $0.editAt != nil }) / 10_000
        let deleted = Double(turns.count { $0.deleteAt != nil }) / 10_000
        let replies = Double(turns.count { $0.replyBack != nil }) / 10_000
        #expect(abs(edited - 0.3) < 0.02)
        #expect(abs(deleted - 0.1) < 0.015)
        #expect(abs(replies - 0.2) < 0.02)
        #expect(turns.allSatisfy { ($0.replyBack ?? 1) >= 1 && ($0.replyBack ?? 1) <= 50 })
        #expect(script.firstTurn(notBefore: .zero) == 0)
        #expect(script.firstTurn(notBefore: .milliseconds(900)) == 0)  // due a moment ago: still acted out
        #expect(script.firstTurn(notBefore: .seconds(4)) == 3)  // a turn a second: 0 to 2 are past
        #expect(script.firstTurn(notBefore: .milliseconds(4001)) == 4)
    }

    @Test("the driver types, sends as the participant, edits and deletes on schedule, and stops when cleared")
    func driverActsItOut() async throws {
        let fixture = WriteFixture()
        let signals = PThreadLocked<[TypingSignal]>([])
        fixture.feed.addSignalListener { list, signal in
            if list == "chat" { signals.withLock { $0.append(signal) } }
        }
        let wallClock: @Sendable () -> WallTime = { WallTime(milliseconds: 1_000_000) }
        let driver = ChatActivityDriver(
            writes: fixture.coordinator, shape: Self.shape, clock: fixture.clock, wallClock: wallClock)
        let activity = ChatActivity(
            messagesPerMinute: 60, typing: .milliseconds(200), editRatio: 1, deleteRatio: 0, seed: 3)
        let script = ChatActivityScript(activity, catalog: ChatCatalog(seed: WriteFixture.seed, shape: Self.shape))
        driver.set(activity, for: "chat", setAt: wallClock())
        #expect(driver.count == 1)

        for number in UInt64(0)..<3 {
            let turn = script.turn(number)
            let participants = script.catalog.participants(of: turn.conversation)
            let before = fixture.lists.state(of: "chat").chat(Self.shape).messageCount(of: turn.conversation)
            // Typing first, at the turn's start, for as long as the activity says.
            #expect(await fixture.clock.waitForSleepers(1))
            fixture.clock.advance(by: turn.typingAt - fixture.clock.now.offset)
            #expect(await eventually { signals.withLock { $0.count } == Int(number) + 1 })
            let signal = signals.withLock { $0.last }
            #expect(signal?.conversation == turn.conversation)
            #expect(signal?.authorIndex == participants[turn.participant])
            #expect(signal?.client == nil)
            #expect(signal?.duration == .milliseconds(200))
            // Nothing is sent while it types.
            #expect(fixture.lists.state(of: "chat").chat(Self.shape).messageCount(of: turn.conversation) == before)
            #expect(await fixture.clock.waitForSleepers(1))
            fixture.clock.advance(by: turn.sendAt - fixture.clock.now.offset)
            #expect(
                await eventually {
                    fixture.lists.state(of: "chat").chat(Self.shape).messageCount(of: turn.conversation) == before + 1
                })
            let sent = fixture.lists.state(of: "chat").chat(Self.shape).message(before, in: turn.conversation)
            #expect(sent?.text == turn.text)
            #expect(sent?.authorIndex == participants[turn.participant])
            if let replyBack = turn.replyBack, replyBack <= before {
                #expect(sent?.replyTo == before - replyBack)
            } else {
                #expect(sent?.replyTo == nil)
            }
            // Every message of this activity is edited (edit ratio 1), a third of an interval later.
            let editAt = try #require(turn.editAt)
            #expect(await fixture.clock.waitForSleepers(1))
            fixture.clock.advance(by: editAt - fixture.clock.now.offset)
            #expect(
                await eventually {
                    fixture.lists.state(of: "chat").chat(Self.shape).message(before, in: turn.conversation)?.text
                        == turn.editText
                })
        }

        driver.set(nil, for: "chat", setAt: wallClock())
        #expect(driver.count == 0)
        #expect(await eventually { fixture.clock.sleeperCount == 0 })
        let written = fixture.published.flatMap(\.changes).count
        fixture.clock.advance(by: .seconds(10))
        try await Task.sleep(for: .milliseconds(50))  // real time for a stray task to show itself; none should
        #expect(fixture.published.flatMap(\.changes).count == written)
        #expect(signals.withLock { $0.count } == 3)
    }

    @Test("stop() ends every dataset's participants for good: nothing runs or starts after it")
    func stopIsFinal() async {
        let fixture = WriteFixture()
        let wallClock: @Sendable () -> WallTime = { WallTime(milliseconds: 1_000_000) }
        let driver = ChatActivityDriver(
            writes: fixture.coordinator, shape: Self.shape, clock: fixture.clock, wallClock: wallClock)
        let activity = ChatActivity(messagesPerMinute: 60, typing: .zero, seed: 1)
        driver.set(activity, for: "a", setAt: wallClock())
        driver.set(activity, for: "b", setAt: wallClock())
        #expect(await fixture.clock.waitForSleepers(2))  // turn 0 is written (no typing time); both wait for turn 1
        let written = fixture.published.flatMap(\.changes).count
        await driver.stop()  // returns once both tasks have ended
        #expect(driver.count == 0)
        #expect(fixture.clock.sleeperCount == 0)
        driver.set(activity, for: "c", setAt: wallClock())
        #expect(driver.count == 0)
        fixture.clock.advance(by: .seconds(5))
        #expect(fixture.published.flatMap(\.changes).count == written)
    }

    @Test("two drivers over one store (servers sharing it) write each turn's message once")
    func sharedStoreWritesOnce() async throws {
        let fixture = WriteFixture()
        let wallClock: @Sendable () -> WallTime = { WallTime(milliseconds: 1_000_000) }
        let activity = ChatActivity(messagesPerMinute: 60, typing: .zero, deleteRatio: 1, seed: 4)
        let drivers = (0..<2).map { _ in
            ChatActivityDriver(
                writes: fixture.coordinator, shape: Self.shape, clock: fixture.clock, wallClock: wallClock)
        }
        for driver in drivers { driver.set(activity, for: "shared", setAt: wallClock()) }
        let script = ChatActivityScript(activity, catalog: ChatCatalog(seed: WriteFixture.seed, shape: Self.shape))
        let turn = script.turn(0)
        let before = fixture.lists.state(of: "shared").chat(Self.shape).messageCount(of: turn.conversation)
        #expect(await fixture.clock.waitForSleepers(2))
        fixture.clock.advance(by: .zero)  // typing, then the send, at once (no typing time)
        // Both reach the delete's sleep only after both sends were answered: the first wrote, the second replayed.
        #expect(await fixture.clock.waitForSleepers(2))
        #expect(fixture.lists.state(of: "shared").chat(Self.shape).messageCount(of: turn.conversation) == before + 1)
        fixture.clock.advance(by: try #require(turn.deleteAt))
        #expect(
            await eventually {
                fixture.lists.state(of: "shared").chat(Self.shape).message(before, in: turn.conversation)?.deleted
                    == true
            })
        #expect(await fixture.clock.waitForSleepers(2))  // both on to the next turn, the deletion written once
        let kinds = fixture.published.filter { $0.list == "shared" }.flatMap(\.changes).map(\.event.kind)
        #expect(kinds == ["message.created", "conversation.updated", "message.deleted"])
        for driver in drivers { await driver.stop() }
    }
}
