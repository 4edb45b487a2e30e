/// What the server allows one client connection: sizes of a request, open connections, and deadlines.
///
/// Read from the `http.*` limit keys and ``SettingKey/maxUploadBytes`` by
/// ``Settings/load(options:environment:activeProcessorCount:)``, which guarantees every value is within the range of
/// its ``SettingKey`` and `maxRequestLineBytes <= maxHeaderBytes`. The request head limits are enforced by
/// ``RequestHeadScanner`` before evhttp sees a byte; the others by the LibEvent layer. Tests may build one directly
/// and change single fields: `var limits = HTTPLimits(); limits.maxHeaderCount = 3`.
package struct HTTPLimits: Sendable, Equatable {
    /// ``SettingKey/maxRequestLineBytes``: the longest request line (method, target and version, without its line
    /// ending) a client may send; a longer one gets 414.
    package var maxRequestLineBytes = 8192

    /// ``SettingKey/maxHeaderBytes``: the longest request head, counted as ``RequestHead/headLength`` counts it (any
    /// empty lines before the request line, the request line, every header line and every line ending, including the
    /// final empty line); a longer one gets 431.
    package var maxHeaderBytes = 16_384

    /// ``SettingKey/maxHeaderCount``: the most header fields a request may have; one more gets 431.
    package var maxHeaderCount = 100

    /// ``SettingKey/maxBodyBytes``: the largest `Content-Length` accepted; a larger one gets 413 before any body is
    /// read.
    package var maxBodyBytes = 65_536

    /// ``SettingKey/imageMaxUploadBytes``: the largest `Content-Length` of an image upload (`PUT /items/<id>/image`),
    /// which ``maxBodyBytes`` does not limit; a larger one gets 413 before any body is read.
    package var maxUploadBytes = 10_485_760

    /// The largest body any request may have: what evhttp is told, as a backstop behind the head scanner.
    var largestBody: Int { max(maxBodyBytes, maxUploadBytes) }

    /// ``SettingKey/maxConnections``: the most client connections open at once.
    var maxConnections = 2_048

    /// ``SettingKey/headerTimeoutMs``: how long a client has for a whole request head, from its first byte (or from the
    /// end of the previous response); past it the client gets 408 and the connection is closed.
    var headerTimeout = Duration.milliseconds(10_000)

    /// ``SettingKey/idleTimeoutMs``: how long a keep-alive connection may sit idle between requests before it is
    /// closed.
    var idleTimeout = Duration.milliseconds(60_000)

    /// ``SettingKey/writeTimeoutMs``: how long a client may take to read a response before it is dropped.
    var writeTimeout = Duration.milliseconds(30_000)

    /// ``SettingKey/bodyTimeoutMs``: how long a client has for a whole request body, from the end of its head; past it
    /// the client gets 408 and the connection is closed.
    var bodyTimeout = Duration.milliseconds(10_000)

    /// ``SettingKey/minBodyRate``: the slowest a body may arrive, in bytes a second, on average since its head, once
    /// its first second is over; slower gets 408 and the connection is closed. 0: no minimum.
    var minBodyRate = 8_192

    /// ``SettingKey/reservedConnections``: connections accepted beyond ``maxConnections``, for `/healthz`, `/readyz`,
    /// `/metrics` and `/admin/*` alone, so that a probe or an operator gets in while clients hold every other one.
    var reservedConnections = 16

    /// ``SettingKey/maxOutputBytes``: what the answers queued on all connections and not yet taken by the kernel may
    /// hold together (each loop keeps its share); past it, the connection furthest behind is closed.
    var maxOutputBytes = 67_108_864
}

extension Duration {
    /// This duration in whole milliseconds, rounded toward zero and clamped to `Int`: how `*_ms` settings show it.
    var wholeMilliseconds: Int {
        let (seconds, attoseconds) = components
        let (milliseconds, overflow) = Int(clamping: seconds).multipliedReportingOverflow(by: 1000)
        guard !overflow else { return seconds < 0 ? .min : .max }
        let (total, overflowAgain) = milliseconds.addingReportingOverflow(Int(attoseconds / 1_000_000_000_000_000))
        return overflowAgain ? (seconds < 0 ? .min : .max) : total
    }
}

extension HTTPLimits {
    /// The defaults above, for the package's other targets (the synthesized `init()` is internal).
    package static let defaults = HTTPLimits()
}
