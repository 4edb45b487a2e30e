import ListServer

extension ListBenchmarks {
    /// A `wrk`-style head (91 bytes), the POST head of the write benchmark's `writes.lua` (98 bytes) and a
    /// browser-style head (about 310 bytes), as the load tests send them.
    static let heads: [(name: String, bytes: [UInt8])] = [
        (
            "wrk-style head, 91 bytes",
            Array("GET /items?page=37&limit=20 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nConnection: keep-alive\r\n\r\n".utf8)
        ),
        (
            "wrk POST head, 98 bytes",
            Array(
                ("POST /items HTTP/1.1\r\nHost: 127.0.0.1:8791\r\nContent-Type: application/json\r\n"
                    + "Content-Length: 40\r\n\r\n").utf8)
        ),
        (
            "browser-style head, 310 bytes",
            Array(
                ("GET /items/42/detail HTTP/1.1\r\nHost: localhost:8080\r\nUser-Agent: Mozilla/5.0 (X11; Linux x86_64) "
                    + "AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36\r\nAccept: application/json\r\n"
                    + "Accept-Language: en-US,en;q=0.9\r\nAccept-Encoding: gzip, deflate, br\r\nOrigin: http://localhost:3000"
                    + "\r\nReferer: http://localhost:3000/\r\nConnection: keep-alive\r\n\r\n").utf8)
        ),
    ]

    /// The request head scanner on whole heads, as the connection filter calls it for a head that arrived at once.
    static func scannerBenchmarks(_ harness: inout Harness) {
        for head in heads {
            harness.measure("RequestHeadScanner.scan, \(head.name)", iterations: 1_000_000) { count in
                var scanner = RequestHeadScanner(limits: .defaults)
                var checksum: UInt64 = 0
                for _ in 0..<count {
                    scanner.reset()
                    if case .complete(let request) = scanOnce(&scanner, head.bytes) {
                        checksum &+= UInt64(request.headLength)
                    }
                }
                return checksum
            }
        }
    }
}
