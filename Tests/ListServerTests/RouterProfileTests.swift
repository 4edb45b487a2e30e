import ListDomain
import Testing

@testable import ListServer

/// `PUT`, `GET`, `DELETE /admin/datasets/<name>/profile` and what a profile does to the dataset's requests
/// (Router+Profiles.swift), on request values.
@Suite("Router: dataset profiles")
struct RouterProfileTests {
    let router = RouterFixture.router(store: MemoryListStore())

    func put(_ dataset: String, _ body: String) async -> HTTPResponse {
        await router.respondHeld(
            "/admin/datasets/\(dataset)/profile", method: .put, headers: ["Content-Type": "application/json"],
            body: Array(body.utf8))
    }

    @Test("the second page fails twice with 503 and its Retry-After, then succeeds; other pages and datasets pass")
    func scriptedPage() async throws {
        let set = await put(
            "run-1",
            #"{"script":[{"match":{"method":"GET","route":"/items","query":{"page":"2"}},"respond":{"status":503,"retry_after_s":3},"times":2}]}"#
        )
        #expect(set.status == 200, "\(set.text)")
        #expect(set.jsonObject?["script"].flatMap { ($0 as? [[String: Any]])?.first?["left"] as? Int } == 2)
        let named: HTTPHeaders = ["X-Dataset": "run-1"]
        #expect(await router.respondHeld("/items?page=1", headers: named).status == 200)
        #expect(await router.respondHeld("/items?page=2").status == 200)  // the default dataset has no profile
        let first = await router.respondHeld("/items?page=2&limit=5", headers: named)
        #expect(first.status == 503)
        #expect(first.headers["Retry-After"] == "3")
        #expect(first.jsonObject?["type"] as? String == "urn:listserver:problem:injected-fault")
        #expect((first.jsonObject?["detail"] as? String)?.contains("scripted") == true)
        #expect(await router.respondHeld("/d/run-1/items?page=2").status == 503)  // by base path too
        #expect(await router.respondHeld("/items?page=2", headers: named).status == 200)
        let state = await router.respondHeld("/admin/datasets/run-1/profile")
        #expect(state.jsonObject?["script"].flatMap { ($0 as? [[String: Any]])?.first?["left"] as? Int } == 0)
    }

