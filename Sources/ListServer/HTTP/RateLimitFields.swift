/// The IETF rate-limit fields of an answer (draft-ietf-httpapi-ratelimit-headers): `RateLimit-Policy:
/// "profile";q=<quota>;w=<window>` and `RateLimit: "profile";r=<remaining>;t=<reset>`.
///
/// Kept on the response as numbers and written by the transport straight into the head (`EvHTTPRequest`): made
/// as two strings in ``HTTPHeaders`` they cost some 2,000 instructions an answer (callgrind: the strings, the
/// headers' array grown, each converted back to C), a tenth of what a profile of every field added to a page.
package struct RateLimitFields: Sendable, Equatable {
    /// The requests a window allows, and the window in seconds.
    package var quota: Int
    package var window: Int
    /// The requests the client may still make now, and the seconds until it may make `quota` again.
    package var remaining: Int
    package var reset: Int

    package init(quota: Int, window: Int, remaining: Int, reset: Int) {
        self.quota = quota
        self.window = window
        self.remaining = remaining
        self.reset = reset
    }
}
