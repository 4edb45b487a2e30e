import ListDomain
import Testing

@testable import ListServer

/// A profile's stored row against what another server does to it meanwhile: a revoke writes the key alone, and a
/// `PUT` keeps the key the store has. (Through one store, as replicas share one; the listener's part is in
/// `EndToEndReplicaTests`.)
@Suite("Router: profiles and their tokens' key in the store")
struct RouterProfileStoreTests {
    let store = MemoryListStore()
    let json: HTTPHeaders = ["Content-Type": "application/json"]

    @Test("a revoke after the profile was deleted (by another server) does not bring it back")
    func revokeDoesNotResurrect() async throws {
        let router = RouterFixture.router(store: store)
        let put = await router.respondDeferred(
            "/admin/datasets/x/profile", method: .put, headers: json, body: Array(#"{"auth":{"token_ttl_s":60}}"#.utf8))
        #expect(put.status == 200)
        try await store.setProfile(nil, of: "x")
        let revoke = await router.respondDeferred(
            "/auth/revoke", method: .post, headers: ["X-Dataset": "x", "Content-Type": "application/json"],
            body: Array("{}".utf8))
        #expect(revoke.status == 204)
        #expect(try await store.profile(of: "x") == nil)
    }

    @Test("a PUT keeps the key the store has (another server's revoke), and signs with it")
    func putKeepsStoredKey() async throws {
        let router = RouterFixture.router(store: store)
        let body = Array(#"{"auth":{"token_ttl_s":60}}"#.utf8)
        #expect(
            await router.respondDeferred("/admin/datasets/x/profile", method: .put, headers: json, body: body).status
                == 200)
        #expect(try await store.setTokenKey(42, of: "x"))
        let again = Array(#"{"auth":{"token_ttl_s":120}}"#.utf8)
        #expect(
            await router.respondDeferred("/admin/datasets/x/profile", method: .put, headers: json, body: again).status
                == 200)
        #expect(try await store.profile(of: "x")?.tokenKey == 42)
        #expect(router.profiles.entry(of: "x")?.entry.tokenKey == 42)
    }
}
