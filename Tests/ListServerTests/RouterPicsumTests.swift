import Foundation
import ListDomain
import Testing

@testable import ListServer

/// Lorem Picsum's routes on router values: shapes, clamping, Link, picks, redirects and images.
@Suite("Router: Lorem Picsum")
struct RouterPicsumTests {
    let router = RouterFixture.router()
    let host: HTTPHeaders = ["Host": "127.0.0.1:8080"]

    func array(_ response: HTTPResponse) throws -> [[String: Any]] {
        try #require((try? JSONSerialization.jsonObject(with: Data(response.body))) as? [[String: Any]])
    }

    @Test("/v2/list is a bare array of Picsum objects with absolute URLs from Host, ids as strings")
    func listShape() throws {
        let response = router.respond("/v2/list?limit=2", headers: host)
        #expect(response.status == 200)
        #expect(response.headers["Content-Type"] == MediaType.json)
        let body = String(decoding: response.body, as: UTF8.self)
        #expect(
            body.hasPrefix(
                #"[{"id":"0","author":"Ananya Iyer","width":3000,"height":2000,"url":"http://127.0.0.1:8080/items/0","download_url":"http://127.0.0.1:8080/id/0/3000/2000","blur_hash":"LV62_KkpVtkpuhkCaykCkWj[fPfQ"}"#
            ))
        let items = try array(response)
        #expect(items.map { $0["id"] as? String } == ["0", "1"])
        #expect(Set(items[0].keys) == ["id", "author", "width", "height", "url", "download_url", "blur_hash"])
    }

    @Test("an item too large for the image routes is listed at its size fitted to 5000 pixels a side")
    func fittedSizes() throws {
        let catalog = Catalog(seed: 42, count: 10_000)
        let large = try #require((0..<500).first { max(catalog.item($0)!.width, catalog.item($0)!.height) > 5000 })
        let info = router.respond("/id/\(large)/info", headers: host).jsonObject
        let own = catalog.item(large)!
        let fitted = ImageSpec.fitted(width: own.width, height: own.height)
        #expect(info?["width"] as? Int == fitted.width && info?["height"] as? Int == fitted.height)
        #expect(
            info?["download_url"] as? String == "http://127.0.0.1:8080/id/\(large)/\(fitted.width)/\(fitted.height)")
    }

    @Test("page and limit are clamped as Picsum clamps them, never refused; past the end is []")
    func clamping() throws {
        #expect(try array(router.respond("/v2/list", headers: host)).count == 30)
        #expect(try array(router.respond("/v2/list?limit=500", headers: host)).count == 100)
        #expect(try array(router.respond("/v2/list?limit=0", headers: host)).count == 30)
        #expect(try array(router.respond("/v2/list?limit=abc&page=-3", headers: host)).first?["id"] as? String == "0")
        #expect(try array(router.respond("/v2/list?page=0&limit=5", headers: host)).first?["id"] as? String == "0")
        #expect(try array(router.respond("/v2/list?page=3&limit=5", headers: host)).first?["id"] as? String == "10")
        #expect(try array(router.respond("/v2/list?page=2001&limit=5", headers: host)).isEmpty)
    }

    @Test("Link: next alone on page 1, prev and next in the middle, prev alone on a short last page")
    func link() {
        let root = "http://127.0.0.1:8080/v2/list"
        #expect(
            router.respond("/v2/list?limit=10", headers: host).headers["Link"]
                == "<\(root)?page=2&limit=10>; rel=\"next\"")
        #expect(
            router.respond("/v2/list?page=4&limit=10", headers: host).headers["Link"]
                == "<\(root)?page=3&limit=10>; rel=\"prev\", <\(root)?page=5&limit=10>; rel=\"next\"")
        #expect(
            router.respond("/v2/list?page=334&limit=30", headers: host).headers["Link"]
                == "<\(root)?page=333&limit=30>; rel=\"prev\"")
    }

    @Test("a Host that is not host[:port] is refused, never echoed; server.public_url replaces Host")
    func roots() throws {
        for bad in ["evil.example/<script>", "a b", "x:99999", "-bad.example", "[zz::1]"] {
            #expect(router.respond("/v2/list", headers: ["Host": bad]).status == 400, "\(bad)")
        }
        #expect(router.respond("/v2/list", headers: ["Host": "[::1]:8080"]).status == 200)
        // A compose service name, a fully qualified name and an empty port are hosts too.
        let underscore = router.respond("/id/1/info", headers: ["Host": "list_server:8080"]).jsonObject
        #expect(underscore?["url"] as? String == "http://list_server:8080/items/1")
        #expect(
            router.respond("/id/1/info", headers: ["Host": "Example.COM."]).jsonObject?["url"] as? String
                == "http://example.com./items/1")
        #expect(
            router.respond("/id/1/info", headers: ["Host": "example.com:"]).jsonObject?["url"] as? String
                == "http://example.com/items/1")
        var service = ServiceOptions()
        service.publicURL = "https://photos.example/base"
        let behindProxy = RouterFixture.router(service: service)
        let proxied = behindProxy.respond("/id/3/info", headers: ["Host": "internal:1"])
        #expect((proxied.jsonObject?["url"] as? String) == "https://photos.example/base/items/3")
        // A redirect stays under the public URL's path too.
        let redirect = behindProxy.respond("/seed/x/20", headers: ["Host": "internal:1"]).headers["Location"]
        #expect(redirect?.hasPrefix("https://photos.example/base/id/") == true, "\(redirect ?? "none")")
        let direct = router.respond("/seed/x/20", headers: host).headers["Location"]
        #expect(direct?.hasPrefix("http://127.0.0.1:8080/id/") == true)
        // A public URL whose path could break out of Link's <…> or a JSON string is refused at start.
        for bad in ["http://h/a>b", "http://h/a,b", "https://h/\"q", "http://h/a b", "ftp://h", "http://h?x=1"] {
            #expect(throws: PublicURL.ParseError.self, "\(bad)") { try PublicURL(parsing: bad) }
        }
        #expect(try PublicURL(parsing: "HTTPS://Photos.Example/base/").text == "https://photos.example/base")
    }

    @Test("/id/<id>/info is the list's object; a seed picks the same live item every time and on every server")
    func info() throws {
        let listed = try array(router.respond("/v2/list?page=15&limit=3", headers: host))[0]
        let info = try #require(router.respond("/id/42/info", headers: host).jsonObject)
        #expect(NSDictionary(dictionary: info).isEqual(to: listed))
        let first = router.respond("/seed/picsum/info", headers: host).body
        #expect(router.respond("/seed/picsum/info", headers: host).body == first)
        #expect(RouterFixture.router().respond("/seed/picsum/info", headers: host).body == first)
        #expect(router.respond("/seed/other/info", headers: host).body != first)
        #expect(router.respond("/id/abc/info").status == 404)
        #expect(router.respond("/id/10000/info").status == 404)
    }

    @Test("/id/<id>/<w>/<h> is the image with Picsum-ID and Picsum's file name; 0 is the item's own size")
    func images() async throws {
        let codecs = try ImageCodecs()
        let response = await router.respondDeferred("/id/42/200/300.png?grayscale&blur")
        #expect(response.status == 200)
        #expect(response.headers["Picsum-ID"] == "42")
        #expect(response.headers["Content-Disposition"] == #"inline; filename="42-200x300-blur_5-grayscale.png""#)
        let item = Catalog(seed: 42, count: 10_000).item(42)!
        let drawn = ImageRenderer.render(
            ImageSpec(id: 42, width: 200, height: 300, color: item.rgb, grayscale: true, blur: 5))
        #expect(try codecs.decode(response.body, as: .png) == drawn)
        let square = await router.respondDeferred("/id/42/64")
        #expect(square.headers["Content-Type"] == "image/jpeg")
        #expect(codecs.dimensions(of: square.body, as: .jpeg).map { [$0.width, $0.height] } == [64, 64])
        let own = await router.respondDeferred("/id/42/0/100.webp")
        #expect(codecs.dimensions(of: own.body, as: .webp).map { [$0.width, $0.height] } == [item.width, 100])
    }

    @Test("/<w>/<h> and /seed/… redirect to /id/…; the sequence is the same after every start; bad input is 400")
    func redirects() throws {
        func locations(_ router: Router) -> [String] {
            (0..<3).compactMap { _ in router.respond("/200/300?grayscale&blur").headers["Location"] }
        }
        let drawn = locations(router)
        #expect(drawn.count == 3 && Set(drawn).count == 3)
        #expect(drawn.allSatisfy { $0.hasPrefix("/id/") && $0.hasSuffix("/200/300.jpg?blur=5&grayscale") })
        #expect(locations(RouterFixture.router()) == drawn)
        let seeded = router.respond("/seed/abc/150.webp")
        #expect(seeded.status == 302)
        #expect(router.respond("/seed/abc/150.webp").headers["Location"] == seeded.headers["Location"])
        #expect(seeded.headers["Location"]?.hasSuffix("/150/150.webp") == true)
        #expect(router.respond("/200/5001").status == 400)
        #expect(router.respond("/200/300?blur=0").status == 400)
        #expect(router.respond("/200/300?blur=abc").jsonObject?["parameter"] as? String == "blur")
        #expect(router.respond("/200/300?blur=2&blur=3").jsonObject?["parameter"] as? String == "blur")
        #expect(router.respond("/200/300?grayscale=%zz").status == 400)
        #expect(router.respond("/v2/list?page=%zz", headers: host).status == 400)
        #expect(router.respond("/200/300?grayscale&grayscale=1").jsonObject?["parameter"] as? String == "grayscale")
        #expect(router.respond("/200/300.gif").jsonObject?["parameter"] as? String == "format")
        #expect(router.respond("/abc/300").status == 404)
    }

    @Test("picks never land on a deleted item, and picsum.enabled false turns every route off")
    func deletionsAndSwitch() async throws {
        let seeded = try #require(router.respond("/seed/s/info", headers: host).jsonObject?["id"] as? String)
        #expect(await router.write(.delete, "/items/\(seeded)").status == 204)
        #expect(router.respond("/id/\(seeded)/info").status == 404)
        #expect(router.respond("/seed/s/info", headers: host).jsonObject?["id"] as? String != seeded)
        var service = ServiceOptions()
        service.picsumEnabled = false
        let off = RouterFixture.router(service: service)
        for target in ["/v2/list", "/id/1/info", "/id/1/20", "/seed/a/20/20", "/20", "/20/20"] {
            #expect(off.respond(target).status == 404, "\(target)")
        }
    }
}
