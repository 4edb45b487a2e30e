import Foundation
import Logging
import Testing

@testable import ListServer

/// An error with a recognisable type name, for the error metadata.
struct SampleFailure: Error, CustomStringConvertible {
    var description: String { "the sample failed" }
}

/// The JSON lines handler, the access log's formatting and the buffered writer.
@Suite("Logging: JSON lines, access log lines and the buffered writer")
struct LoggingTests {
    /// `line` parsed as a JSON object (a thrown ``TestFailure`` if it is not one).
    static func object(_ line: String) throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            throw TestFailure("not a JSON object: \(line)")
        }
        return object
    }

    @Test("each event is one line holding one JSON object: timestamp, level, label, message, metadata")
    func jsonLines() throws {
        let log = CapturedLog()
        var logger = log.logger("ListServer.test", format: .json, level: .debug)
        logger[metadataKey: "instance"] = "a"
        logger.debug("starting")
        logger.info(
            "with \"quotes\", a\nnewline, a tab\t, a bell \u{7}, é and 🙂",
            metadata: [
                "status": .stringConvertible(200), "duration_ms": .stringConvertible(0.412),
                "path": "/items?page=1&limit=2", "nested": ["list": [.stringConvertible(1), "two"]],
                "instance": "b", "infinite": .stringConvertible(Double.infinity),
            ])
        logger.trace("not written: below the level")
        logger.error("failed", error: SampleFailure())
        let lines = log.lines
        #expect(lines.count == 3)
        #expect(log.text.hasSuffix("}\n"))
        let objects = try lines.map(Self.object)
        for object in objects {
            #expect(Set(object.keys) == ["timestamp", "level", "label", "message", "metadata"])
            #expect(object["label"] as? String == "ListServer.test")
            let timestamp = try #require(object["timestamp"] as? String)
            #expect(timestamp.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/) != nil, "\(timestamp)")
        }
        #expect(objects.map { $0["level"] as? String } == ["debug", "info", "error"])
        #expect(objects[0]["message"] as? String == "starting")
        #expect((objects[0]["metadata"] as? [String: Any])?["instance"] as? String == "a")
        #expect(objects[1]["message"] as? String == "with \"quotes\", a\nnewline, a tab\t, a bell \u{7}, é and 🙂")
        #expect(lines[1].contains(#"\n"#) && lines[1].contains(#"\u0007"#) && !lines[1].contains("\t"))
        let metadata = try #require(objects[1]["metadata"] as? [String: Any])
        #expect(metadata["status"] as? Int == 200)
        #expect(metadata["duration_ms"] as? Double == 0.412)
        #expect(metadata["path"] as? String == "/items?page=1&limit=2")
        #expect(metadata["instance"] as? String == "b")  // the event's metadata wins
        #expect(metadata["infinite"] as? String == "inf")
        let nested = try #require(metadata["nested"] as? [String: Any])
        #expect((nested["list"] as? [Any])?.first as? Int == 1)
        #expect((nested["list"] as? [Any])?.last as? String == "two")
        #expect(lines[1].contains(#""metadata":{"duration_ms":0.412,"infinite":"inf","instance":"b","nested""#))
        let errorMetadata = try #require(objects[2]["metadata"] as? [String: Any])
        #expect(errorMetadata["error.message"] as? String == "the sample failed")
        #expect((errorMetadata["error.type"] as? String)?.hasSuffix("SampleFailure") == true)
    }

    @Test(
        "timestamps are UTC ISO 8601 with milliseconds, across leap days and before 1970",
        arguments: [
            (0.0, "1970-01-01T00:00:00.000Z"), (951_782_400.5, "2000-02-29T00:00:00.500Z"),
            (1_795_000_000.123, "2026-11-18T11:06:40.123Z"), (-1.0, "1969-12-31T23:59:59.000Z"),
            (4_107_542_399.999, "2100-02-28T23:59:59.999Z"),
        ])
    func timestamps(seconds: Double, expected: String) {
        #expect(JSONLinesLogHandler.timestamp(Date(timeIntervalSince1970: seconds)) == expected)
    }

    @Test("text lines are swift-log's StreamLogHandler lines")
    func textLines() {
        let log = CapturedLog()
        let logger = log.logger("ListServer", format: .text)
        logger.info("listening on 127.0.0.1:8080")
        #expect(log.lines.count == 1)
        // `<timestamp> <level> <label>: [<source module>] <message>`
        #expect(
            log.text.wholeMatch(of: /\S+ info ListServer: \[\w+\] listening on 127\.0\.0\.1:8080\n/) != nil,
            "\(log.text)")
    }

    @Test(
        "durations in the access log are milliseconds to the microsecond",
        arguments: [
            (Duration.zero, "0.000"), (.microseconds(412), "0.412"), (.nanoseconds(1_999), "0.001"),
            (.milliseconds(1555) + .microseconds(912), "1555.912"), (.seconds(-1), "0.000"),
            (.microseconds(50), "0.050"),
        ])
    func accessLogMilliseconds(duration: Duration, expected: String) {
        #expect(AccessLog.milliseconds(duration) == expected)
    }

    @Test("the buffered writer writes every line, in order, once flushed")
    func bufferedWriter() throws {
        let pipe = Pipe()
        let writer = BufferedLogWriter(descriptor: pipe.fileHandleForWriting.fileDescriptor)
        for index in 0..<1000 { writer.write("line \(index)\n") }
        writer.flush()
        try pipe.fileHandleForWriting.close()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(text == (0..<1000).map { "line \($0)\n" }.joined())
    }

    @Test("past its capacity the writer drops lines and then says how many")
    func droppedLines() throws {
        let pipe = Pipe()
        let writer = BufferedLogWriter(
            descriptor: pipe.fileHandleForWriting.fileDescriptor, capacity: 0, droppedNotice: { "dropped \($0)\n" })
        for _ in 0..<3 { writer.write("never written\n") }
        writer.flush()
        try pipe.fileHandleForWriting.close()
        #expect(String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) == "dropped 3\n")
        let notice = LogOutput.droppedNotice(3, format: .json)
        let object = try Self.object(String(notice.dropLast()))
        #expect(object["level"] as? String == "warning")
        #expect(object["message"] as? String == "3 log lines dropped: standard error did not keep up")
        #expect(
            LogOutput.droppedNotice(3, format: .text).contains(" warning ListServer: [ListServer] 3 log lines dropped"))
    }
}
