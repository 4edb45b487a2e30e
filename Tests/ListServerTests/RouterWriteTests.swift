import ListDomain
import Testing

@testable import ListServer

/// `POST /items`, `PATCH` and `DELETE /items/<id>`, datasets and their drop, on request values: what is refused
/// before anything is queued (answered at once), and what the write coordinator answers once the write is
/// committed (`.deferred`).
@Suite("Router: writes")
struct RouterWriteTests {
    let router = RouterFixture.router()

    /// A write refused before it is queued: answered at once, never `.deferred`.
    func refused(
        _ method: HTTPMethod, _ target: String, json body: String = "", contentType: String? = "application/json",
        headers: HTTPHeaders = [:]
    ) -> HTTPResponse {
        var fields = headers
        if let contentType { fields.add("Content-Type", contentType) }
        return router.respond(target, method: method, headers: fields, body: Array(body.utf8))
    }

    /// The `ETag` and body of `GET target`.
    func read(_ target: String, headers: HTTPHeaders = [:]) -> (status: Int, tag: String?, body: [UInt8]) {
        let response = router.respond(target, headers: headers)
        return (response.status, response.headers["ETag"], response.body)
    }

    /// The number of live items, as `X-Total-Count` says.
    func total(headers: HTTPHeaders = [:]) -> String? {
        router.respond("/items?limit=1", headers: headers).headers["X-Total-Count"]
    }

    /// The kinds of the changes in the list's feed.
    func changeKinds(headers: HTTPHeaders = [:]) async -> [String] {
        let response = await router.respondDeferred("/items/changes?since=0", headers: headers)
        let changes = response.jsonObject?["changes"] as? [[String: Any]] ?? []
        return changes.compactMap { $0["kind"] as? String }
    }

