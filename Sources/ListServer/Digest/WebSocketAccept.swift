import CNettle

/// The WebSocket handshake's `Sec-WebSocket-Accept` (RFC 6455 §4.2.2): Base64 of the SHA-1 of the client's key and
/// the protocol's fixed GUID, both from Nettle (the Digest/ room alone imports it). It proves only that the server
/// read the key, not anything about security.
enum WebSocketAccept {
    /// RFC 6455's GUID, appended to the key.
    private static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// The accept value for `key`, the client's `Sec-WebSocket-Key` as sent.
    static func value(for key: String) -> String {
        var context = sha1_ctx()
        nettle_sha1_init(&context)
        let input = Array((key + guid).utf8)
        input.withUnsafeBufferPointer { nettle_sha1_update(&context, $0.count, $0.baseAddress) }
        var digest = [UInt8](repeating: 0, count: Int(SHA1_DIGEST_SIZE))
        nettle_sha1_digest(&context, digest.count, &digest)
        // BASE64_ENCODE_RAW_LENGTH(20) is 28; Nettle writes the characters as `char`.
        var encoded = [CChar](repeating: 0, count: 28)
        digest.withUnsafeBufferPointer { nettle_base64_encode_raw(&encoded, $0.count, $0.baseAddress) }
        return String(decoding: encoded.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether `key` is a valid `Sec-WebSocket-Key`: the Base64 of 16 bytes (24 characters, ending in `==`).
    static func isValidKey(_ key: String) -> Bool {
        var context = base64_decode_ctx()
        nettle_base64_decode_init(&context)
        let input = Array(key.utf8)
        guard input.count == 24 else { return false }
        var decoded = [UInt8](repeating: 0, count: 18)
        var length = decoded.count
        let ok = input.withUnsafeBufferPointer { source in
            source.withMemoryRebound(to: CChar.self) {
                nettle_base64_decode_update(&context, &length, &decoded, $0.count, $0.baseAddress)
            }
        }
        return ok == 1 && nettle_base64_decode_final(&context) == 1 && length == 16
    }
}
