import ListDomain
import Testing

@testable import ListServer
@testable import ListServerFuzz

/// Feeds request heads to a ``RequestHeadScanner`` the ways the filter can: all at once, one byte at a time, and in
/// random chunks; every test of the scanner goes through ``scan(_:limits:sourceLocation:)``, which checks the three
/// agree.
enum HeadFeeder {
    /// Scans `bytes` offered all at once (``HeadScanProperties/scanWhole(_:limits:)``, which the fuzzer uses too).
    static func allAtOnce(_ bytes: [UInt8], limits: HTTPLimits) -> HeadScan {
        HeadScanProperties.scanWhole(bytes, limits: limits)
    }

    /// Offers growing prefixes of `bytes`, `step` bytes longer each time, until the scan ends or the bytes run out
    /// (``HeadScanProperties/scanGrowing(_:limits:chunk:)``, with `step` drawing from a generator seeded by the length).
    ///
    /// - Returns: The last result and how many bytes had been offered when it came.
    static func growing(_ bytes: [UInt8], limits: HTTPLimits, step: (inout SplitMix64) -> Int) -> (HeadScan, Int) {
        var random = SplitMix64(seed: UInt64(bytes.count))
        return HeadScanProperties.scanGrowing(bytes, limits: limits) { _ in step(&random) }
    }

    /// Scans `bytes` all at once, one byte at a time and in random chunks, expecting the same result each way.
    ///
    /// A one-byte-at-a-time scan must also end after the same byte as the whole one: a terminal result as soon as
    /// its last byte is offered.
    @discardableResult
    static func scan(
        _ bytes: [UInt8],
        limits: HTTPLimits = HTTPLimits(),
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> HeadScan {
        let whole = allAtOnce(bytes, limits: limits)
        let (byteByByte, offered) = growing(bytes, limits: limits) { _ in 1 }
        #expect(byteByByte == whole, "one byte at a time", sourceLocation: sourceLocation)
        let (chunked, _) = growing(bytes, limits: limits) { Int($0.next() % 13) }
        #expect(chunked == whole, "in random chunks", sourceLocation: sourceLocation)
        if case .complete(let head) = whole {
            #expect(
                offered == head.headLength, "complete as soon as its last byte came", sourceLocation: sourceLocation)
        }
        return whole
    }

    /// Scans `text` (UTF-8) as ``scan(_:limits:sourceLocation:)`` does.
    @discardableResult
    static func scan(
        _ text: String,
        limits: HTTPLimits = HTTPLimits(),
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> HeadScan {
        scan(Array(text.utf8), limits: limits, sourceLocation: sourceLocation)
    }

    /// The head that `text` scans to, or nil (and a failed expectation) if it does not complete.
    @discardableResult
    static func head(
        _ text: String,
        limits: HTTPLimits = HTTPLimits(),
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> RequestHead? {
        let result = scan(text, limits: limits, sourceLocation: sourceLocation)
        guard case .complete(let head) = result else {
            Issue.record("expected a complete head, got \(result)", sourceLocation: sourceLocation)
            return nil
        }
        return head
    }

    /// The rejection that `bytes` scan to, expecting `status`; nil (and a failed expectation) if not rejected.
    @discardableResult
    static func rejection(
        _ bytes: [UInt8],
        status: Int,
        limits: HTTPLimits = HTTPLimits(),
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> HeadRejection? {
        let result = scan(bytes, limits: limits, sourceLocation: sourceLocation)
        guard case .reject(let rejection) = result else {
            Issue.record("expected a \(status) rejection, got \(result)", sourceLocation: sourceLocation)
            return nil
        }
        #expect(rejection.status == status, "\(rejection.problem.detail)", sourceLocation: sourceLocation)
        return rejection
    }

    /// The rejection that `text` (UTF-8) scans to, expecting `status`.
    @discardableResult
    static func rejection(
        _ text: String,
        status: Int,
        limits: HTTPLimits = HTTPLimits(),
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> HeadRejection? {
        rejection(Array(text.utf8), status: status, limits: limits, sourceLocation: sourceLocation)
    }
}
