/// The first answer to a write with an `Idempotency-Key`, as stored with the key: status, the fields a retry must
/// see again (`Content-Type`, `Location`, `ETag`) and the body.
///
/// Format: the status in decimal, `\n`, then `Name: value\n` per field, an empty line, then the body bytes. Only
/// the server writes it, so decoding is strict and a damaged record is refused rather than guessed at.
enum RecordedAnswer {
    /// The fields kept.
    static let keptFields = ["Content-Type", "Location", "ETag"]

    static func encode(_ response: HTTPResponse) -> [UInt8] {
        var text = String(response.status) + "\n"
        for name in keptFields {
            if let value = response.headers[name] { text += name + ": " + value + "\n" }
        }
        return Array((text + "\n").utf8) + response.body
    }

    static func decode(_ bytes: [UInt8]) -> HTTPResponse? {
        var lines: [String] = []
        var start = 0
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "\n") {
                if index == start {
                    break  // the empty line: the body follows
                }
                lines.append(String(decoding: bytes[start..<index], as: UTF8.self))
                start = index + 1
            }
            index += 1
        }
        guard index < bytes.count, let statusLine = lines.first, let status = Int(statusLine),
            (100...599).contains(status)
        else { return nil }
        var headers = HTTPHeaders()
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { return nil }
            headers.add(String(line[..<colon]), String(line[line.index(after: colon)...].dropFirst()))
        }
        return HTTPResponse(status: status, headers: headers, body: Array(bytes[(index + 1)...]))
    }
}
