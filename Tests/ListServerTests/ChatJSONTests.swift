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
            var scratch: [UInt8] = []
            for id in Array(0..<300) + [thread.count - 2, thread.count - 1, thread.count] {
                var fast = JSONWriter()
                thread.writeMessage(id, scratch: &scratch, into: &fast)
                var plain = JSONWriter()
                if let message = chat.message(id, in: conversation) {
                    message.writeJSON(into: &plain)
                } else {
                    plain.appendNull()
                }
                #expect(fast.bytes == plain.bytes, "message \(id) of conversation \(conversation)")
            }
        }
    }
}
