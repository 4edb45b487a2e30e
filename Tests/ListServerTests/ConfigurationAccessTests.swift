import Testing

@testable import ListServer

/// The `admin.token` and `cors.allow_origin` keys: what is accepted, what is refused and why, and that the token
/// never shows in the summary, in messages, in `--help` or in a printed ``Settings``.
@Suite("Configuration: admin token and CORS origins")
struct ConfigurationAccessTests {
    typealias Support = ConfigurationTestSupport

    /// Where this test writes its JSON files.
    let temporary = TemporaryDirectory()

    /// A token that is easy to find in any text it leaks into.
    static let token = "s3cr3t-Token_0123456789~!"

    @Test func byDefaultThereIsNoTokenAndAnyOriginMayRead() {
        #expect(Settings.defaults.adminToken == .none)
        #expect(!Settings.defaults.adminToken.isSet)
        #expect(Settings.defaults.corsAllowOrigin == .any)
        #expect(Settings.defaults.text(of: .corsAllowOrigin) == "*")
    }

    @Test func theSummaryShowsWhetherATokenIsSetButNeverTheToken() async throws {
        let settings = try await Support.load(environment: ["LISTSERVER_ADMIN_TOKEN": Self.token])
        #expect(settings.adminToken.value == Self.token)
        #expect(settings.summary.contains(" admin.token=<set> "))
        #expect(!settings.summary.contains(Self.token))
        #expect(try await Support.load().summary.contains(" admin.token=<none> "))
        #expect(!"\(settings)".contains(Self.token))
        #expect(!String(reflecting: settings).contains(Self.token))
        var dumped = ""
        dump(settings, to: &dumped)
        #expect(!dumped.contains(Self.token))
    }

    @Test func theTokenComesFromEverySource() async throws {
        #expect(try await Support.load(["--admin-token", Self.token]).adminToken.value == Self.token)
        let path = try temporary.file(#"{"admin": {"token": "\#(Self.token)"}}"#)
        #expect(try await Support.load(["--config", path]).adminToken.value == Self.token)
        let longest = String(repeating: "~", count: 256)
        #expect(try await Support.load(["--admin-token", longest]).adminToken.value == longest)
        #expect(try await Support.load(environment: ["LISTSERVER_ADMIN_TOKEN": ""]).adminToken == .none)
    }

    @Test func aTokenWithASpaceIsRefusedWithoutEchoingIt() async throws {
        let spaced = "abc def-\(Self.token)"
        let error = try await Support.loadError(environment: ["LISTSERVER_ADMIN_TOKEN": spaced])
        #expect(
            error?.description
                == "admin.token (env LISTSERVER_ADMIN_TOKEN) = <redacted> must be empty or 1...256 visible ASCII "
                + "characters (0x21...0x7E): byte 4 is 0x20")
        #expect(error?.description.contains("abc") == false)
        let fromFlag = try await Support.loadError(["--admin-token", "\(Self.token)\t"])
        #expect(fromFlag?.description.hasSuffix(": byte 26 is 0x09") == true)
        #expect(fromFlag?.description.contains(Self.token) == false)
    }

    @Test func otherBadTokensAreRefusedWithoutEchoingThem() async throws {
        let long = try await Support.loadError(["--admin-token", String(repeating: "x", count: 257)])
        #expect(long?.description.hasSuffix("(0x21...0x7E): it has 257 bytes") == true)
        #expect(long?.description.contains("xxx") == false)
        let accented = try await Support.loadError(["--admin-token", "tokén"])
        #expect(accented?.description.hasSuffix(": byte 4 is 0xC3") == true)
        let path = try temporary.file(#"{"admin": {"token": 12345}}"#)
        let number = try await Support.loadError(["--config", path])
        #expect(
            number?.description
                == "admin.token (file \(path)) = <redacted> must be a string, empty or 1...256 visible ASCII "
                + "characters (0x21...0x7E)")
    }

