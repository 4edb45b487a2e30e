import ListServer

/// A WebSocket client's bytes after the upgrade, through the server's framing (``WebSocketSession``: wslay), fed in
/// chunks of the size the first byte gives (frames split anywhere, as TCP may split them). Promised:
/// - no crash, and every message handed on is UTF-8 text of at most the limit (4,096 bytes);
/// - everything the server sends back parses as its own frames: unmasked, whole (FIN), a pong or a close, a
///   control payload of at most 125 bytes, a close's code one RFC 6455 lets an endpoint send, and nothing after it;
/// - once the session is finished (both closes exchanged), it takes nothing more and sends nothing more.
enum FuzzWebSocket {
    static let limit = 4096

    static func check(_ bytes: [UInt8]) {
        guard let session = WebSocketSession(maxMessageBytes: limit) else { return }
        let chunk = max(1, Int(bytes.first ?? 1))
        var rest = bytes.dropFirst()
        var output: [UInt8] = []
        while !rest.isEmpty {
            let part = Array(rest.prefix(chunk))
            rest = rest.dropFirst(chunk)
            let finished = session.isFinished
            let messages = part.withUnsafeBytes { session.receive($0) }
            FuzzCheck.require(!finished || messages.isEmpty, "a finished session handed on a message")
            for case .text(let text) in messages {
                FuzzCheck.require(text.count <= limit, "a message of \(text.count) bytes, over the limit")
                FuzzCheck.require(String(validating: text, as: UTF8.self) != nil, "a message that is not UTF-8")
            }
            let sent = session.takeOutput()
            FuzzCheck.require(!finished || sent.isEmpty, "a finished session sent \(sent.count) bytes")
            output += sent
        }
        checkServerFrames(output)
    }

    /// `bytes` are whole server frames: pongs and at most one close, last.
    static func checkServerFrames(_ bytes: [UInt8]) {
        var position = 0
        var closed = false
        while position < bytes.count {
            FuzzCheck.require(!closed, "a frame after the close")
            FuzzCheck.require(bytes.count - position >= 2, "a frame cut short")
            let first = bytes[position]
            let second = bytes[position + 1]
            FuzzCheck.require(first & 0x80 != 0 && first & 0x70 == 0, "a fragment, or reserved bits: \(first)")
            FuzzCheck.require(second & 0x80 == 0, "a masked server frame")
            let length = Int(second & 0x7F)
            FuzzCheck.require(length <= 125, "a control frame of \(length) bytes")
            FuzzCheck.require(bytes.count - position - 2 >= length, "a payload cut short")
            let payload = bytes[(position + 2)..<(position + 2 + length)]
            switch first & 0x0F {
            case 0xA:
                break  // a pong, echoing the ping
            case 0x8:
                closed = true
                if length >= 2 {
                    let code = UInt16(payload[payload.startIndex]) << 8 | UInt16(payload[payload.startIndex + 1])
                    // Ours, or the client's echoed (any code RFC 6455 §7.4 lets an endpoint send); never 1004-1006,
                    // which no frame may carry.
                    FuzzCheck.require(
                        (1000...1003).contains(code) || (1007...1011).contains(code) || (3000...4999).contains(code),
                        "a close with code \(code)")
                } else {
                    FuzzCheck.require(length == 0, "a close of one byte")
                }
            default:
                FuzzCheck.require(false, "a server frame of opcode \(first & 0x0F)")
            }
            position += 2 + length
        }
    }
}
