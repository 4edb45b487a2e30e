import Foundation
import ListDomain
import Testing

@testable import ListServer

/// The chat's writes (issue 36): sending, editing and deleting messages and read markers, as a client sees them in
/// the lists, the change feed and the tags.
@Suite("Router: chat writes")
struct RouterChatWriteTests {
    let router = RouterFixture.router(count: 100)
    let json: HTTPHeaders = ["Content-Type": "application/json"]

    func send(_ conversation: Int, _ body: String, headers: HTTPHeaders = [:]) async -> HTTPResponse {
        var fields = json
        for (name, value) in headers { fields.add(name, value) }
        return await router.respondHeld(
            "/conversations/\(conversation)/messages", method: .post, headers: fields, body: Array(body.utf8))
    }

    func items(_ response: HTTPResponse) -> [[String: Any]] {
        (response.jsonObject?["items"] as? [[String: Any]]) ?? []
    }

    func kinds() async -> [String] {
        let response = await router.respondDeferred("/items/changes?since=0")
        return (response.jsonObject?["changes"] as? [[String: Any]] ?? []).compactMap { $0["kind"] as? String }
    }

    @Test("a sent message gets the next id, ends the newest page, moves its conversation to the top, and is a change")
    func send() async throws {
        let before = router.respond("/conversations/7/messages?order=desc&limit=2")
        let count = try #require(uint64(before.jsonObject?["total"]))
        let oldTag = try #require(before.headers["ETag"])
        let sent = await send(7, #"{"text":"On my way 🏃","reply_to":3}"#)
        #expect(sent.status == 201)
        #expect(sent.headers["Location"] == "/conversations/7/messages/\(count)")
        let message = try #require(sent.jsonObject)
        #expect(uint64(message["id"]) == count && message["text"] as? String == "On my way 🏃")
        #expect(uint64(message["reply_to"]) == 3 && message["edited_at"] is NSNull)
        let sentAt = try #require(message["sent_at"] as? String)

        let page = router.respond("/conversations/7/messages?order=desc&limit=2")
        #expect(items(page).first?["text"] as? String == "On my way 🏃")
        #expect(uint64(page.jsonObject?["total"]) == count + 1)
        #expect(page.headers["ETag"] != oldTag, "a page that changed gets a new tag")
        let stale = router.respond(
            "/conversations/7/messages?order=desc&limit=2", headers: ["If-None-Match": oldTag])
        #expect(stale.status == 200, "the old tag no longer matches")

        let conversations = items(router.respond("/conversations?limit=3"))
        #expect(uint64(conversations.first?["id"]) == 7, "the conversation a message went to is at the top")
        #expect(conversations.first?["updated_at"] as? String == sentAt)
        #expect((conversations.first?["last_message"] as? [String: Any])?["text"] as? String == "On my way 🏃")
        #expect(await kinds() == ["message.created", "conversation.updated"])
        let changes = await router.respondDeferred("/items/changes?since=0").jsonObject?["changes"] as? [[String: Any]]
        let moved = changes?.last?["conversation"] as? [String: Any]
        #expect(uint64(moved?["id"]) == 7 && uint64(moved?["message_count"]) == count + 1)
        #expect(moved?["updated_at"] as? String == sentAt)
    }

    @Test("paging conversations while one moves to the top neither repeats nor skips one")
    func cursorsWhileMoving() async throws {
        var seen: [UInt64] = []
        var target = "/conversations?limit=5"
        var moved = false
        while true {
            let page = router.respond(target)
            seen += items(page).compactMap { uint64($0["id"]) }
            if !moved {  // one not yet seen, far down, gets a message
                #expect(await send(40, #"{"text":"bump"}"#).status == 201)
                moved = true
            }
            guard let next = page.jsonObject?["next_cursor"] as? String else { break }
            target = "/conversations?limit=5&after=\(next)"
        }
        #expect(Set(seen).count == seen.count, "none twice")
        #expect(Set(seen) == Set(0..<50).subtracting([40]), "none skipped but the one that moved above the cursor")
        #expect(uint64(items(router.respond("/conversations?limit=1")).first?["id"]) == 40)
    }

    @Test("an edit needs the message's current ETag when If-Match is sent; it changes the text and edited_at")
    func edit() async throws {
        let message = router.respond("/conversations/2/messages/5")
        let tag = try #require(message.headers["ETag"])
        let stale = await router.respondHeld(
            "/conversations/2/messages/5", method: .patch,
            headers: [
                "Content-Type": "application/json",
                "If-Match": "\"v1-0000000000000000\"",
            ], body: Array(#"{"text":"x"}"#.utf8))
        #expect(stale.status == 412 && stale.headers["ETag"] == tag)
        let edited = await router.respondHeld(
            "/conversations/2/messages/5", method: .patch,
            headers: ["Content-Type": "application/merge-patch+json", "If-Match": tag],
            body: Array(#"{"text":"fixed the typo"}"#.utf8))
        #expect(edited.status == 200)
        #expect(edited.jsonObject?["text"] as? String == "fixed the typo")
        #expect(edited.jsonObject?["edited_at"] as? String != nil)
        #expect(edited.headers["ETag"] != tag)
        #expect(router.respond("/conversations/2/messages/5").headers["ETag"] == edited.headers["ETag"])
        let window = router.respond("/conversations/2/messages?around=5&limit=3")
        #expect(items(window)[1]["text"] as? String == "fixed the typo")
        #expect(await kinds() == ["message.updated"])
    }

    @Test("a deleted message stays as a tombstone in pages and windows; it cannot be edited or deleted again")
    func delete() async throws {
        let deleted = await router.respondHeld("/conversations/1/messages/4", method: .delete)
        #expect(deleted.status == 204)
        let tombstone = router.respond("/conversations/1/messages/4").jsonObject
        #expect(tombstone?["deleted"] as? Bool == true && tombstone?["text"] as? String == "")
        let page = router.respond("/conversations/1/messages?limit=6")
        #expect(items(page).map { uint64($0["id"]) } == [0, 1, 2, 3, 4, 5], "the ids stay whole")
        #expect(items(page)[4]["deleted"] as? Bool == true && items(page)[3]["deleted"] == nil)
        #expect(await router.respondHeld("/conversations/1/messages/4", method: .delete).status == 404)
        let edit = await router.respondHeld(
            "/conversations/1/messages/4", method: .patch, headers: json, body: Array(#"{"text":"x"}"#.utf8))
        #expect(edit.status == 404)
        #expect(await kinds() == ["message.deleted"])
    }

    @Test("a read marker is per client: unread follows it, other clients keep theirs, tags differ by reader")
    func readMarkers() async throws {
        let total = try #require(uint64(router.respond("/conversations/6").jsonObject?["message_count"]))
        let marked = await router.respondHeld(
            "/conversations/6/read", method: .post, headers: ["Content-Type": "application/json", "X-Client-Id": "a"],
            body: Array(#"{"up_to":\#(total - 4)}"#.utf8))
        #expect(marked.status == 200)
        #expect(uint64(marked.jsonObject?["unread"]) == 3)
        let mine = router.respond("/conversations/6", headers: ["X-Client-Id": "a"])
        let theirs = router.respond("/conversations/6", headers: ["X-Client-Id": "b"])
        #expect(uint64(mine.jsonObject?["unread"]) == 3)
        #expect(uint64(theirs.jsonObject?["unread"]) != 3 || mine.headers["ETag"] != theirs.headers["ETag"])
        #expect(mine.headers["ETag"] != theirs.headers["ETag"], "a cache shared by two clients must not mix them")
        let unreadInList = items(router.respond("/conversations?limit=50", headers: ["X-Client-Id": "a"]))
            .first { uint64($0["id"]) == 6 }?["unread"]
        #expect(uint64(unreadInList) == 3)
        let past = await router.respondHeld(
            "/conversations/6/read", method: .post, headers: json, body: Array(#"{"up_to":\#(total)}"#.utf8))
        #expect(past.status == 404)
        #expect(await kinds() == ["read"])
    }

    @Test("Idempotency-Key: a retried send is answered again and sends nothing twice")
    func idempotentSend() async throws {
        let first = await send(3, #"{"text":"once"}"#, headers: ["Idempotency-Key": "k-1"])
        let again = await send(3, #"{"text":"once"}"#, headers: ["Idempotency-Key": "k-1"])
        #expect(first.status == 201 && again.status == 201)
        #expect(again.headers["Idempotent-Replayed"] == "true" && again.body == first.body)
        #expect(await kinds() == ["message.created", "conversation.updated"])
        #expect(await send(3, #"{"text":"twice"}"#, headers: ["Idempotency-Key": "k-1"]).status == 422)
    }

    @Test("bad bodies are 400 invalid-body naming the field; nothing is written")
    func badBodies() async throws {
        for body in [
            #"{}"#, #"{"text":""}"#, #"{"text":7}"#, #"{"text":"x","mood":1}"#, #"{"text":"x","reply_to":-1}"#,
            #"{"text":"a\u0000b"}"#, #"{"text":"x","text":"y"}"#, #"[1]"#,
            #"{"text":"\#(String(repeating: "é", count: 4001))"}"#, #"{"text":"x","reply_to":99999999}"#,
        ] {
            let response = await send(3, body)
            #expect(response.status == 400, "\(body.prefix(40))")
        }
        #expect(await send(99, #"{"text":"x"}"#).status == 404)
        #expect(await kinds() == [])
    }

    @Test("a reset drops the chat's writes with the items'")
    func reset() async throws {
        #expect(await send(0, #"{"text":"gone soon"}"#).status == 201)
        let reset = await router.respondHeld("/admin/reset", method: .post)
        #expect(reset.status == 200 || reset.status == 204)
        let newest = items(router.respond("/conversations/0/messages?order=desc&limit=1")).first
        #expect(newest?["text"] as? String != "gone soon")
    }
}

extension RouterChatWriteTests {
    @Test("paging a conversation back from the newest while 100 messages arrive: every older message once, in order")
    func pagingWhileMessagesArrive() async throws {
        let first = router.respond("/conversations/9/messages?order=desc&limit=20")
        let total = try #require(uint64(first.jsonObject?["total"]))
        var seen = items(first).compactMap { uint64($0["id"]) }
        var next = first.jsonObject?["has_more"] as? Bool == true ? first.jsonObject?["next_cursor"] as? Int : nil
        var arrived = 0
        var rounds = 0
        while let cursor = next {
            for _ in 0..<10 where arrived < 100 {
                #expect(await send(9, #"{"text":"meanwhile \#(arrived)"}"#).status == 201)
                arrived += 1
            }
            let page = router.respond("/conversations/9/messages?order=desc&limit=20&after=\(cursor)")
            seen += items(page).compactMap { uint64($0["id"]) }
            // At the oldest end the cursor stays where it is (as /items' does): has_more says when to stop.
            next = page.jsonObject?["has_more"] as? Bool == true ? page.jsonObject?["next_cursor"] as? Int : nil
            rounds += 1
            if rounds > Int(total) / 20 + 10 {  // bounded, whatever the cursors do
                Issue.record("paging did not end")
                break
            }
        }
        #expect(arrived == 100)
        #expect(seen == Array((0..<total).reversed()), "the older pages are unmoved by the new messages")
        // And the new ones are where a client polling after its newest finds them, in order.
        let newer = router.respond("/conversations/9/messages?after=\(total - 1)&limit=100")
        #expect(items(newer).compactMap { uint64($0["id"]) } == Array(total..<total + 100))
        #expect(items(newer).compactMap { $0["text"] as? String }.last == "meanwhile 99")
    }
}

extension RouterChatWriteTests {
    @Test("the user's own messages are never unread; marking again changes nothing and tells nobody")
    func ownMessagesAndRepeatedMarks() async throws {
        let count = try #require(uint64(router.respond("/conversations/8").jsonObject?["message_count"]))
        let headers: HTTPHeaders = ["Content-Type": "application/json", "X-Client-Id": "a"]
        let body = Array(#"{"up_to":\#(count - 1)}"#.utf8)
        let marked = await router.respondHeld("/conversations/8/read", method: .post, headers: headers, body: body)
        #expect(uint64(marked.jsonObject?["unread"]) == 0)
        #expect(await send(8, #"{"text":"mine"}"#).status == 201)
        #expect(uint64(router.respond("/conversations/8", headers: ["X-Client-Id": "a"]).jsonObject?["unread"]) == 0)
        let again = await router.respondHeld("/conversations/8/read", method: .post, headers: headers, body: body)
        #expect(again.status == 200)
        #expect(
            await kinds() == ["read", "message.created", "conversation.updated"], "the same marker again is no change")
    }

    @Test("an Idempotency-Key on a read marker is the client's: another client's same request is its own")
    func readMarkerKeysArePerClient() async throws {
        func mark(_ client: String) async -> HTTPResponse {
            await router.respondHeld(
                "/conversations/8/read", method: .post,
                headers: ["Content-Type": "application/json", "X-Client-Id": client, "Idempotency-Key": "same"],
                body: Array(#"{"up_to":3}"#.utf8))
        }
        #expect(await mark("a").status == 200)
        #expect(await mark("b").status == 422, "not a replay of a's answer, which would leave b without a marker")
    }

    @Test("with fewer generated messages than when messages were sent, the ids between stand as tombstones")
    func messagesSentUnderAnotherSetting() async throws {
        let store = MemoryListStore()
        let long = RouterFixture.router(
            store: store, count: 100, chat: ChatSettings(conversations: 5, messagesPerConversation: 40))
        let sent = await long.respondHeld(
            "/conversations/0/messages", method: .post, headers: json, body: Array(#"{"text":"late"}"#.utf8))
        #expect(uint64(sent.jsonObject?["id"]) == 40)
        let short = RouterFixture.router(
            store: store, count: 100, stored: try await store.load(),
            chat: ChatSettings(conversations: 5, messagesPerConversation: 10))
        let page = short.respond("/conversations/0/messages?order=desc&limit=31")
        let messages = items(page)
        #expect(messages.count == 31 && uint64(page.jsonObject?["total"]) == 41)
        #expect(messages.first?["text"] as? String == "late")
        #expect(messages.dropFirst().allSatisfy { $0["deleted"] as? Bool == true }, "ids 10-39: tombstones, never null")
    }
}
