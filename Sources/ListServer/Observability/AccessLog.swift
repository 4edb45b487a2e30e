import Logging

/// One log line per answered request, at level `info`, through swift-log.
///
/// With ``SettingKey/logFormat`` `text` all of it is in the message, for people:
/// ```
/// GET /items/42/detail 200 37B 1555.912ms cache=MISS request_id=abc-1
/// ```
/// With `json` the message is short and the fields are metadata, for collectors: `method`, `path` (the
/// request-target as received), `status`, `bytes` (body bytes sent: 0 for HEAD), `duration_ms` (to the microsecond),
/// `cache` (`HIT` or `MISS` for a detail or an image, else `-`), `request_id` (the client's `X-Request-Id`, or the one the
/// server made up; the value echoed in the response) and, for an injected wire fault, `fault` (`reset`,
/// `truncated` or `hang`; status 0 means no answer was sent). In text these two are `request_id=` and `fault=`.
/// A request head the server refused never reached evhttp, so its line has `-` for method and path, and says why.
struct AccessLog: Sendable {
    /// Where the lines go.
    let logger: Logger
    /// Whether the fields go in the message (`text`) or in metadata (`json`).
    let format: LogFormat

    /// Logs an answered request.
    func log(_ exchange: RequestExchange, _ response: HTTPResponse, elapsed: Duration) {
        let request = exchange.request
        let method = request?.method.name ?? "-"
        let path = request?.target ?? "-"
        let bytes = request?.method == .head ? 0 : response.body.count
        let cache = response.headers["X-Cache"] ?? "-"
        write(
            method: method, path: path, status: response.status, bytes: bytes, elapsed: elapsed, cache: cache,
            requestID: Self.requestID(of: exchange), fault: response.fault?.name, rejection: nil)
    }

    /// Logs the answer to a refused request head (`exchange` is that of the marker request standing in for it).
    func log(_ rejection: HeadRejection, _ exchange: RequestExchange, elapsed: Duration) {
        write(
            method: "-", path: "-", status: rejection.status, bytes: rejection.response.body.count, elapsed: elapsed,
            cache: "-", requestID: Self.requestID(of: exchange), fault: nil, rejection: rejection.problem.detail)
    }

    /// The request id sent back, if any.
    private static func requestID(of exchange: RequestExchange) -> String? {
        guard let id = exchange.request?.requestID, !id.isEmpty else { return nil }
        return id
    }

    private func write(
        method: String, path: String, status: Int, bytes: Int, elapsed: Duration, cache: String, requestID: String?,
        fault: String?, rejection: String?
    ) {
        switch format {
        case .text:
            let requestIDPart = requestID.map { " request_id=\($0)" } ?? ""
            let faultPart = fault.map { " fault=\($0)" } ?? ""
            let rejectionPart = rejection.map { " rejected: \($0)" } ?? ""
            logger.info(
                """
                \(method) \(path) \(status) \(bytes)B \(Self.milliseconds(elapsed))ms cache=\(cache)\
                \(requestIDPart)\(faultPart)\(rejectionPart)
                """)
        case .json:
            logger.info(
                "\(method) \(path) \(status)",
                metadata: {
                    var fields: Logger.Metadata = [
                        "method": .string(method), "path": .string(path), "status": .stringConvertible(status),
                        "bytes": .stringConvertible(bytes),
                        "duration_ms": .stringConvertible(Double(Self.microseconds(elapsed)) / 1000),
                        "cache": .string(cache),
                    ]
                    if let requestID { fields["request_id"] = .string(requestID) }
                    if let fault { fields["fault"] = .string(fault) }
                    if let rejection { fields["rejection"] = .string(rejection) }
                    return fields
                }())
        }
    }

    /// `duration` in whole microseconds, at least 0.
    static func microseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0, attoseconds >= 0 else { return 0 }
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000)
        return overflow ? .max : whole &+ attoseconds / 1_000_000_000_000
    }

    /// `duration` in milliseconds with three decimals: `0.412`, `1555.912`, `0.000`.
    static func milliseconds(_ duration: Duration) -> String {
        let micros = microseconds(duration)
        let fraction = micros % 1000
        let padding = fraction < 10 ? "00" : fraction < 100 ? "0" : ""
        return "\(micros / 1000).\(padding)\(fraction)"
    }
}
