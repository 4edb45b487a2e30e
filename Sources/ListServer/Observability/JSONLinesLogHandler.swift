import FoundationEssentials
import Glibc
import ListDomain
import Logging

/// A swift-log handler that writes one JSON object per line, for log collectors (``SettingKey/logFormat`` `json`):
///
/// ```
/// {"timestamp":"2026-03-02T10:00:00.123Z","level":"info","label":"ListServer.access","message":"GET /items 200",
/// "metadata":{"bytes":289,"status":200,…}}
/// ```
/// (one line). `timestamp` is UTC with milliseconds; `metadata` merges the handler's own, its provider's and the
/// event's (the event wins), and an error given to the logger becomes `error.message` and `error.type`. Metadata
/// keys come out sorted; strings are JSON strings, arrays and dictionaries nest, and a value logged with
/// `.stringConvertible` is a JSON number when it is an integer or a finite floating-point number, else a string.
struct JSONLinesLogHandler: LogHandler {
    /// The logger's label.
    let label: String
    private let stream: any TextOutputStream & Sendable

    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?

    /// Creates a handler writing to `stream`, one `write` per line (newline included).
    init(label: String, stream: any TextOutputStream & Sendable, metadataProvider: Logger.MetadataProvider? = nil) {
        self.label = label
        self.stream = stream
        self.metadataProvider = metadataProvider
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var merged: Logger.Metadata
        if metadata.isEmpty && metadataProvider == nil, let explicit = event.metadata {
            merged = explicit  // the usual case, and no copy
        } else {
            merged = metadata
            if let provided = metadataProvider?.get() { merged.merge(provided) { $1 } }
            if let explicit = event.metadata { merged.merge(explicit) { $1 } }
        }
        if let error = event.error {
            merged["error.message"] = .string("\(error)")
            merged["error.type"] = .string(String(reflecting: type(of: error)))
        }
        var line = JSONLineWriter()
        line.raw("{\"timestamp\":\"")
        line.timestamp(Date())
        line.raw("\",\"level\":")
        line.string(event.level.rawValue)
        line.raw(",\"label\":")
        line.string(label)
        line.raw(",\"message\":")
        line.string(event.message.description)
        line.raw(",\"metadata\":")
        line.value(.dictionary(merged))
        line.raw("}\n")
        var stream = stream
        stream.write(line.text)
    }

    /// `date` as ISO 8601 in UTC with milliseconds: `2026-03-02T10:00:00.123Z`.
    static func timestamp(_ date: Date) -> String {
        var line = JSONLineWriter()
        line.timestamp(date)
        return line.text
    }
}

/// Builds one JSON line as bytes.
struct JSONLineWriter {
    private(set) var bytes: [UInt8] = []

    init() {
        bytes.reserveCapacity(256)
    }

    /// The line so far.
    var text: String { String(decoding: bytes, as: UTF8.self) }

    /// Appends JSON text as it is.
    mutating func raw(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }

    /// Appends `date` as ISO 8601 in UTC with milliseconds, `2026-03-02T10:00:00.123Z`, digit by digit.
    mutating func timestamp(_ date: Date) {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        let (days, dayMilliseconds) = milliseconds.quotientAndRemainder(dividingBy: 86_400_000)
        let (day, millisecond) =
            dayMilliseconds < 0 ? (days - 1, dayMilliseconds + 86_400_000) : (days, dayMilliseconds)
        let (year, month, dayOfMonth) = CivilDate.of(daysSince1970: day)
        let seconds = millisecond / 1000
        digits(year, width: 4, then: "-")
        digits(month, width: 2, then: "-")
        digits(dayOfMonth, width: 2, then: "T")
        digits(seconds / 3600, width: 2, then: ":")
        digits(seconds / 60 % 60, width: 2, then: ":")
        digits(seconds % 60, width: 2, then: ".")
        digits(millisecond % 1000, width: 3, then: "Z")
    }

    /// Appends `value` (at least 0) in decimal, zero-padded to `width` digits, then `separator`.
    private mutating func digits(_ value: Int64, width: Int, then separator: Unicode.Scalar) {
        var divisor: Int64 = 1
        var count = 1
        while count < width || value / divisor >= 10 {
            divisor *= 10
            count += 1
        }
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
            divisor /= 10
        }
        bytes.append(UInt8(ascii: separator))
    }

    /// Appends `text` as a JSON string: quoted, with `"`, `\` and control characters escaped (RFC 8259 §7).
    mutating func string(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): raw("\\\"")
            case UInt8(ascii: "\\"): raw("\\\\")
            case UInt8(ascii: "\n"): raw("\\n")
            case UInt8(ascii: "\r"): raw("\\r")
            case UInt8(ascii: "\t"): raw("\\t")
            case 0..<0x20, 0x7F:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Appends a metadata value: a string, a number, an array or an object (keys sorted).
    mutating func value(_ value: Logger.Metadata.Value) {
        switch value {
        case .string(let text):
            string(text)
        case .stringConvertible(let convertible):
            if let number = Self.number(convertible) {
                raw(number)
            } else {
                string(convertible.description)
            }
        case .array(let elements):
            bytes.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                self.value(element)
            }
            bytes.append(UInt8(ascii: "]"))
        case .dictionary(let dictionary):
            bytes.append(UInt8(ascii: "{"))
            for (index, key) in dictionary.keys.sorted().enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                string(key)
                bytes.append(UInt8(ascii: ":"))
                self.value(dictionary[key]!)
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    /// The JSON number for an integer or a finite floating-point value; nil for anything else.
    private static func number(_ value: any CustomStringConvertible & Sendable) -> String? {
        switch value {
        case let integer as any BinaryInteger: integer.description
        case let double as Double where double.isFinite: double.description
        case let float as Float where float.isFinite: Double(float).description
        default: nil
        }
    }
}
