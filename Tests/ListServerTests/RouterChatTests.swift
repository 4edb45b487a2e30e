import Foundation
import ListDomain
import Testing

@testable import ListServer

/// `/conversations`, `/conversations/<id>` and `/conversations/<id>/messages` (issue 36): the lists, their cursors,
/// the window around a message, tags and the 400s and 404s.
@Suite("Router: conversations and messages")
struct RouterChatTests {
    let router = RouterFixture.router(count: 100)

    func items(_ response: HTTPResponse) -> [[String: Any]] {
        (response.jsonObject?["items"] as? [[String: Any]]) ?? []
    }

    func ids(_ response: HTTPResponse) -> [UInt64] { items(response).compactMap { uint64($0["id"]) } }

    @Test("conversations page by cursor, newest activity first, each once; the envelope is /items' cursor page's")
    func conversations() throws {
        var seen: [UInt64] = []
        var target = "/conversations?limit=7"
        var updated: [String] = []
        while true {
            let page = router.respond(target)
            #expect(page.status == 200 && page.headers["ETag"] != nil && page.headers["X-Total-Count"] == "50")
            let body = try #require(page.jsonObject)
            #expect(uint64(body["limit"]) == 7 && uint64(body["total"]) == 50 && uint64(body["version"]) == 1)
            seen += ids(page)
            updated += items(page).compactMap { $0["updated_at"] as? String }
            guard body["has_more"] as? Bool == true, let next = body["next_cursor"] as? String else {
                #expect(body["next_cursor"] is NSNull && page.headers["Link"] == nil)
                break
            }
            #expect(page.headers["Link"] == "</conversations?after=\(next)&limit=7>; rel=\"next\"")
            target = "/conversations?after=\(next)&limit=7"
        }
        #expect(seen == Array(0..<50))
        #expect(updated == updated.sorted(by: >), "newest activity first")
        let first = try #require(items(router.respond("/conversations?limit=1")).first)
        let participants = try #require(first["participants"] as? [[String: Any]])
        #expect((2...6).contains(participants.count) && participants.allSatisfy { $0["name"] is String })
        let last = try #require(first["last_message"] as? [String: Any])
        #expect(uint64(last["id"]) == uint64(first["message_count"]).map { $0 - 1 })
        #expect(uint64(first["message_count"]) == 10_000 && first["title"] is String && first["unread"] != nil)
    }

    @Test("one conversation is what its list row says; past the end 404, not a number 400")
    func oneConversation() throws {
        let listed = try #require(items(router.respond("/conversations?limit=4")).last)
        let one = router.respond("/conversations/3")
        #expect(one.status == 200)
        #expect(NSDictionary(dictionary: try #require(one.jsonObject)).isEqual(to: listed))
        #expect(router.respond("/conversations/50").status == 404)
        #expect(router.respond("/conversations/x").status == 400)
        #expect(router.respond("/conversations/3/nothing").status == 404)
        let tag = try #require(one.headers["ETag"])
        let again = router.respond("/conversations/3", headers: ["If-None-Match": tag])
        #expect(again.status == 304 && again.vary.contains(.acceptEncoding))
    }

