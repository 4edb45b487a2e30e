import ListDomain
import Testing

@Suite("Generated conversations and messages")
struct ChatCatalogTests {
    let chat = ChatCatalog(seed: 42, conversations: 50, messagesPerConversation: 10_000)

    @Test("the same seed gives the same data; another seed other data")
    func deterministic() {
        let again = ChatCatalog(seed: 42, conversations: 50, messagesPerConversation: 10_000)
        let other = ChatCatalog(seed: 43, conversations: 50, messagesPerConversation: 10_000)
        for conversation in [0, 7, 49] as [UInt64] {
            #expect(chat.conversation(conversation) == again.conversation(conversation))
            for id in [0, 1, 4_999, 9_999] as [UInt64] {
                #expect(chat.message(id, in: conversation) == again.message(id, in: conversation))
            }
        }
        let texts = (0..<20 as Range<UInt64>).map { chat.message($0, in: 0)?.text }
        #expect(texts != (0..<20 as Range<UInt64>).map { other.message($0, in: 0)?.text })
    }

    @Test("the texts and times are the data format: a digest of 30,000 of them is pinned")
    func pinnedFormat() {
        // FNV-1a over every text and `sent_at` of messages 0..<2,000 of conversations 0..<5 under three seeds. A
        // change here changes every dataset's messages: a new data format (`ChatText.format`, which the chat's tags
        // carry), not a refactoring.
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for seed in [0, 42, 0xdead_beef] as [UInt64] {
            let chat = ChatCatalog(seed: seed, conversations: 5, messagesPerConversation: 2_000)
            for conversation in 0..<5 as Range<UInt64> {
                for id in 0..<min(2_000, chat.messageCount(of: conversation)) {
                    guard let message = chat.message(id, in: conversation) else { continue }
                    for byte in message.text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
                    for byte in ChatTime.rfc3339(message.sentAt).utf8 {
                        hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
                    }
                }
            }
        }
        #expect(hash == 0x5baa_4fa3_0ff8_0959, "digest \(String(hash, radix: 16))")
    }

    @Test("a message's other fields are the data format too: a digest of 30,000 authors, edits and replies is pinned")
    func pinnedFields() {
        // FNV-1a over the author, `edited_at` and `reply_to` of the messages `pinnedFormat` hashes, which the texts'
        // formats leave alone (the same at d808ab2, before 6b80983 mixed their seeds once a page): a change here is a
        // change of every dataset's messages, not a refactoring.
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix(_ value: UInt64) {
            for shift in stride(from: 0, to: 64, by: 8) {
                hash = (hash ^ (value >> UInt64(shift) & 0xFF)) &* 0x0000_0100_0000_01b3
            }
        }
        for seed in [0, 42, 0xdead_beef] as [UInt64] {
            let chat = ChatCatalog(seed: seed, conversations: 5, messagesPerConversation: 2_000)
            for conversation in 0..<5 as Range<UInt64> {
                for id in 0..<min(2_000, chat.messageCount(of: conversation)) {
                    guard let message = chat.message(id, in: conversation) else { continue }
                    mix(UInt64(message.authorIndex))
                    mix(message.editedAt.map { UInt64(bitPattern: $0) } ?? .max)
                    mix(message.replyTo ?? .max)
                }
            }
        }
        #expect(hash == 0xfa27_4feb_3844_55db, "digest \(String(hash, radix: 16))")
    }

    @Test("conversations are newest first, each with 2 to 6 distinct participants; ids past the end are nil")
    func conversations() throws {
        var previous = Int64.max
        for id in 0..<chat.conversationCount {
            let conversation = try #require(chat.conversation(id))
            #expect(conversation.updatedAt < previous)
            previous = conversation.updatedAt
            #expect((2...6).contains(conversation.participants.count))
            #expect(Set(conversation.participants).count == conversation.participants.count)
            #expect(conversation.lastMessage?.id == conversation.messageCount - 1)
            #expect(conversation.lastMessage?.sentAt == conversation.updatedAt)
            #expect(conversation.unread <= conversation.messageCount && !conversation.title.isEmpty)
        }
        #expect(chat.conversation(chat.conversationCount) == nil)
        #expect(chat.message(chat.messageCount(of: 3), in: 3) == nil)
        #expect(chat.message(0, in: chat.conversationCount) == nil)
    }

    @Test("messages are in the order sent, by participants, and a reply answers an earlier one, some far up")
    func messages() throws {
        let count = chat.messageCount(of: 0)
        #expect(count == 10_000)
        let participants = Set(chat.participants(of: 0))
        var previous = Int64.min
        var replies = 0
        var farReplies = 0
        var lengths = Set<Int>()
        var rightToLeft = 0
        for id in 0..<count {
            let message = try #require(chat.message(id, in: 0))
            #expect(message.sentAt > previous)
            previous = message.sentAt
            #expect(participants.contains(message.authorIndex))
            if let editedAt = message.editedAt {
                #expect(editedAt > message.sentAt && editedAt <= chat.lastActivity(of: 0))
            }
            if let target = message.replyTo {
                #expect(target < id)
                replies += 1
                if id - target >= 1_000 { farReplies += 1 }
            }
            #expect(!message.text.isEmpty && !message.text.contains("\"") && !message.text.contains("\\"))
            lengths.insert(message.text.count / 40)
            if message.text.unicodeScalars.contains(where: { (0x0590...0x06FF).contains($0.value) }) {
                rightToLeft += 1
            }
        }
        #expect((800...1_200).contains(replies), "about 1 in 10 messages is a reply")
        #expect(farReplies > 10, "some replies reach thousands of messages up")
        #expect(lengths.count > 5, "texts of many lengths: \(lengths.sorted())")
        #expect(rightToLeft > 100)
    }

