import ListDomain
import Testing

@testable import ListServer

@Suite("Chat JSON")
struct ChatJSONTests {
    @Test("a page's messages, written from their fields as bytes, are Message.writeJSON's bytes")
    func fastPathMatches() {
        let chat = ChatCatalog(seed: 42, conversations: 50, messagesPerConversation: 10_000)
        for conversation in [0, 1, 17, 49] as [UInt64] {
            let thread = chat.thread(conversation)
            // One writer for the whole run, started small: each text and time is written at another offset, and
            // the buffer grows under them.
            var fast = JSONWriter(capacity: 16)
            var plain = JSONWriter(capacity: 16)
            var days = ChatTime.Days()
            for id in Array(0..<300) + [thread.count - 2, thread.count - 1, thread.count] {
                thread.writeMessage(id, days: &days, into: &fast)
                if let message = chat.message(id, in: conversation) {
                    message.writeJSON(into: &plain)
                } else {
                    plain.appendNull()
                }
                fast.append(raw: ",")
                plain.append(raw: ",")
            }
            #expect(fast.bytes == plain.bytes, "conversation \(conversation)")
        }
    }
}