    @Test("messages follow /items' cursor rules: after, before, desc from the newest, Link and 304")
    func messages() throws {
        let newest = router.respond("/conversations/0/messages?order=desc&limit=3")
        #expect(ids(newest) == [9_999, 9_998, 9_997])
        let body = try #require(newest.jsonObject)
        #expect(uint64(body["next_cursor"]) == 9_997 && body["has_more"] as? Bool == true)
        #expect(uint64(body["conversation"]) == 0 && body["order"] as? String == "desc")
        #expect(uint64(body["total"]) == 10_000)
        #expect(
            newest.headers["Link"] == "</conversations/0/messages?after=9997&order=desc&limit=3>; rel=\"next\"")
        #expect(ids(router.respond("/conversations/0/messages?order=desc&after=9997&limit=2")) == [9_996, 9_995])
        let before = router.respond("/conversations/0/messages?before=10&limit=3")
        #expect(ids(before) == [7, 8, 9])
        #expect(before.headers["Link"] == "</conversations/0/messages?before=7&order=asc&limit=3>; rel=\"next\"")
        #expect(router.respond("/conversations/0/messages?before=3&limit=3").headers["Link"] == nil)
        #expect(ids(router.respond("/conversations/0/messages?limit=2")) == [0, 1])
        let message = try #require(items(newest).first)
        #expect(message["text"] is String && message["author"] is String && message["sent_at"] is String)
        #expect(message.keys.contains("edited_at") && message.keys.contains("reply_to"))
        let tag = try #require(newest.headers["ETag"])
        #expect(
            router.respond("/conversations/0/messages?order=desc&limit=3", headers: ["If-None-Match": tag]).status
                == 304)
        #expect(router.respond("/conversations/0/messages?order=desc&limit=2").headers["ETag"] != tag)
    }

    @Test("around: the first, the last and a middle message, with cursors both ways")
    func around() throws {
        let middle = router.respond("/conversations/0/messages?around=5000&limit=5")
        #expect(ids(middle) == [4_998, 4_999, 5_000, 5_001, 5_002])
        let body = try #require(middle.jsonObject)
        #expect(body["has_more_before"] as? Bool == true && body["has_more_after"] as? Bool == true)
        #expect(uint64(body["before_cursor"]) == 4_998 && uint64(body["after_cursor"]) == 5_002)
        #expect(uint64(body["around"]) == 5_000 && uint64(body["next_cursor"]) == 5_002)
        #expect(
            middle.headers["Link"]
                == "</conversations/0/messages?before=4998&order=asc&limit=5>; rel=\"prev\", "
                + "</conversations/0/messages?after=5002&order=asc&limit=5>; rel=\"next\"")
        let first = router.respond("/conversations/0/messages?around=0&limit=5")
        #expect(ids(first) == [0, 1, 2, 3, 4] && first.jsonObject?["has_more_before"] as? Bool == false)
        #expect(first.jsonObject?["before_cursor"].flatMap(uint64) == 0)
        let last = router.respond("/conversations/0/messages?around=9999&limit=5&order=desc")
        #expect(ids(last) == [9_999, 9_998, 9_997, 9_996, 9_995])
        #expect(last.jsonObject?["has_more_before"] as? Bool == false)
        #expect(last.jsonObject?["has_more_after"] as? Bool == true)
        // At the newest end, next_cursor is still the last id, as after= gives it: a client polls from there.
        let newest = router.respond("/conversations/0/messages?around=9998&limit=5")
        #expect(newest.jsonObject?["has_more_after"] as? Bool == false)
        #expect(uint64(newest.jsonObject?["next_cursor"]) == 9_999)
        #expect(router.respond("/conversations/0/messages?around=10000").status == 404)
    }

    @Test("a reply's origin thousands of messages up is reached with one around request")
    func replyOrigin() throws {
        let chat = ChatCatalog(seed: 42, conversations: 50, messagesPerConversation: 10_000)
        let (reply, origin) = try #require(
            (5_000..<10_000 as Range<UInt64>).lazy.compactMap { id in
                chat.replyTarget(of: id, in: 0).flatMap { id - $0 >= 5_000 ? (id, $0) : nil }
            }.first)
        let replyMessage = try #require(
            items(router.respond("/conversations/0/messages?around=\(reply)&limit=1")).first)
        #expect(uint64(replyMessage["reply_to"]) == origin)
        let window = router.respond("/conversations/0/messages?around=\(origin)&limit=30&order=desc")
        #expect(window.status == 200 && ids(window).contains(origin) && ids(window).count == 30)
    }

    @Test("bad queries are 400s naming the parameter; unknown parameters are ignored")
    func badQueries() {
        for (target, parameter) in [
            ("/conversations?after=12", "after"), ("/conversations?after=1_2&after=1_3", "after"),
            ("/conversations?limit=0", "limit"), ("/conversations?limit=101", "limit"),
            ("/conversations/0/messages?after=1&before=2", "before"),
            ("/conversations/0/messages?around=1&after=2", "around"),
            ("/conversations/0/messages?order=up", "order"), ("/conversations/0/messages?after=-1", "after"),
            ("/conversations/0/messages?around=1099511627777", "around"),
            ("/conversations/0/messages?around=%zz", "around"), ("/conversations?limit=%zz", "limit"),
        ] {
            let response = router.respond(target)
            #expect(response.status == 400, "\(target)")
            #expect(response.jsonObject?["parameter"] as? String == parameter, "\(target)")
        }
        #expect(router.respond("/conversations?_=123").status == 200)
        #expect(router.respond("/conversations/0/messages?page=2").status == 200)
        #expect(router.respond("/conversations", method: .post).status == 405)
    }
}
