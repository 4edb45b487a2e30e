import Synchronization

/// Runs the simulated participants of every dataset whose profile sets a ``ChatActivity``: one task a dataset, on
/// an injected clock (tests run it without sleeping), acting out its ``ChatActivityScript``: a typing signal on the
/// feed, then the message through the ``WriteCoordinator`` as a client's would go (the same commits, changes and
/// feed), then the edit or deletion.
///
/// Each write carries an `Idempotency-Key` made of when the activity was set and the turn, so servers sharing a
/// store, each running the same script, write every message once: the later ones get the first one's answer back.
/// A turn whose write is refused (a conversation at its last id, a dataset full) is skipped.
public final class ChatActivityDriver<C: Clock<Duration>>: Sendable {
    private struct Running {
        let activity: ChatActivity
        let setAt: WallTime
        let task: Task<Void, Never>
    }

    private let writes: WriteCoordinator
    private let shape: ChatCatalog.Shape
    private let clock: C
    private let wallClock: @Sendable () -> WallTime
    private struct State {
        var running: [String: Running] = [:]
        /// Set by ``stop()``: nothing starts again.
        var stopped = false
    }

    private let state = Mutex(State())

    public init(
        writes: WriteCoordinator, shape: ChatCatalog.Shape, clock: C, wallClock: @escaping @Sendable () -> WallTime
    ) {
        self.writes = writes
        self.shape = shape
        self.clock = clock
        self.wallClock = wallClock
    }

    /// How many datasets have simulated participants now.
    public var count: Int { state.withLock { $0.running.count } }

    /// The most datasets with simulated participants at once (each writes up to 10 messages a second).
    public static var capacity: Int { 64 }

    /// Whether `list` may have participants: it has some already, or there is room for one more dataset.
    public func hasRoom(for list: String) -> Bool {
        state.withLock { $0.running[list] != nil || $0.running.count < Self.capacity }
    }

    /// Sets `list`'s activity as its profile has it (nil: none), the profile set at `setAt`: one that runs already
    /// goes on, a changed one starts over from the turn due now.
    public func set(_ activity: ChatActivity?, for list: String, setAt: WallTime) {
        state.withLock { state in
            if let current = state.running[list], current.activity == activity, current.setAt == setAt { return }
            state.running.removeValue(forKey: list)?.task.cancel()
            guard !state.stopped else { return }
            // Past the capacity (profiles read back at start-up), the dataset's profile keeps the activity but
            // nobody acts it out; a PUT is refused before that (``hasRoom(for:)``).
            guard let activity, activity.messagesPerMinute > 0, state.running.count < Self.capacity else { return }
            let task = Task { [writes, shape, clock, wallClock] in
                await Self.run(
                    activity, list: list, setAt: setAt, writes: writes, shape: shape, clock: clock,
                    wallClock: wallClock)
            }
            state.running[list] = Running(activity: activity, setAt: setAt, task: task)
        }
    }

    /// Stops every dataset's participants, for good (shutdown), and returns once none writes any more.
    public func stop() async {
        let tasks = state.withLock { state in
            state.stopped = true
            defer { state.running.removeAll() }
            return state.running.values.map(\.task)
        }
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
    }

    /// Turns, one after the other, until cancelled.
    private static func run(
        _ activity: ChatActivity, list: String, setAt: WallTime, writes: WriteCoordinator,
        shape: ChatCatalog.Shape, clock: C, wallClock: @Sendable () -> WallTime
    ) async {
        let elapsed = Duration.milliseconds(max(0, wallClock().milliseconds - setAt.milliseconds))
        let start = clock.now.advanced(by: .zero - elapsed)
        var number = ChatActivityScript(activity, catalog: ChatCatalog(seed: 0, shape: shape))
            .firstTurn(notBefore: elapsed)
        let key = "chat-activity-\(setAt.milliseconds)"
        while !Task.isCancelled {
            // The dataset's catalog as it is now: a reset to another seed changes who is in which conversation.
            let seed = writes.lists.state(of: list).header.seed
            let script = ChatActivityScript(activity, catalog: ChatCatalog(seed: seed, shape: shape))
            let turn = script.turn(number)
            let participants = script.catalog.participants(of: turn.conversation)
            guard (try? await clock.sleep(until: start.advanced(by: turn.typingAt), tolerance: nil)) != nil else {
                return
            }
            writes.feed.announce(
                TypingSignal(
                    conversation: turn.conversation, authorIndex: participants[turn.participant], client: nil,
                    duration: script.activity.typing),
                of: list)
            guard (try? await clock.sleep(until: start.advanced(by: turn.sendAt), tolerance: nil)) != nil else {
                return
            }
            await writes.load(list)
            guard !Task.isCancelled else { return }  // stopped while the list loaded: nothing more is written
            let count = writes.lists.state(of: list).chat(shape).messageCount(of: turn.conversation)
            let replyTo = turn.replyBack.flatMap { $0 <= count ? count - $0 : nil }
            let sent = await writes.submit(
                WriteOperation(
                    list: list,
                    action: .sendMessage(
                        shape, conversation: turn.conversation, participant: turn.participant, text: turn.text,
                        replyTo: replyTo, at: wallClock().milliseconds),
                    idempotency: claim("\(key)-\(number)-send")))
            if let id = Self.messageID(sent) {
                let message = MessageKey(conversation: turn.conversation, id: id)
                if let editAt = turn.editAt, let text = turn.editText {
                    guard (try? await clock.sleep(until: start.advanced(by: editAt), tolerance: nil)) != nil,
                        !Task.isCancelled
                    else { return }
                    _ = await writes.submit(
                        WriteOperation(
                            list: list,
                            action: .editMessage(shape, message, text: text, at: wallClock().milliseconds),
                            idempotency: claim("\(key)-\(number)-edit")))
                }
                if let deleteAt = turn.deleteAt {
                    guard (try? await clock.sleep(until: start.advanced(by: deleteAt), tolerance: nil)) != nil,
                        !Task.isCancelled
                    else { return }
                    _ = await writes.submit(
                        WriteOperation(
                            list: list, action: .deleteMessage(shape, message),
                            idempotency: claim("\(key)-\(number)-delete")))
                }
            }
            number += 1
        }
    }

    /// The claim of one of the script's writes: the same key on every server, the same fingerprint (what the turn
    /// is, not what the state made of it), and the message's id as the recorded answer.
    private static func claim(_ key: String) -> IdempotencyClaim {
        IdempotencyClaim(key: key, fingerprint: Array(key.utf8)) { result in
            guard case .messageWritten(let message, _, _) = result else { return [] }
            return Array(String(message.id).utf8)
        }
    }

    /// The id of the message a send wrote, or wrote before (a replay); nil when it was refused.
    private static func messageID(_ outcome: WriteOutcome) -> UInt64? {
        switch outcome {
        case .done(.messageWritten(let message, _, _)): message.id
        case .replayed(let recorded): UInt64(String(decoding: recorded, as: UTF8.self))
        default: nil
        }
    }
}
