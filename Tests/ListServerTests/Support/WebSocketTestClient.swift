import Foundation

/// A WebSocket client for the tests, framed by hand (RFC 6455 §5) over a ``RawHTTPConnection``: so that a test can
/// also send what a real client library never would (unmasked frames, invalid UTF-8, floods).
final class WebSocketTestClient: @unchecked Sendable {
    /// A frame as it came: its opcode, its payload (a close's starts with its code).
    struct Frame: Sendable, Equatable {
        var opcode: UInt8
        var payload: [UInt8]

        var text: String { String(decoding: payload, as: UTF8.self) }
        /// A close frame's status code.
        var closeCode: UInt16? {
            opcode == 8 && payload.count >= 2 ? UInt16(payload[0]) << 8 | UInt16(payload[1]) : nil
        }
        var json: [String: Any]? {
            (try? JSONSerialization.jsonObject(with: Data(payload))) as? [String: Any]
        }
    }

    static let text: UInt8 = 1
    static let binary: UInt8 = 2
    static let close: UInt8 = 8
    static let ping: UInt8 = 9
    static let pong: UInt8 = 10

    let connection: RawHTTPConnection
    /// The 101 (or the refusal) the upgrade got.
    let head: RawHTTPConnection.Response

    /// Connects and asks `target` for a WebSocket with the RFC's sample key; `head` is what came back.
    init(port: Int, _ target: String = "/items/events", headers: [String] = [], receiveBuffer: Int32? = nil) throws {
        connection = try RawHTTPConnection(port: port, receiveBuffer: receiveBuffer)
        try connection.request(
            "GET", target,
            headers: [
                "Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
                "Sec-WebSocket-Version: 13",
            ] + headers)
        head = try connection.readStreamHead()
    }

    /// Sends one frame: masked, as a client must, unless `masked` is false; `fin` false for a fragment.
    func send(opcode: UInt8, _ payload: [UInt8], masked: Bool = true, fin: Bool = true) throws {
        var frame: [UInt8] = [(fin ? 0x80 : 0) | opcode]
        let maskBit: UInt8 = masked ? 0x80 : 0
        if payload.count < 126 {
            frame.append(maskBit | UInt8(payload.count))
        } else if payload.count < 65536 {
            frame += [maskBit | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        } else {
            frame.append(maskBit | 127)
            frame += (0..<8).reversed().map { UInt8((UInt64(payload.count) >> (UInt64($0) * 8)) & 0xFF) }
        }
        if masked {
            let mask: [UInt8] = [0x37, 0xFA, 0x21, 0x3D]
            frame += mask
            frame += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        } else {
            frame += payload
        }
        try connection.write(bytes: frame)
    }

    func send(text: String) throws { try send(opcode: Self.text, Array(text.utf8)) }

    /// Sends a close with `code`.
    func close(code: UInt16) throws { try send(opcode: Self.close, [UInt8(code >> 8), UInt8(code & 0xFF)]) }

    /// The next frame from the server (they are never masked, never fragmented here).
    func readFrame() throws -> Frame {
        let first = try connection.readBytes(2)
        var length = Int(first[1] & 0x7F)
        if first[1] & 0x80 != 0 { throw TestFailure("the server masked a frame") }
        if length == 126 {
            length = try connection.readBytes(2).reduce(0) { $0 << 8 | Int($1) }
        } else if length == 127 {
            length = try connection.readBytes(8).reduce(0) { $0 << 8 | Int($1) }
        }
        return Frame(opcode: first[0] & 0x0F, payload: try connection.readBytes(length))
    }

    /// The next `count` text messages, answering pings on the way (as a client library does); a failure after 30 s
    /// (the server's pings would keep a reader waiting for a message that never comes for ever).
    func readMessages(_ count: Int) throws -> [Frame] {
        var messages: [Frame] = []
        let deadline = ContinuousClock.now + .seconds(30)
        while messages.count < count {
            guard ContinuousClock.now < deadline else {
                throw TestFailure("\(messages.count) of \(count) messages in 30 s")
            }
            let frame = try readFrame()
            switch frame.opcode {
            case Self.ping: try send(opcode: Self.pong, frame.payload)
            case Self.text: messages.append(frame)
            default: throw TestFailure("expected a text message, got opcode \(frame.opcode): \(frame.payload)")
            }
        }
        return messages
    }

    /// The next frame that is not a ping.
    func readFrameSkippingPings() throws -> Frame {
        while true {
            let frame = try readFrame()
            if frame.opcode != Self.ping { return frame }
        }
    }
}
