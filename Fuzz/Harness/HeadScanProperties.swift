import ListServer

/// What the request head scanner promises for any bytes at all, as one check that both the fuzzer (on libFuzzer's
/// inputs) and the property tests (`RequestHeadFuzzTests`, on seeded random heads) run.
///
/// The promises: the answer does not depend on how the bytes were split between calls, nor on whether the scanner
/// is fresh or was reset after a request; it never holds back more than `http.max_header_bytes` waiting for more; a
/// complete head ends in LF within the limits, with a body length within `http.max_body_bytes`, a method other than
/// CONNECT, and the same answer for the head's bytes alone; a rejection has a status the scanner documents, a
/// status line that says it, and `Connection: close`.
enum HeadScanProperties {
    /// Head limits that short inputs reach: a request line of 80 bytes, a head of 300, 6 fields, a body of 1000.
    static let smallLimits: HTTPLimits = {
        var limits = HTTPLimits.defaults
        limits.maxRequestLineBytes = 80
        limits.maxHeaderBytes = 300
        limits.maxHeaderCount = 6
        limits.maxBodyBytes = 1000
        return limits
    }()

    /// The statuses a rejection may have.
    static let rejectionStatuses: Set<Int> = [400, 405, 411, 413, 414, 431, 501, 505]

    /// The scanner's answer for `bytes` offered all at once to a fresh scanner.
    static func scanWhole(_ bytes: [UInt8], limits: HTTPLimits) -> HeadScan {
        var scanner = RequestHeadScanner(limits: limits)
        return scanner.scan(bytes.span)
    }

    /// The scanner's answer for `bytes` offered in growing prefixes, `chunk(call)` bytes longer on each call (at
    /// least one), until it answers more than ``HeadScan/needMore`` or the bytes run out.
    ///
    /// - Returns: The last answer and how many bytes had been offered when it came.
    static func scanGrowing(_ bytes: [UInt8], limits: HTTPLimits, chunk: (Int) -> Int) -> (HeadScan, offered: Int) {
        var scanner = RequestHeadScanner(limits: limits)
        var offered = 0
        var result = HeadScan.needMore
        var call = 0
        while result == .needMore && offered < bytes.count {
            offered = min(bytes.count, offered + max(1, chunk(call)))
            result = scanner.scan(bytes.span.extracting(0..<offered))
            call += 1
        }
        return (result, offered)
    }

    /// Every promise the scanner breaks on `bytes` (none, if it keeps them all), offered whole, after a reset, and
    /// in the growing prefixes `chunk` makes (see ``scanGrowing(_:limits:chunk:)``).
    static func brokenPromises(of bytes: [UInt8], limits: HTTPLimits, chunk: (Int) -> Int) -> [String] {
        var broken: [String] = []
        let whole = scanWhole(bytes, limits: limits)
        var reused = RequestHeadScanner(limits: limits)
        _ = reused.scan(Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8).span)
        reused.reset()
        let afterReset = reused.scan(bytes.span)
        if afterReset != whole {
            broken.append("after a reset the scan is \(afterReset), fresh it is \(whole)")
        }
        let (grown, _) = scanGrowing(bytes, limits: limits, chunk: chunk)
        if grown != whole {
            broken.append("in growing prefixes the scan is \(grown), whole it is \(whole)")
        }
        switch whole {
        case .needMore:
            if bytes.count > limits.maxHeaderBytes {
                broken.append("needs more after \(bytes.count) bytes, past http.max_header_bytes")
            }
        case .complete(let head):
            if head.headLength > min(bytes.count, limits.maxHeaderBytes) {
                broken.append("head length \(head.headLength) of \(bytes.count) bytes")
            } else if head.headLength < 1 || bytes[head.headLength - 1] != UInt8(ascii: "\n") {
                broken.append("a head that does not end in LF")
            }
            if !(0...max(0, limits.maxBodyBytes)).contains(head.bodyLength) {
                broken.append("body length \(head.bodyLength)")
            }
            if head.method == .connect {
                broken.append("CONNECT accepted")
            }
            if head.headLength <= bytes.count {
                let alone = scanWhole(Array(bytes[..<head.headLength]), limits: limits)
                if alone != whole {
                    broken.append("the head alone scans as \(alone)")
                }
            }
        case .reject(let rejection):
            if !rejectionStatuses.contains(rejection.status) {
                broken.append("rejection status \(rejection.status)")
            }
            if !rejection.wireBytes.starts(with: Array("HTTP/1.1 \(rejection.status) ".utf8)) {
                broken.append("a rejection whose status line does not say \(rejection.status)")
            }
            if rejection.response.headers["Connection"] != "close" {
                broken.append("a rejection that keeps the connection")
            }
        }
        return broken
    }
}
