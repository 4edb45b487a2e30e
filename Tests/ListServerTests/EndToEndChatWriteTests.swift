import Foundation
import Testing

@testable import ListServer

/// The chat's writes over real connections, on a store file (issue 36): what a client was told was written is there
/// after a restart, in the lists, the messages, the read markers and the change feed.
@Suite("End to end: chat writes")
struct EndToEndChatWriteTests {
    @Test("sent, edited and deleted messages and read markers last across a restart, with their changes and keys")
    func durableAcrossRestart() async throws {
        try await withTemporaryFolder { folder in
            let path = folder + "/listserver.sqlite"
            let dataset = "X-Dataset: chat-e2e"
            var sentID = 0
            try await withServer(configure: { $0.dataPath = path }) { app throws in
                let sent = try await send(
                    port: app.port, "POST", "/conversations/4/messages", json: #"{"text":"kept 🏃","reply_to":1}"#,
                    headers: [dataset, "Idempotency-Key: chat-restart"])
                #expect(sent.status == 201)
                sentID = try #require(sent.jsonObject()["id"] as? Int)
                let edited = try await send(
                    port: app.port, "PATCH", "/conversations/4/messages/2", json: #"{"text":"edited"}"#,
                    headers: [dataset])
                #expect(edited.status == 200)
                let deleted = try await send(
                    port: app.port, "DELETE", "/conversations/4/messages/3", contentType: nil, headers: [dataset])
                #expect(deleted.status == 204)
                let read = try await send(
                    port: app.port, "POST", "/conversations/4/read", json: #"{"up_to":\#(sentID - 40)}"#,
                    headers: [dataset, "X-Client-Id: phone"])
                #expect(read.status == 200)
                #expect(try read.jsonObject()["unread"] as? Int == 39, "the 39 after it; the sent one is the user's")
            }
            try await withServer(configure: { $0.dataPath = path }) { app in
                let newest = try await fetch(
                    port: app.port, "/conversations/4/messages?order=desc&limit=1", headers: [dataset])
                let items = try newest.jsonObject()["items"] as? [[String: Any]]
                #expect(items?.first?["text"] as? String == "kept 🏃" && items?.first?["id"] as? Int == sentID)
                let edited = try await fetch(port: app.port, "/conversations/4/messages/2", headers: [dataset])
                #expect(try edited.jsonObject()["text"] as? String == "edited")
                let deleted = try await fetch(port: app.port, "/conversations/4/messages/3", headers: [dataset])
                #expect(try deleted.jsonObject()["deleted"] as? Bool == true)
                let mine = try await fetch(
                    port: app.port, "/conversations/4", headers: [dataset, "X-Client-Id: phone"])
                #expect(try mine.jsonObject()["unread"] as? Int == 39)
                let top = try await fetch(port: app.port, "/conversations?limit=1", headers: [dataset])
                #expect(((try top.jsonObject()["items"] as? [[String: Any]])?.first?["id"] as? Int) == 4)
                let changes = try await fetch(port: app.port, "/items/changes?since=0", headers: [dataset])
                let kinds = (try changes.jsonObject()["changes"] as? [[String: Any]])?.compactMap {
                    $0["kind"] as? String
                }
                #expect(
                    kinds == ["message.created", "conversation.updated", "message.updated", "message.deleted", "read"])
                let retry = try await send(
                    port: app.port, "POST", "/conversations/4/messages", json: #"{"text":"kept 🏃","reply_to":1}"#,
                    headers: [dataset, "Idempotency-Key: chat-restart"])
                #expect(retry.header("Idempotent-Replayed") == "true")
                let next = try await send(
                    port: app.port, "POST", "/conversations/4/messages", json: #"{"text":"next"}"#, headers: [dataset])
                #expect(try next.jsonObject()["id"] as? Int == sentID + 1, "no id handed out twice")
                // The default list saw none of it.
                let other = try await fetch(port: app.port, "/conversations/4/messages/3")
                #expect(try other.jsonObject()["deleted"] == nil)
            }
        }
    }
}