    @Test func helpShowsNoDefaultTokenBeyondNone() {
        let help = CommandLineOptions.helpMessage(columns: 1000)
        #expect(help.contains("--admin-token <token>"))
        #expect(help.contains("default none; env LISTSERVER_ADMIN_TOKEN"))
        #expect(!help.contains("<none>"))
    }

    @Test func tokensCompareWholly() throws {
        let token = try AdminToken(parsing: "abc")
        #expect(token.matches("abc"))
        #expect(!token.matches("abd"))
        #expect(!token.matches("ab"))
        #expect(!token.matches("abcd"))
        #expect(!AdminToken.none.matches(""))
    }

    @Test(arguments: [
        ("*", CORSOrigins.any), ("", .none), ("  ", .none),
        ("https://a.example", .only(["https://a.example"])),
        ("HTTPS://App.Example.COM:8443", .only(["https://app.example.com:8443"])),
        (
            "http://localhost:3000, https://b.example:443,http://c.example:80",
            .only(["http://localhost:3000", "https://b.example", "http://c.example"])
        ),
        ("http://127.0.0.1:8080,http://[::1]:8080", .only(["http://127.0.0.1:8080", "http://[::1]:8080"])),
    ])
    func originListsThatAreAccepted(_ text: String, _ origins: CORSOrigins) async throws {
        #expect(try CORSOrigins(parsing: text) == origins)
        #expect(try await Support.load(environment: ["LISTSERVER_CORS_ALLOW_ORIGIN": text]).corsAllowOrigin == origins)
    }

    @Test(arguments: [
        ("https://a.example/app", #""https://a.example/app" has a path (no trailing slash either)"#),
        ("https://a.example/", #""https://a.example/" has a path (no trailing slash either)"#),
        ("https://a.example?x=1", #""https://a.example?x=1" has a query or fragment"#),
        ("a.example", #""a.example" must start with http:// or https://"#),
        ("ftp://a.example", #""ftp://a.example" must start with http:// or https://"#),
        ("https://user@a.example", #""https://user@a.example" has user information"#),
        ("https://a_b.example", #""https://a_b.example" has an invalid host "a_b.example""#),
        ("https://", #""https://" has an invalid host """#),
        ("https://*.example", #""https://*.example" has an invalid host "*.example""#),
        ("http://a.example:0", #""http://a.example:0" has an invalid port "0" (1...65535)"#),
        ("http://a.example:http", #""http://a.example:http" has an invalid port "http" (1...65535)"#),
        ("https://a.example,,https://b.example", "an item of the list is empty"),
        ("https://a.example,*", #""*" must stand alone"#),
        ("https://a.example,HTTPS://A.example:443", #""HTTPS://A.example:443" is listed twice"#),
    ])
    func originListsThatAreRefusedSayWhy(_ text: String, _ reason: String) async throws {
        #expect(throws: CORSOrigins.ParseError(description: reason)) { try CORSOrigins(parsing: text) }
        let error = try await Support.loadError(["--cors-allow-origin", text])
        #expect(
            error?.description
                == #"cors.allow_origin (--cors-allow-origin) = "\#(text)" must be *, empty, or a comma-separated "#
                + "list of http(s)://host[:port]: \(reason)")
    }

    @Test func theAllowedOriginOfARequest() throws {
        let list = try CORSOrigins(parsing: "https://a.example,http://localhost:3000")
        #expect(list.allowOrigin(forRequestOrigin: "https://a.example") == "https://a.example")
        #expect(list.allowOrigin(forRequestOrigin: "http://localhost:3000") == "http://localhost:3000")
        #expect(list.allowOrigin(forRequestOrigin: "https://evil.example") == nil)
        #expect(list.allowOrigin(forRequestOrigin: nil) == nil)
        #expect(CORSOrigins.any.allowOrigin(forRequestOrigin: nil) == "*")
        #expect(CORSOrigins.none.allowOrigin(forRequestOrigin: "https://a.example") == nil)
    }
}
