import ListDomain

/// One fuzz input, decoded from libFuzzer's bytes: `selector` then the payload.
///
/// The selector byte's low nibble, modulo 3, picks the entry; bit 4 picks the catalog, bit 5 the head limits:
///
/// | selector | entry | payload |
/// |---|---|---|
/// | `0x00` | ``Entry/target`` | a request-target as evhttp hands it over (up to the first NUL) |
/// | `0x01` | ``Entry/route`` | a method byte, `target` up to the first LF, `Name: value` lines, an empty line, a body |
/// | `0x02` | ``Entry/head`` | the raw bytes of a request head (and maybe more) as a client sends them |
/// | `+0x10` | | routes against a catalog of 2^53 items and `paging.max_limit` 10000 |
/// | `+0x20` | | scans heads with small limits (request line 80 bytes, head 300, 6 fields, body 1000) |
///
/// An empty input is the target entry with an empty payload.
///
/// The other entries, a body or a file each, are fuzzed on their own (`scripts/fuzz.sh` runs each with a corpus of its
/// own): the environment variable `LISTSERVER_FUZZ_ENTRY` names one (`json`, `patch`, `jpeg`, `png`, `webp`, `websocket`), and then
/// the whole input is its payload, without a selector byte.
struct FuzzInput: Sendable {
    /// What the payload is fed to.
    enum Entry: Sendable {
        /// Request-target parsing alone: ``RequestTarget``, its segments and query items, ``PageQuery``.
        case target
        /// Routing a request value built from the payload's method byte, target and header lines.
        case route
        /// A raw request head through ``RequestHeadScanner`` (whole and byte by byte); a head it accepts is then
        /// split into a request value (``FuzzText/naiveHead(_:)``) and routed, as evhttp would after the scanner.
        case head
        /// A write's body: the strict JSON parser and the item fields (``FuzzBodies/checkJSON(_:)``).
        case json
        /// A `PATCH` body applied to a list as a merge patch (``FuzzBodies/checkPatch(_:)``).
        case patch
        /// An uploaded file of this format, inspected as an upload is (``FuzzImages``).
        case image(ImageFormat)
        /// A WebSocket client's bytes after the upgrade, through the server's framing (``FuzzWebSocket``).
        case webSocket

        /// The entry `LISTSERVER_FUZZ_ENTRY` names, or nil for the request pipeline (the selector byte's).
        init?(named name: String?) {
            switch name {
            case "json": self = .json
            case "patch": self = .patch
            case "jpeg": self = .image(.jpeg)
            case "png": self = .image(.png)
            case "webp": self = .image(.webp)
            case "websocket": self = .webSocket
            default: return nil
            }
        }
    }

    let entry: Entry
    /// Whether to use the 2^53-item catalog (overflow edges) instead of the default 10,000 items.
    let hugeCatalog: Bool
    /// Whether to scan heads with limits small enough for short inputs to reach.
    let smallLimits: Bool
    let payload: ArraySlice<UInt8>

    init(_ bytes: [UInt8], entry forced: Entry? = nil) {
        if let forced {
            entry = forced
            hugeCatalog = false
            smallLimits = false
            payload = bytes[...]
            return
        }
        let selector = bytes.first ?? 0
        switch (selector & 0x0F) % 3 {
        case 0: entry = .target
        case 1: entry = .route
        default: entry = .head
        }
        hugeCatalog = selector & 0x10 != 0
        smallLimits = selector & 0x20 != 0
        payload = bytes.dropFirst()
    }
}
