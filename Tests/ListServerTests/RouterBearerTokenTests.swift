import Testing

@testable import ListServer

/// How a request's bearer token is read: the scheme in any case, exactly 32 hex digits in either case; anything
/// else is carried but is not a token (refused as malformed), and another scheme is no token at all.
@Suite("Router: reading bearer tokens")
struct RouterBearerTokenTests {
    @Test(
        "32 hex digits after Bearer, in any case, are the token's number",
        arguments: [
            ("Bearer 0123456789abcdef0123456789ABCDEF", UInt128(0x0123_4567_89ab_cdef) << 64 | 0x0123_4567_89AB_CDEF),
            ("bEARER ffffffffffffffffffffffffffffffff", UInt128.max),
            ("Bearer 00000000000000000000000000000001", 1),
        ])
    func readsToken(field: String, value: UInt128) {
        #expect(Router.bearerToken(field).map { $0.value } == .some(value))
        #expect(Router.bearerToken(field)?.carried == true)
    }

    @Test(
        "anything else after Bearer is carried but not a token",
        arguments: [
            "Bearer 0123456789abcdef0123456789abcde",  // 31 digits
            "Bearer 0123456789abcdef0123456789abcdef0",  // 33
            "Bearer 0123456789abcdeg0123456789abcdef",  // a g
            "Bearer 0123456789abcdef0123456789abcde/",  // one past '9' in ASCII is ':', one before '0' is '/'
            "Bearer 0123456789abcdef:123456789abcdef",
            "Bearer  0123456789abcdef0123456789abcde",  // two spaces
        ])
    func carriesMalformed(field: String) {
        let read = Router.bearerToken(field)
        #expect(read?.carried == true)
        #expect(read?.value == nil)
    }

    @Test("another scheme, or none, is no token", arguments: ["Basic dXNlcjpwYXNz", "Bearer", "Bearerx abc", ""])
    func noToken(field: String) {
        #expect(Router.bearerToken(field) == nil)
    }
}