    @Test("a write a step answers with a status is not written; a step's wire fault and delay go on the answer")
    func scriptedWriteAndFaults() async throws {
        _ = await put(
            "w",
            #"{"script":[{"match":{"method":"POST"},"respond":{"status":500}},{"match":{"route":"/items/{id}"},"respond":{"kind":"reset","body_delay_ms":250}}]}"#
        )
        let refused = await router.respondHeld(
            "/d/w/items", method: .post, headers: ["Content-Type": "application/json"],
            body: Array(#"{"label":"never"}"#.utf8))
        #expect(refused.status == 500)
        #expect(await router.respondHeld("/d/w/items/10000").status == 404)  // not written, and the reset step
        let reset = await router.respondHeld("/d/w/items/3")
        #expect(reset.status == 200)
        #expect(reset.fault == .reset)
        #expect(reset.delay == .milliseconds(250))
        let created = await router.write(.post, "/d/w/items", json: #"{"label":"now"}"#)
        #expect(created.status == 201)
    }

    @Test("an outage answers every request of the dataset 503 with Retry-After, images by ?dataset= too")
    func outage() async throws {
        // An hour: the full suite's parallel tests once held this one up for over a minute between two awaits, and
        // a minute's outage had ended before its state was read.
        #expect(await put("down", #"{"outage":{"for_ms":3600000}}"#).status == 200)
        let page = await router.respondHeld("/d/down/items")
        #expect(page.status == 503)
        #expect((3_000...3_600).contains(page.headers["Retry-After"].flatMap { Int($0) } ?? 0))  // what is left
        #expect(await router.respondHeld("/items/3/image?dataset=down&w=10&h=10").status == 503)
        #expect(await router.respondHeld("/items/3/image?w=10&h=10").status == 200)
        // The probes are not the dataset's.
        #expect(await router.respondHeld("/healthz", headers: ["X-Dataset": "down"]).status == 200)
        let state = await router.respondHeld("/admin/datasets/down/profile")
        #expect((state.jsonObject?["outage"] as? [String: Any])?["active"] as? Bool == true)
        #expect(await router.respondHeld("/admin/datasets/down/profile", method: .delete).status == 204)
        #expect(await router.respondHeld("/d/down/items").status == 200)
        let cleared = await router.respondHeld("/admin/datasets/down/profile")
        #expect(cleared.status == 200)
        #expect(cleared.text == #"{"dataset":"down","script":[]}"#)
    }

    @Test("dropping a dataset drops its profile")
    func droppedWithDataset() async {
        _ = await put("gone", #"{"outage":{"for_ms":60000}}"#)
        #expect(await router.respondHeld("/admin/datasets/gone", method: .delete).status == 204)
        #expect(await router.respondHeld("/d/gone/items").status == 200)
        #expect(router.profiles.isEmpty)
    }

    @Test("GET answers the profile as it was set, with where it stands, and PUT takes that back")
    func readBack() async {
        let body =
            #"{"outage":{"for_ms":60000,"every_ms":120000},"script":[{"match":{"method":"GET","route":"/items/{id}/detail","query":{"a":"1"}},"respond":{"status":429,"retry_after_s":2,"body_delay_ms":10,"kind":"truncated"},"times":3}]}"#
        let set = await put("r", body)
        // remaining_ms counts down from 60000 as the test runs: everything else is exact.
        let remaining = /"remaining_ms":(\d+)/
        let shown = set.text.replacing(remaining, with: { _ in #""remaining_ms":R"# })
        #expect(
            shown
                == #"{"dataset":"r","outage":{"for_ms":60000,"every_ms":120000,"active":true,"remaining_ms":R},"script":[{"match":{"method":"GET","route":"/items/{id}/detail","query":{"a":"1"}},"respond":{"status":429,"retry_after_s":2,"body_delay_ms":10,"kind":"truncated"},"times":3,"left":3}]}"#
        )
        let again = await put("r", set.text)
        #expect(again.status == 200, "\(again.text)")
        #expect(again.text.replacing(remaining, with: { _ in #""remaining_ms":R"# }) == shown)
        #expect(await put("r", "{}").status == 200)  // the empty profile clears it
        #expect(router.profiles.isEmpty)
    }

    @Test("chat: simulated participants start with the profile, read back as set, and stop when it is cleared")
    func chatActivity() async {
        let body = #"{"chat":{"messages_per_min":6,"typing_ms":1500,"edit_ratio":0.25,"delete_ratio":0,"seed":7}}"#
        let set = await put("talk", body)
        #expect(set.status == 200, "\(set.text)")
        #expect(
            set.text
                == #"{"dataset":"talk","chat":{"messages_per_min":6.0,"typing_ms":1500,"edit_ratio":0.25,"delete_ratio":0.0,"seed":7},"script":[]}"#
        )
        #expect(router.chatActivity.count == 1)
        #expect(await put("talk", set.text).status == 200)  // what GET shows is a body PUT takes
        #expect(router.chatActivity.count == 1)
        #expect(await put("talk", #"{"faults":{"rate":0}}"#).status == 200)  // a profile without chat: none
        #expect(router.chatActivity.count == 0)
        #expect(await put("talk", body).status == 200)
        let cleared = await router.respondHeld("/admin/datasets/talk/profile", method: .delete)
        #expect(cleared.status == 204)
        #expect(router.chatActivity.count == 0)
        #expect(await put("gone", body).status == 200)
        let dropped = await router.respondHeld("/admin/datasets/gone", method: .delete)
        #expect(dropped.status == 204 || dropped.status == 200, "\(dropped.text)")
        #expect(router.chatActivity.count == 0)
    }

    @Test("chat: past 64 datasets with simulated participants, a new one is 507; one that has them may change")
    func chatActivityBounded() async {
        let body = #"{"chat":{"messages_per_min":0.5}}"#
        for index in 0..<ChatActivityDriver<ContinuousClock>.capacity {
            #expect(await put("busy-\(index)", body).status == 200)
        }
        let refused = await put("one-more", body)
        #expect(refused.status == 507)
        #expect((refused.jsonObject?["type"] as? String) == "urn:listserver:problem:dataset-limit")
        #expect(await put("busy-0", #"{"chat":{"messages_per_min":1}}"#).status == 200)
        await router.chatActivity.stop()
    }

    @Test("an upload a step refuses is not stored; ?dataset= names the dataset only on GET and HEAD; preflights pass")
    func uploadsQueriesAndPreflights() async throws {
        _ = await put("u", #"{"script":[{"match":{"method":"PUT"},"respond":{"status":503},"times":2}]}"#)
        let png = try ImageCodecs().encode(
            RGBImage(width: 2, height: 2, pixels: [UInt8](repeating: 9, count: 12)), as: .png)
        let refused = await router.respondHeld(
            "/d/u/items/4/image", method: .put, headers: ["Content-Type": "image/png"], body: png)
        #expect(refused.status == 503)
        let image = await router.respondHeld("/d/u/items/4/image.png")
        #expect(image.status == 200 && image.body != png)  // the generated image: nothing was stored
        // A PUT with ?dataset=u and no header writes to the default list, so u's profile does not count it.
        let other = await router.respondHeld(
            "/items/4/image?dataset=u", method: .put, headers: ["Content-Type": "image/png"], body: png)
        #expect(other.status == 201)
        #expect(router.profiles.entry(of: "u")?.entry.left == [1])
        let preflight = await router.respondHeld(
            "/d/u/items/4/image", method: .options,
            headers: ["Origin": "http://localhost:3000", "Access-Control-Request-Method": "PUT"])
        #expect(preflight.status == 204)
        #expect(router.profiles.entry(of: "u")?.entry.left == [1])
        _ = await put("down", #"{"outage":{"for_ms":60000}}"#)
        #expect(await router.respondHeld("/d/down/items", method: .options).status == 204)
    }

    @Test("faults: every request fails at rate 1; a request's own controls win; other datasets pass")
    func faultsAtRate() async {
        #expect(await put("f", #"{"faults":{"rate":1,"kinds":"503"}}"#).status == 200)
        let failed = await router.respondHeld("/d/f/items/3")
        #expect(failed.status == 503)
        #expect(
            (failed.jsonObject?["detail"] as? String)?.contains(#"dataset "f"'s profile"#) == true, "\(failed.text)")
        #expect(await router.respondHeld("/d/f/items/3?fail_rate=0").status == 200)
        #expect(await router.respondHeld("/items/3").status == 200)
        #expect(await router.respondHeld("/d/f/admin/datasets/f/profile").status == 200)  // not a data route
    }

    @Test("faults: fail_first fails a client's first n requests for a resource, counted per client")
    func faultsFailFirst() async {
        #expect(await put("ff", #"{"faults":{"fail_first":2,"kinds":"429"}}"#).status == 200)
        let first: HTTPHeaders = ["X-Client-Id": "c1"]
        #expect(await router.respondHeld("/d/ff/items/3", headers: first).status == 429)
        #expect(await router.respondHeld("/d/ff/items/3", headers: first).status == 429)
        #expect(await router.respondHeld("/d/ff/items/3", headers: first).status == 200)
        #expect(await router.respondHeld("/d/ff/items/3", headers: ["X-Client-Id": "c2"]).status == 429)
        #expect(await router.respondHeld("/d/ff/items/4", headers: first).status == 429)
        // Set again, the counts start over.
        _ = await put("ff", #"{"faults":{"fail_first":1}}"#)
        #expect(await router.respondHeld("/d/ff/items/3", headers: first).status == 503)
        #expect(await router.respondHeld("/d/ff/items/3", headers: first).status == 200)
    }

    @Test("faults: by ?dataset= on an image, the dataset's own counts; preflights meet none; kinds alone is rate 1")
    func faultsByQueryAndPreflight() async {
        _ = await put("q", #"{"faults":{"fail_first":1}}"#)
        let client: HTTPHeaders = ["X-Client-Id": "c1"]
        #expect(await router.respondHeld("/items/3/image?dataset=q&w=8&h=8", headers: client).status == 503)
        #expect(await router.respondHeld("/items/3/image?dataset=q&w=8&h=8", headers: client).status == 200)
        _ = await put("q", #"{"faults":{"fail_first":1}}"#)  // set again: q's counts start over
        #expect(await router.respondHeld("/items/3/image?dataset=q&w=8&h=8", headers: client).status == 503)
        // The default list's count for this client and image was never used.
        #expect(await router.respondHeld("/items/3/image?w=8&h=8&fail_first=1", headers: client).status == 503)
        _ = await put("k", #"{"faults":{"kinds":"500"}}"#)
        let preflight: HTTPHeaders = ["Origin": "http://localhost:3000", "Access-Control-Request-Method": "GET"]
        #expect(await router.respondHeld("/d/k/items", method: .options, headers: preflight).status == 204)
        #expect(await router.respondHeld("/d/k/items").status == 500)
        #expect(await router.respondHeld("/d/k/items").status == 500)
    }

    @Test("faults: the same seed draws the same faults in two datasets")
    func faultsSeeded() async {
        func statuses(_ dataset: String) async -> [Int] {
            var statuses: [Int] = []
            for id in 0..<24 { statuses.append(await router.respondHeld("/d/\(dataset)/items/\(id)").status) }
            return statuses
        }
        _ = await put("s1", #"{"faults":{"rate":0.5,"kinds":"500","seed":7}}"#)
        _ = await put("s2", #"{"faults":{"rate":0.5,"kinds":"500","seed":7}}"#)
        _ = await put("s3", #"{"faults":{"rate":0.5,"kinds":"500","seed":8}}"#)
        let first = await statuses("s1")
        #expect(first.contains(500) && first.contains(200))
        #expect(await statuses("s2") == first)
        #expect(await statuses("s3") != first)
    }

    @Test("/metrics counts the datasets with a profile and the requests profiles acted on, by cause")
    func metrics() async throws {
        let router = RouterFixture.router(store: MemoryListStore(), metrics: true)
        func scrape() async throws -> PrometheusText {
            try PrometheusText(await router.respondHeld("/metrics").text)
        }
        #expect(try await scrape()["listserver_profiles_datasets"] == 0)
        let json: HTTPHeaders = ["Content-Type": "application/json"]
        _ = await router.respondHeld(
            "/admin/datasets/a/profile", method: .put, headers: json,
            body: Array(#"{"script":[{"respond":{"status":503},"times":2}]}"#.utf8))
        _ = await router.respondHeld(
            "/admin/datasets/b/profile", method: .put, headers: json, body: Array(#"{"outage":{"for_ms":60000}}"#.utf8))
        for _ in 0..<3 { _ = await router.respondHeld("/d/a/items") }
        _ = await router.respondHeld("/d/b/items/1")
        let text = try await scrape()
        #expect(text["listserver_profiles_datasets"] == 2)
        #expect(text[#"listserver_profiles_requests_total{cause="scripted"}"#] == 2)
        #expect(text[#"listserver_profiles_requests_total{cause="outage"}"#] == 1)
        #expect(text.types["listserver_profiles_requests_total"] == "counter")
    }

    @Test(
        "a body that is not a profile is 400 naming what is wrong",
        arguments: [
            (#"{"faults":{"rate":1.5}}"#, "faults.rate must be a number in 0...1"),
            (#"{"faults":{"kinds":"teapot"}}"#, "faults.kinds must be a fault mix"),
            (#"{"faults":{"rate":0.5,"fail_first":2}}"#, "not both"),
            (#"{"faults":{}}"#, "faults needs a rate, kinds or fail_first"),
            (#"{"faults":{"seed":7}}"#, "a seed alone draws nothing"),
            (#"{"faults":{"fail_first":1001}}"#, "faults.fail_first must be an integer in 1...1000"),
            (#"{"outage":{"for_ms":100,"every_ms":100}}"#, "must be longer than outage.for_ms"),
            (#"{"outage":{}}"#, "outage.for_ms is required"),
            (#"{"script":[{"match":{"route":"/nowhere"},"respond":{"status":503}}]}"#, "one of the dataset's routes"),
            (#"{"script":[{"match":{"route":"/healthz"},"respond":{"status":503}}]}"#, "one of the dataset's routes"),
            (
                #"{"script":[{"match":{"route":"/items/{id}/detail","method":"POST"},"respond":{"status":503}}]}"#,
                "does not answer POST"
            ),
            (#"{"script":[{"match":{"route":"/items/events"},"respond":{"kind":"reset"}}]}"#, "an event stream"),
            (#"{"script":[{"respond":{"body_delay_ms":30001}}]}"#, "body_delay_ms must be an integer in 0...30000"),
            (#"{"dataset":"other"}"#, "the dataset of the path"),
            (#"{"script":[{"respond":{"status":200}}]}"#, "script[0].respond.status must be an integer in 400...599"),
            (#"{"script":[{"respond":{"kind":"503"}}]}"#, "must be reset, truncated or hang"),
            (#"{"script":[{"respond":{}}]}"#, "needs a status, a kind or a body_delay_ms"),
            (#"{"script":[{"respond":{"retry_after_s":1}}]}"#, "goes with a status"),
            (#"{"script":[{"respond":{"status":503},"times":0}]}"#, "times must be an integer"),
            (#"{"script":[{"match":{"method":"get"},"respond":{"status":503}}]}"#, "method must be"),
            (#"{"scripts":[]}"#, "unknown member"),
            (#"{"bandwidth":{"kbps":0}}"#, "bandwidth.kbps must be an integer in 1...1000000"),
            (#"{"bandwidth":{}}"#, "bandwidth.kbps is required"),
            (#"{"latency":{}}"#, "latency needs list, detail or image"),
            (#"{"latency":{"list":{"fixed_ms":5,"min_ms":1}}}"#, "a fixed latency does not take min_ms"),
            (#"{"latency":{"list":{"min_ms":9,"max_ms":5}}}"#, "must not be above max_ms"),
            (#"{"latency":{"image":{"distribution":"gamma"}}}"#, "must be uniform, fixed, lognormal or none"),
            (#"{"latency":{"detail":{"median_ms":5,"spread":9}}}"#, "spread must be a number in 0...4"),
            (#"{"latency":{"video":{}}}"#, "which takes list, detail, image"),
            (#"{"rate_limit":{"per_s":1}}"#, "rate_limit.requests is required"),
            (#"{"rate_limit":{"requests":1,"per_s":0}}"#, "rate_limit.per_s must be"),
            (#"{"auth":{}}"#, "auth.token_ttl_s is required"),
            (#"{"auth":{"token_ttl_s":86401}}"#, "auth.token_ttl_s must be an integer in 1...86400"),
            (#"{"chat":{}}"#, "chat needs messages_per_min"),
            (#"{"chat":{"messages_per_min":0}}"#, "chat.messages_per_min must be a number above 0"),
            (#"{"chat":{"messages_per_min":601}}"#, "at most 600"),
            (#"{"chat":{"messages_per_min":6,"typing_ms":60001}}"#, "chat.typing_ms must be an integer in 0...60000"),
            (#"{"chat":{"messages_per_min":6,"edit_ratio":2}}"#, "chat.edit_ratio must be a number in 0...1"),
            (#"{"chat":{"messages_per_min":6,"mood":"grumpy"}}"#, "which takes messages_per_min"),
            (#"[]"#, "must be a JSON object"),
            (#"{"outage":"#, "not valid JSON"),
        ])
    func invalid(body: String, says: String) async {
        let answer = await put("bad", body)
        #expect(answer.status == 400)
        #expect((answer.jsonObject?["detail"] as? String)?.contains(says) == true, "\(answer.text)")
        #expect(router.profiles.isEmpty)
    }
}