    @Test("any message of a conversation of 2^40 costs what the first does, and the times stay in order")
    func deep() throws {
        let deep = ChatCatalog(seed: 42, conversations: 2, messagesPerConversation: 1 << 40)
        let last = (1 << 40) - 1 as UInt64
        let first = try #require(deep.message(0, in: 0))
        let end = try #require(deep.message(last, in: 0))
        let before = try #require(deep.message(last - 1, in: 0))
        #expect(first.sentAt < before.sentAt && before.sentAt < end.sentAt)
        #expect(end.sentAt == deep.lastActivity(of: 0))
        if let target = try #require(deep.message(1 << 39, in: 0)).replyTo { #expect(target < 1 << 39) }
    }

    @Test("paging conversations by cursor visits each once; a cursor past the end gives an empty last page")
    func conversationCursors() {
        var seen: [UInt64] = []
        var cursor: ConversationCursor?
        while true {
            let page = chat.conversations(after: cursor, limit: 7)
            seen += Array(page.ids)
            guard page.hasMore, let last = page.ids.last else { break }
            cursor = ConversationCursor(updatedAt: chat.lastActivity(of: last), id: last)
        }
        #expect(seen == Array(0..<chat.conversationCount))
        let end = chat.conversations(after: ConversationCursor(updatedAt: 0, id: 0), limit: 7)
        #expect(end.ids.isEmpty && !end.hasMore)
        // A cursor of a conversation that has since moved to the top (a later time) continues after its old place
        // for no one: the keys of the others did not move.
        let moved = ConversationCursor(updatedAt: chat.lastActivity(of: 10), id: 10)
        #expect(chat.conversations(after: moved, limit: 3).ids == 11..<14)
    }

    @Test("cursor text round-trips; anything else does not parse")
    func cursorText() {
        let cursor = ConversationCursor(updatedAt: 1_790_000_000_000, id: 12)
        #expect(cursor.text == "1790000000000_12" && ConversationCursor(text: cursor.text) == cursor)
        for bad in ["", "_", "1_", "_1", "1.2", "+1_2", "1_-2", "1_2_3", "99999999999999999999_1", "a_1", "1_2 "] {
            #expect(ConversationCursor(text: bad) == nil, "\(bad)")
        }
    }

    @Test("a window around the first, the last and a middle message holds the target, slid to stay whole")
    func windows() {
        for order in [ListOrder.asc, .desc] {
            for (around, total, limit) in [(0, 100, 10), (99, 100, 10), (50, 100, 10), (50, 100, 11), (3, 5, 10)]
                as [(UInt64, UInt64, UInt64)]
            {
                let window = MessageWindow(around: around, order: order, limit: limit, total: total)
                let ids = Array(window.ids)
                #expect(ids.count == Int(min(limit, total)) && ids.contains(around))
                #expect(ids == (order == .asc ? ids.sorted() : ids.sorted(by: >)))
                #expect(window.beforeCursor == ids.first && window.afterCursor == ids.last)
                // Continued either way with the list's cursors, nothing is repeated or skipped.
                let before =
                    window.hasMoreBefore
                    ? Array(CursorPage(cursor: .before(ids[0]), order: order, limit: total, total: total).ids) : []
                let after =
                    window.hasMoreAfter
                    ? Array(
                        CursorPage(cursor: .after(ids[ids.count - 1]), order: order, limit: total, total: total).ids)
                    : []
                let all = Array(0..<total)
                #expect(before + ids + after == (order == .asc ? all : all.reversed()))
            }
        }
        let middle = Array(MessageWindow(around: 50, order: .asc, limit: 11, total: 100).ids)
        #expect(middle.first == 45 && middle.last == 55)
    }
}

@Suite("Chat timestamps")
struct ChatTimeTests {
    @Test("RFC 3339 in UTC to the second (rounded down), as Python's datetime gives them")
    func rfc3339() {
        for (millis, text) in [
            (0, "1970-01-01T00:00:00Z"), (1_790_000_000_000, "2026-09-21T14:13:20Z"),
            (951_782_400_000, "2000-02-29T00:00:00Z"), (-1, "1969-12-31T23:59:59Z"),
            (253_402_300_799_999, "9999-12-31T23:59:59Z"), (-62_167_219_200_000, "0000-01-01T00:00:00Z"),
            // Outside four-digit years: the nearest time that has them, never a trap.
            (.max, "9999-12-31T23:59:59Z"), (.min, "0000-01-01T00:00:00Z"),
            (-62_167_219_200_001, "0000-01-01T00:00:00Z"),
        ] as [(Int64, String)] {
            #expect(ChatTime.rfc3339(millis) == text)
        }
    }
}