    /// Expects a problem of `type` with `status`; returns its detail.
    @discardableResult
    func expectProblem(
        _ response: HTTPResponse, _ status: Int, _ type: String, sourceLocation: SourceLocation = #_sourceLocation
    ) -> String {
        #expect(response.status == status, sourceLocation: sourceLocation)
        #expect(response.headers["Content-Type"] == "application/problem+json", sourceLocation: sourceLocation)
        #expect(
            response.jsonObject?["type"] as? String == "urn:listserver:problem:" + type, sourceLocation: sourceLocation)
        return response.jsonObject?["detail"] as? String ?? ""
    }

    @Test("the Location of a created item is /items/<id> in plain decimal, at any id")
    func locationPath() {
        for id: UInt64 in [0, 7, 10, 99, 10_000, 123_456_789, 9_007_199_254_740_991, .max] {
            #expect(Router.itemPath(id) == "/items/\(id)")
        }
    }

    @Test("415 without Content-Type, or with one the operation does not take; nothing is written")
    func unsupportedMediaType() async {
        let missing = refused(.post, "/items", json: #"{"label":"x"}"#, contentType: nil)
        #expect(expectProblem(missing, 415, "unsupported-media-type").contains("Content-Type is missing"))
        for contentType in [
            "text/plain", "application/x-www-form-urlencoded", "application/merge-patch+json", "application/json2",
            "application/jso", "application/json x",
        ] {
            let wrong = refused(.post, "/items", json: #"{"label":"x"}"#, contentType: contentType)
            #expect(expectProblem(wrong, 415, "unsupported-media-type").contains(contentType), "\(contentType)")
        }
        #expect(refused(.patch, "/items/5", json: #"{"likes":1}"#, contentType: nil).status == 415)
        #expect(refused(.patch, "/items/5", json: #"{"likes":1}"#, contentType: "text/json").status == 415)
        // The media type is compared without parameters and case: these are JSON.
        for contentType in ["application/json; charset=utf-8", "Application/JSON", " application/json\t;q"] {
            let created = await router.write(.post, "/items", json: #"{"label":"x"}"#, contentType: contentType)
            #expect(created.status == 201, "\(contentType)")
        }
        let merge = await router.write(
            .patch, "/items/5", json: #"{"likes":1}"#, contentType: "application/merge-patch+json")
        #expect(merge.status == 200)
        #expect(total() == "10003")
        #expect(await changeKinds() == ["created", "created", "created", "updated"])
    }

    @Test("malformed JSON is 400 invalid-item with the byte offset, at once")
    func malformedJSON() async {
        let trailingComma = refused(.post, "/items", json: #"{"label":"x",}"#)
        #expect(expectProblem(trailingComma, 400, "invalid-item").hasSuffix("at byte 13"))
        let truncated = refused(.patch, "/items/5", json: #"{"likes":"#)
        #expect(expectProblem(truncated, 400, "invalid-item").contains("at byte 9"))
        let notJSON = refused(.post, "/items", json: "label=x")
        #expect(expectProblem(notJSON, 400, "invalid-item").contains("at byte 0"))
        #expect(total() == "10000")
        #expect(await changeKinds().isEmpty)
    }

    @Test("an unknown field, id, or a value out of range is 400 invalid-item naming the field")
    func invalidFields() {
        let unknown = refused(.post, "/items", json: #"{"label":"x","mood":"happy"}"#)
        #expect(expectProblem(unknown, 400, "invalid-item").contains(#""mood""#))
        let id = refused(.post, "/items", json: #"{"id":3,"label":"x"}"#)
        #expect(expectProblem(id, 400, "invalid-item").contains(#""id""#))
        let missingLabel = refused(.post, "/items", json: #"{"likes":3}"#)
        #expect(expectProblem(missingLabel, 400, "invalid-item").contains("label"))
        let outOfRange = refused(.patch, "/items/5", json: #"{"likes":-1}"#)
        #expect(expectProblem(outOfRange, 400, "invalid-item").contains("likes"))
        #expect(total() == "10000")
    }

    @Test("POST /items: 201 at the next id with Location, the ETag a GET then shows, and the item")
    func create() async throws {
        let created = await router.write(.post, "/items", json: ##"{"label":"Hello","color":"#A1B2C3"}"##)
        #expect(created.status == 201)
        #expect(created.headers["Content-Type"] == MediaType.json)
        #expect(created.headers["Location"] == "/items/10000")
        let tag = try #require(created.headers["ETag"])
        let item = try #require(created.jsonObject)
        #expect(uint64(item["id"]) == 10_000)
        #expect(item["label"] as? String == "Hello")
        #expect(item["color"] as? String == "#a1b2c3")
        let generated = try #require(Catalog(seed: 42, count: 10_001).item(10_000))
        #expect(item["author"] as? String == generated.author, "a field not given is the generated one")
        let read = read("/items/10000")
        #expect(read.status == 200)
        #expect(read.tag == tag)
        #expect(read.body == created.body)
        #expect(total() == "10001")
        let next = await router.write(.post, "/items", json: #"{"label":"next"}"#)
        #expect(next.headers["Location"] == "/items/10001")
        #expect(next.headers["ETag"] != tag)
        // Colours keep their leading zeros, and come back in lowercase.
        for (given, shown) in [("#000000", "#000000"), ("#0A0b0C", "#0a0b0c"), ("#FFFFFF", "#ffffff")] {
            let coloured = await router.write(.post, "/items", json: #"{"label":"c","color":"\#(given)"}"#)
            #expect(coloured.jsonObject?["color"] as? String == shown, "\(given)")
        }
    }

    @Test("PATCH sets the fields given; null returns a field to its generated value; every write a new ETag")
    func patchAndNullReset() async throws {
        let before = read("/items/5")
        let patched = await router.write(
            .patch, "/items/5", json: #"{"label":"Edited","likes":7}"#, contentType: "application/merge-patch+json")
        #expect(patched.status == 200)
        #expect(patched.jsonObject?["label"] as? String == "Edited")
        #expect(uint64(patched.jsonObject?["likes"]) == 7)
        let generated = try #require(Catalog(seed: 42, count: 10).item(5))
        #expect(patched.jsonObject?["author"] as? String == generated.author, "a field not given stays")
        #expect(patched.headers["ETag"] != before.tag)
        #expect(read("/items/5").body == patched.body)

        let back = await router.write(.patch, "/items/5", json: #"{"label":null,"likes":null}"#)
        #expect(back.status == 200)
        #expect(back.body == before.body, "every field generated again")
        #expect(back.headers["ETag"] != patched.headers["ETag"])
        #expect(back.headers["ETag"] != before.tag, "a write is a new version even when the fields are as before")
        #expect(read("/items/5").tag == back.headers["ETag"])
    }

    @Test("DELETE: 204, then the item is 404, a second DELETE is 404, and pages skip it")
    func delete() async throws {
        let deleted = await router.write(.delete, "/items/1", contentType: nil)
        #expect(deleted.status == 204)
        #expect(deleted.body.isEmpty)
        #expect(expectProblem(router.respond("/items/1"), 404, "not-found").contains("deleted"))
        expectProblem(await router.answer(HTTPRequest(method: .get, target: "/items/1/detail")), 404, "not-found")
        expectProblem(await router.write(.delete, "/items/1", contentType: nil), 404, "not-found")
        expectProblem(await router.write(.patch, "/items/1", json: "{}"), 404, "not-found")
        let page = router.respond("/items?page=1&limit=3")
        let ids = try #require(page.jsonObject?["items"] as? [[String: Any]]).map { uint64($0["id"]) }
        #expect(ids == [0, 2, 3])
        #expect(page.headers["X-Total-Count"] == "9999")
        #expect(uint64(page.jsonObject?["total"]) == 9999)
    }

    @Test("If-Match: 412 with the item's current ETag when it does not match; nothing is written")
    func ifMatch() async throws {
        let current = try #require(read("/items/3").tag)
        let stale = await router.write(
            .patch, "/items/3", json: #"{"likes":1}"#, headers: ["If-Match": #""v1-0000000000000000""#])
        #expect(expectProblem(stale, 412, "precondition-failed").contains(current))
        #expect(stale.headers["ETag"] == current)
        #expect(read("/items/3").tag == current, "nothing written")
        let weak = await router.write(.patch, "/items/3", json: #"{"likes":1}"#, headers: ["If-Match": "W/\(current)"])
        #expect(weak.status == 412, "If-Match compares strongly")

        let fresh = await router.write(.patch, "/items/3", json: #"{"likes":1}"#, headers: ["If-Match": current])
        #expect(fresh.status == 200)
        let newTag = try #require(fresh.headers["ETag"])
        let old = await router.write(.delete, "/items/3", contentType: nil, headers: ["If-Match": current])
        expectProblem(old, 412, "precondition-failed")
        #expect(old.headers["ETag"] == newTag, "the 412 carries the ETag the item has now")
        let gone = await router.write(.delete, "/items/3", contentType: nil, headers: ["If-Match": newTag])
        #expect(gone.status == 204)
        #expect(await changeKinds() == ["updated", "deleted"])
    }

    @Test("Idempotency-Key: a retry gets the first answer, with Idempotent-Replayed: true, and writes nothing")
    func idempotentReplay() async throws {
        let headers: HTTPHeaders = ["Idempotency-Key": "3f2b8c1e-7d4a-4e59"]
        let first = await router.write(.post, "/items", json: #"{"label":"once"}"#, headers: headers)
        #expect(first.status == 201)
        #expect(first.headers["Idempotent-Replayed"] == nil)
        let retry = await router.write(.post, "/items", json: #"{"label":"once"}"#, headers: headers)
        #expect(retry.status == 201)
        #expect(retry.headers["Idempotent-Replayed"] == "true")
        #expect(retry.body == first.body)
        #expect(retry.headers["Location"] == first.headers["Location"])
        #expect(retry.headers["ETag"] == first.headers["ETag"])
        #expect(total() == "10001")
        #expect(await changeKinds() == ["created"])

        // A DELETE's retry is its first 204, not a 404.
        let deleteKey: HTTPHeaders = ["Idempotency-Key": "delete-7"]
        #expect(await router.write(.delete, "/items/7", contentType: nil, headers: deleteKey).status == 204)
        let again = await router.write(.delete, "/items/7", contentType: nil, headers: deleteKey)
        #expect(again.status == 204)
        #expect(again.headers["Idempotent-Replayed"] == "true")
    }

    @Test("the same Idempotency-Key with another body, path or method is 422; nothing is written")
    func keyReused() async throws {
        let headers: HTTPHeaders = ["Idempotency-Key": "k-1"]
        #expect(await router.write(.post, "/items", json: #"{"label":"once"}"#, headers: headers).status == 201)
        let otherBody = await router.write(.post, "/items", json: #"{"label":"twice"}"#, headers: headers)
        #expect(expectProblem(otherBody, 422, "idempotency-key-reused").contains("k-1"))
        let otherPath = await router.write(.patch, "/items/4", json: #"{"label":"once"}"#, headers: headers)
        expectProblem(otherPath, 422, "idempotency-key-reused")
        let otherQuery = await router.write(.post, "/items?x=1", json: #"{"label":"once"}"#, headers: headers)
        expectProblem(otherQuery, 422, "idempotency-key-reused")
        #expect(total() == "10001")
        #expect(read("/items/4").body == RouterFixture.router().respond("/items/4").body)
    }

    @Test("the control parameters are not part of the request a key names: a retry without them is a replay")
    func keyIgnoresControls() async throws {
        let headers: HTTPHeaders = ["Idempotency-Key": "retry-me"]
        let body = #"{"label":"flaky"}"#
        // fail_first=1: the first attempt is an injected 503, which writes and records nothing.
        let failed = refused(.post, "/items?fail_first=1", json: body, headers: headers)
        expectProblem(failed, 503, "injected-fault")
        #expect(total() == "10000")
        let second = await router.write(.post, "/items?fail_first=1", json: body, headers: headers)
        #expect(second.status == 201)
        #expect(second.headers["Idempotent-Replayed"] == nil, "the 503 recorded nothing: this is the first write")
        for target in ["/items", "/items?delay_ms=5", "/items?fail_first=1&delay_ms=0", "/items?fail=503&fail_rate=0"] {
            let retry = await router.write(.post, target, json: body, headers: headers)
            #expect(retry.status == 201, "\(target)")
            #expect(retry.headers["Idempotent-Replayed"] == "true", "\(target)")
            #expect(retry.body == second.body, "\(target)")
        }
        #expect(total() == "10001")
    }

    @Test("a malformed Idempotency-Key or X-Dataset is 400 invalid-header, at once")
    func invalidHeaders() async {
        let tooLong = String(repeating: "k", count: 256)
        for key in ["", "has space", "tab\tkey", "é", tooLong] {
            let response = refused(.post, "/items", json: #"{"label":"x"}"#, headers: ["Idempotency-Key": key])
            #expect(expectProblem(response, 400, "invalid-header").contains("Idempotency-Key"), "\(key)")
        }
        for name in ["", "no spaces", "slash/name", String(repeating: "d", count: 65)] {
            for (method, target, body) in [
                (HTTPMethod.post, "/items", #"{"label":"x"}"#), (.patch, "/items/5", "{}"), (.delete, "/items/5", ""),
            ] {
                let response = refused(method, target, json: body, headers: ["X-Dataset": name])
                let detail = expectProblem(response, 400, "invalid-header")
                #expect(detail.contains("X-Dataset"), "\(method.name) \(name)")
            }
            expectProblem(router.respond("/items", headers: ["X-Dataset": name]), 400, "invalid-header")
        }
        #expect(total() == "10000")
        // The bounds themselves are fine: 255 visible characters, 64 of the dataset alphabet.
        let longest = await router.write(
            .post, "/items", json: #"{"label":"x"}"#,
            headers: [
                "Idempotency-Key": String(repeating: "~", count: 255), "X-Dataset": String(repeating: "d", count: 64),
            ])
        #expect(longest.status == 201)
    }

    @Test("an injected 500, 503 or 429 on a write answers at once and writes nothing")
    func injectedStatusWritesNothing() async throws {
        for fail in ["500", "503", "429"] {
            let post = refused(.post, "/items?fail=\(fail)", json: #"{"label":"lost"}"#)
            expectProblem(post, Int(fail)!, "injected-fault")
            let patch = refused(.patch, "/items/5?fail=\(fail)", json: #"{"label":"lost"}"#)
            expectProblem(patch, Int(fail)!, "injected-fault")
            let delete = refused(.delete, "/items/6?fail=\(fail)", contentType: nil)
            expectProblem(delete, Int(fail)!, "injected-fault")
        }
        #expect(total() == "10000")
        #expect(read("/items/5").body == RouterFixture.router().respond("/items/5").body)
        #expect(read("/items/6").status == 200)
        #expect(await changeKinds().isEmpty)
        // No id was used up either.
        let created = await router.write(.post, "/items", json: #"{"label":"kept"}"#)
        #expect(created.headers["Location"] == "/items/10000")
    }

    @Test("fail=truncated on a write acts after the commit: the client is cut off, the item exists")
    func truncatedStillCommits() async throws {
        let cut = await router.write(.post, "/items?fail=truncated", json: #"{"label":"kept"}"#)
        #expect(cut.status == 201)
        #expect(cut.fault == .truncated)
        let read = read("/items/10000")
        #expect(read.status == 200)
        #expect(read.body == cut.body)
        #expect(total() == "10001")
        let reset = await router.write(.delete, "/items/10000?fail=reset", contentType: nil)
        #expect(reset.status == 204)
        #expect(reset.fault == .reset)
        #expect(router.respond("/items/10000").status == 404)
    }

    @Test("a page's ETag changes when an item on it is patched, and not when an item on another page is")
    func pageTags() async throws {
        let page1 = read("/items?page=1&limit=20")
        let page3 = read("/items?page=3&limit=20")
        let newest = read("/items?page=1&limit=20&order=desc")
        let cursor = read("/items?after=0&limit=5")
        // Item 50 is on page 3: page 1 is the same bytes, so it keeps its tag (a client's 304 stays valid).
        #expect(await router.write(.patch, "/items/50", json: #"{"likes":1}"#).status == 200)
        let page1After50 = read("/items?page=1&limit=20")
        #expect(page1After50.body == page1.body)
        #expect(page1After50.tag == page1.tag)
        let newestAfter50 = read("/items?page=1&limit=20&order=desc")
        #expect(newestAfter50.body == newest.body)
        #expect(newestAfter50.tag == newest.tag)
        let cursorAfter50 = read("/items?after=0&limit=5")
        #expect(cursorAfter50.body == cursor.body)
        #expect(cursorAfter50.tag == cursor.tag, "cursor pages too")
        let page3After50 = read("/items?page=3&limit=20")
        #expect(page3After50.tag != page3.tag)
        let notModified = router.respond("/items?page=1&limit=20", headers: ["If-None-Match": page1.tag ?? ""])
        #expect(notModified.status == 304)
        // Item 5 is on page 1.
        #expect(await router.write(.patch, "/items/5", json: #"{"likes":2}"#).status == 200)
        let page1After5 = read("/items?page=1&limit=20")
        #expect(page1After5.body != page1.body)
        #expect(page1After5.tag != page1.tag)
        #expect(read("/items?page=3&limit=20").tag == page3After50.tag, "page 3 did not change this time")
        #expect(read("/items?after=0&limit=5").tag != cursor.tag, "item 5 is on this cursor page")
        // Another patch of item 50 changes page 3 again, and page 1 not.
        #expect(await router.write(.patch, "/items/50", json: #"{"likes":3}"#).status == 200)
        #expect(read("/items?page=3&limit=20").tag != page3After50.tag)
        #expect(read("/items?page=1&limit=20").tag == page1After5.tag)
    }

    @Test("datasets are isolated: writes to one are not in another, nor in the default list")
    func datasetsIsolated() async throws {
        let a: HTTPHeaders = ["X-Dataset": "ui-test-a"]
        let b: HTTPHeaders = ["X-Dataset": "ui-test-b"]
        let created = await router.write(.post, "/items", json: #"{"label":"in a"}"#, headers: a)
        #expect(created.headers["Location"] == "/items/10000")
        #expect(await router.write(.patch, "/items/5", json: #"{"label":"a's five"}"#, headers: a).status == 200)
        #expect(await router.write(.delete, "/items/6", contentType: nil, headers: a).status == 204)

        #expect(read("/items/10000", headers: a).status == 200)
        #expect(read("/items/5", headers: a).body != read("/items/5").body)
        #expect(read("/items/6", headers: a).status == 404)
        for other in [b, [:]] {
            #expect(read("/items/10000", headers: other).status == 404)
            #expect(read("/items/5", headers: other).body == RouterFixture.router().respond("/items/5").body)
            #expect(read("/items/6", headers: other).status == 200)
            #expect(total(headers: other) == "10000")
            #expect(await changeKinds(headers: other).isEmpty)
        }
        #expect(total(headers: a) == "10000")  // one created, one deleted
        #expect(await changeKinds(headers: a) == ["created", "updated", "deleted"])
        // Ids are the dataset's own: b's first post is 10000 too.
        let inB = await router.write(.post, "/items", json: #"{"label":"in b"}"#, headers: b)
        #expect(inB.headers["Location"] == "/items/10000")
        // And so are keys.
        let key: HTTPHeaders = ["Idempotency-Key": "shared-key"]
        let inA = await router.write(.post, "/items", json: #"{"label":"k"}"#, headers: a.merging(key))
        let inDefault = await router.write(.post, "/items", json: #"{"label":"k"}"#, headers: key)
        #expect(inA.status == 201 && inDefault.status == 201)
        #expect(inDefault.headers["Idempotent-Replayed"] == nil)
    }

    @Test("DELETE /admin/datasets/<name> forgets the dataset: its writes, its feed, its keys")
    func dropDataset() async throws {
        let a: HTTPHeaders = ["X-Dataset": "ui-test-a", "Idempotency-Key": "before-drop"]
        #expect(await router.write(.post, "/items", json: #"{"label":"in a"}"#, headers: a).status == 201)
        #expect(
            await router.write(.delete, "/items/6", contentType: nil, headers: ["X-Dataset": "ui-test-a"]).status == 204
        )
        _ = await router.write(.post, "/items", json: #"{"label":"default"}"#)

        let dropped = await router.respondDeferred("/admin/datasets/ui-test-a", method: .delete)
        #expect(dropped.status == 204)
        #expect(dropped.body.isEmpty)

        let dataset: HTTPHeaders = ["X-Dataset": "ui-test-a"]
        #expect(read("/items/10000", headers: dataset).status == 404)
        #expect(read("/items/6", headers: dataset).status == 200)
        #expect(total(headers: dataset) == "10000")
        // The feed goes on with a reset (sequence 3): a client that saw 1 and 2 learns to reload.
        let next = await router.respondDeferred("/items/changes?since=2", headers: dataset)
        let changes = next.jsonObject?["changes"] as? [[String: Any]]
        #expect(changes?.map { $0["kind"] as? String } == ["reset"])
        #expect(changes?.first?["sequence"] as? Int == 3)
        // A client further back holds a position of the forgotten feed: it is told to reload.
        let expired = await router.respondDeferred("/items/changes?since=1", headers: dataset)
        expectProblem(expired, 410, "changes-expired")
        // The key is free again: the same request is a new write.
        let again = await router.write(.post, "/items", json: #"{"label":"in a"}"#, headers: a)
        #expect(again.status == 201)
        #expect(again.headers["Idempotent-Replayed"] == nil)
        // The default list keeps its write.
        #expect(read("/items/10000").status == 200)
        // Forgetting a dataset nobody used is a 204 too; a malformed name is 400.
        #expect(await router.respondDeferred("/admin/datasets/never-used", method: .delete).status == 204)
        expectProblem(router.respond("/admin/datasets/bad%20name", method: .delete), 400, "invalid-header")
    }
}

extension HTTPHeaders {
    /// These fields and `other`'s.
    fileprivate func merging(_ other: HTTPHeaders) -> HTTPHeaders {
        var merged = self
        for (name, value) in other { merged.add(name, value) }
        return merged
    }
}
