import ListDomain
import Testing

@testable import ListServer

/// HTTP caching: strong ETags on pages, items and details, 304 for a matching If-None-Match, no-cache everywhere.
@Suite("Router: ETags and conditional requests")
struct RouterCachingTests {
    let router = RouterFixture.router()

    @Test(
        "pages, cursor pages and items carry a strong ETag, and a matching If-None-Match gets 304 with no body",
        arguments: ["/items?page=2&limit=5", "/items", "/items?after=7&limit=3", "/items?order=desc", "/items/42"])
    func conditionalGet(target: String) throws {
        let first = router.respond(target)
        #expect(first.status == 200)
        let tag = try #require(first.headers["ETag"])
        #expect(tag.hasPrefix("\"") && tag.hasSuffix("\"") && !tag.hasPrefix("W/"))
        #expect(router.respond(target).headers["ETag"] == tag, "the same request gets the same tag")

        let revalidated = router.respond(target, headers: ["If-None-Match": tag])
        #expect(revalidated.status == 304)
        #expect(revalidated.body.isEmpty)
        #expect(revalidated.headers["ETag"] == tag)
        #expect(revalidated.headers["Cache-Control"] == "no-cache")

        for matching in ["*", "W/\(tag)", "\"0000000000000000\", \(tag)"] {
            #expect(router.respond(target, headers: ["If-None-Match": matching]).status == 304, "\(matching)")
        }
        for other in ["\"0000000000000000\"", "garbage", "", tag + "x"] {
            #expect(router.respond(target, headers: ["If-None-Match": other]).status == 200, "\(other)")
        }
    }

    @Test("a tag is v, the catalog version, -, and its hash as 16 lowercase hex digits, all in quotes")
    func tagFormat() {
        let tags = [
            EntityTag(version: 1), EntityTag(version: 1, 2, 3), EntityTag(version: .max), EntityTag(version: 10, 7),
            EntityTag(version: 0, 0),
        ]
        for tag in tags {
            let hex = String(tag.hash, radix: 16)
            #expect(
                tag.headerValue == "\"v\(tag.version)-" + String(repeating: "0", count: 16 - hex.count) + hex + "\"")
        }
        #expect(EntityTag(version: 1, 2).hash != EntityTag(version: 2, 2).hash)
    }

    @Test("different representations have different tags")
    func tagsDiffer() {
        let targets = [
            "/items", "/items?page=2", "/items?limit=19", "/items/1", "/items/2", "/items?after=1", "/items?before=9",
            "/items?order=desc", "/items?after=1&order=desc",
        ]
        let tags = targets.map { router.respond($0).headers["ETag"] }
        #expect(Set(tags).count == targets.count)
        let otherSeed = RouterFixture.router(count: 10_000)
        #expect(otherSeed.respond("/items").headers["ETag"] == tags[0], "same seed and count: same tag")
        #expect(RouterFixture.router(count: 9_999).respond("/items").headers["ETag"] != tags[0])
    }

    @Test("a detail is revalidated after its lookup: 304 with the tag and X-Cache, no body")
    func detailConditional() async throws {
        let first = await router.respondHeld("/items/42/detail")
        let tag = try #require(first.headers["ETag"])
        #expect(first.status == 200)
        let revalidated = await router.respondHeld("/items/42/detail", headers: ["If-None-Match": tag])
        #expect(revalidated.status == 304)
        #expect(revalidated.body.isEmpty)
        #expect(revalidated.headers["X-Cache"] == "HIT")
        #expect(revalidated.headers["ETag"] == tag)
        #expect(revalidated.headers["Content-Type"] == nil)
    }

    @Test(
        "every routed response says Cache-Control: no-cache, errors included; probes keep their no-store",
        arguments: ["/items", "/items/x", "/nope", "/openapi.json", "/items?page=0", "/healthz"])
    func noCache(target: String) {
        let expected = target == "/healthz" ? ["no-store"] : ["no-cache"]
        #expect(router.respond(target).headers.values(for: "Cache-Control") == expected)
    }

    @Test("a reset changes every tag, so revalidation after it gets 200")
    func resetChangesTags() async throws {
        let before = router.respond("/items/3")
        let tag = try #require(before.headers["ETag"])
        let reset = await router.answer(HTTPRequest(method: .post, target: "/admin/reset"))
        #expect(reset.status == 200)
        let after = router.respond("/items/3", headers: ["If-None-Match": tag])
        #expect(after.status == 200)
        #expect(after.body == before.body, "same seed: same item, but a new version")
        #expect(after.headers["ETag"] != tag)
    }
}
