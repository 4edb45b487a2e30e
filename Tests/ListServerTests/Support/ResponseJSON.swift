import Foundation

@testable import ListServer

/// A response body read as a JSON object, the one way tests here read a body as `[String: Any]`: router
/// responses (``HTTPResponse/jsonObject``) and responses off the wire (``RawHTTPConnection/Response/jsonObject()``).
///
/// - Throws: ``TestFailure`` quoting the body when it is not a JSON object.
func parseJSONObject(_ body: [UInt8]) throws -> [String: Any] {
    guard let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] else {
        throw TestFailure("body is not a JSON object: \(String(decoding: body, as: UTF8.self))")
    }
    return object
}

extension HTTPResponse {
    /// The body parsed as a JSON object, or nil.
    var jsonObject: [String: Any]? { try? parseJSONObject(body) }
}

extension RawHTTPConnection.Response {
    /// The body as a JSON object (fails the caller's expectation with a thrown error otherwise).
    func jsonObject() throws -> [String: Any] { try parseJSONObject(body) }
}

/// A JSON number as UInt64 (our bodies hold no booleans, which would also read as NSNumber 0 or 1).
func uint64(_ value: Any?) -> UInt64? {
    (value as? NSNumber)?.uint64Value
}
