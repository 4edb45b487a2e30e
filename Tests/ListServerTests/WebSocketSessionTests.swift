import Foundation
import Testing

@testable import ListServer
@testable import ListServerFuzz

/// The WebSocket framing on values (wslay through ``WebSocketSession``), no socket: what a client's frames make of
/// it, and what it sends back. The fuzzer's checks (``FuzzWebSocket``) hold for its seeds and for random input.
@Suite("WebSocket framing")
struct WebSocketSessionTests {
    /// A client's frame: masked, unless asked otherwise.
    static func frame(_ opcode: UInt8, _ payload: [UInt8], fin: Bool = true, masked: Bool = true) -> [UInt8] {
        var bytes: [UInt8] = [(fin ? 0x80 : 0) | opcode]
        let bit: UInt8 = masked ? 0x80 : 0
        if payload.count < 126 {
            bytes.append(bit | UInt8(payload.count))
        } else {
            bytes += [bit | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        }
        guard masked else { return bytes + payload }
        let mask: [UInt8] = [9, 8, 7, 6]
        return bytes + mask + payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
    }

    func receive(_ session: WebSocketSession, _ bytes: [UInt8]) -> [WebSocketSession.Received] {
        bytes.withUnsafeBytes { session.receive($0) }
    }

    @Test("text, fragmented text around a ping, and a ping answered with a pong of the same payload")
    func messages() throws {
        let session = try #require(WebSocketSession(maxMessageBytes: 4096))
        #expect(receive(session, Self.frame(1, Array("hello".utf8))) == [.text(Array("hello".utf8))])
        let fragmented =
            Self.frame(1, Array("hel".utf8), fin: false) + Self.frame(9, [7]) + Self.frame(0, Array("lo".utf8))
        // Byte by byte: frames split anywhere still make the one message.
        var got: [WebSocketSession.Received] = []
        for byte in fragmented { got += receive(session, [byte]) }
        #expect(got == [.text(Array("hello".utf8))])
        #expect(session.takeOutput() == [0x8A, 1, 7])  // the pong, unmasked, echoing the ping
        #expect(session.send(text: Array("{}".utf8)))
        #expect(session.takeOutput() == [0x81, 2] + Array("{}".utf8))
        #expect(!session.isFinished)
    }

    /// A frame the session must refuse, and the close code it answers with.
    struct BadFrame: Sendable, CustomTestStringConvertible {
        let bytes: [UInt8]
        let code: UInt16
        let testDescription: String
    }

    static let badFrames = [
        BadFrame(bytes: frame(1, [UInt8](repeating: 0x20, count: 5000)), code: 1009, testDescription: "too big"),
        BadFrame(bytes: frame(1, [0xC3, 0x28]), code: 1007, testDescription: "not UTF-8"),
        BadFrame(bytes: frame(2, [1, 2]), code: 1003, testDescription: "binary"),
        BadFrame(bytes: frame(1, Array("hi".utf8), masked: false), code: 1002, testDescription: "unmasked"),
    ]

    @Test(
        "bad input closes with its code: 1009 too big, 1007 not UTF-8, 1003 binary, 1002 unmasked",
        arguments: badFrames)
    func closes(bad: BadFrame) throws {
        let session = try #require(WebSocketSession(maxMessageBytes: 4096))
        let code = bad.code
        #expect(receive(session, bad.bytes).isEmpty)
        let output = session.takeOutput()
        #expect(output.first == 0x88, "\(output)")
        #expect(output.count >= 4 && UInt16(output[2]) << 8 | UInt16(output[3]) == code)
        #expect(!session.send(text: Array("{}".utf8)), "nothing is sent after a close")
        FuzzWebSocket.checkServerFrames(output)
    }

    @Test("the client's close is answered with its code, then the session is finished and takes nothing more")
    func closeHandshake() throws {
        let session = try #require(WebSocketSession(maxMessageBytes: 4096))
        #expect(receive(session, Self.frame(8, [0x03, 0xE8])).isEmpty)
        #expect(session.takeOutput() == [0x88, 2, 0x03, 0xE8])
        #expect(session.isFinished)
        #expect(session.closeCodeReceived == 1000)
        #expect(receive(session, Self.frame(1, Array("late".utf8))).isEmpty)
        #expect(session.takeOutput().isEmpty)
    }

    @Test("the fuzzer's seeds and 2,000 random inputs keep the fuzzer's promises")
    func fuzzSeedsAndRandomInput() throws {
        let folder = URL(fileURLWithPath: ConfigurationTestSupport.packageFile("Fuzz/corpus-websocket"))
        let seeds = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
        #expect(seeds.count >= 8)
        for seed in seeds { FuzzWebSocket.check(Array(try Data(contentsOf: seed))) }
        var random = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            // A valid frame's start, then noise: deeper than noise alone.
            let noise = (0..<Int.random(in: 0..<300, using: &random)).map { _ in
                UInt8.random(in: 0...255, using: &random)
            }
            let start = Self.frame(UInt8.random(in: 0...10, using: &random), Array(noise.prefix(20)))
            FuzzWebSocket.check([UInt8.random(in: 1...40, using: &random)] + start + noise)
        }
    }
}
