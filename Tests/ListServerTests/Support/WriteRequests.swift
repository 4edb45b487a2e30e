import Foundation

@testable import ListServer

/// One request with a body on a fresh connection, off the pool: `Content-Length` is added, and `Content-Type`
/// when `contentType` is not nil.
func send(
    port: Int, _ method: String, _ target: String, json body: String = "",
    contentType: String? = "application/json", headers: [String] = []
) async throws -> RawHTTPConnection.Response {
    try await offPool {
        let connection = try RawHTTPConnection(port: port)
        var lines = headers + ["Content-Length: \(body.utf8.count)"]
        if let contentType { lines.append("Content-Type: \(contentType)") }
        var text = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for line in lines { text += line + "\r\n" }
        try connection.write(text + "\r\n" + body)
        return try connection.readResponse()
    }
}

/// `count` POSTs to `/items` with `label`, one after the other on one keep-alive connection, off the pool (what
/// fills a stalled subscriber's buffers).
func postLabels(port: Int, _ label: String, count: Int) async throws {
    try await offPool {
        let connection = try RawHTTPConnection(port: port)
        let body = #"{"label":"\#(label)"}"#
        for _ in 0..<count {
            try connection.write(
                "POST /items HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                    + "Content-Length: \(body.utf8.count)\r\n\r\n" + body)
            _ = try connection.readResponse()
        }
    }
}

/// A fresh temporary folder, removed by `body`'s end.
func withTemporaryFolder<T>(_ body: (String) async throws -> T) async throws -> T {
    let path = NSTemporaryDirectory() + "listserver-test-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try await body(path)
}
