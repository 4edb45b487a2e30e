/// The content codings ListServer compresses response bodies with (RFC 9110 §8.4.1), and which one a request's
/// `Accept-Encoding` prefers.
///
/// Chosen by measurement on the pages ListServer sends (Benchmarks/compression, BENCHMARKS.md "Compressed JSON:
/// which library"): Zstandard at level 1 is the fastest and smallest, libdeflate's gzip at level 1 the fastest gzip
/// (zlib a third slower); brotli at a level that compresses as well took four times as long, so `br` is not offered.
package enum ContentCoding: Sendable, Equatable {
    case gzip
    case zstd

    /// The coding's name in `Content-Encoding`.
    package var name: String {
        switch self {
        case .gzip: "gzip"
        case .zstd: "zstd"
        }
    }

    /// What an entity tag of this coding's representation ends with inside its quotes: `"v1-ab12"` is
    /// `"v1-ab12-gzip"` gzipped (as Apache's mod_deflate spells it), so a cache never takes one coding's bytes for
    /// another's.
    var tagSuffix: String { "-" + name }

    /// The smallest body worth compressing: below a kilobyte the coding's header and the CPU cost more than the bytes
    /// saved.
    package static let minimumBodyBytes = 1_024

    /// The largest body compressed: the compression runs on the event loop, and a body of 256 KiB takes about a
    /// millisecond at level 1, longer than any page (100 items are 22 KB). Larger ones (the OpenAPI document, which
    /// a client reads once) go as they are.
    package static let maximumBodyBytes = 262_144

    /// The coding `acceptEncoding` (a request's `Accept-Encoding` value) prefers among ListServer's: the highest
    /// `q`, Zstandard before gzip when they tie (smaller and faster); nil when it accepts neither, or has none.
    ///
    /// `x-gzip` is gzip (RFC 9110 §8.4.1.3); `*` stands for every coding it does not name; `q=0` refuses one.
    package static func preferred(_ acceptEncoding: String?, offering: [ContentCoding] = [.zstd, .gzip])
        -> ContentCoding?
    {
        guard let acceptEncoding, !acceptEncoding.isEmpty else { return nil }
        var gzip: Double?
        var zstd: Double?
        var any: Double?
        for member in acceptEncoding.split(separator: ",") {
            let parts = member.split(separator: ";")
            guard let token = parts.first?.trimmingSpaces().lowercased(), !token.isEmpty else { continue }
            var weight = 1.0
            for parameter in parts.dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1)
                guard pair.count == 2, pair[0].trimmingSpaces().lowercased() == "q" else { continue }
                weight = Double(pair[1].trimmingSpaces()).map { min(1, max(0, $0)) } ?? 0
            }
            switch token {
            case "gzip", "x-gzip": gzip = max(gzip ?? 0, weight)
            case "zstd": zstd = max(zstd ?? 0, weight)
            case "*": any = weight
            default: continue
            }
        }
        let zstdWeight = offering.contains(.zstd) ? zstd ?? any ?? 0 : 0
        let gzipWeight = offering.contains(.gzip) ? gzip ?? any ?? 0 : 0
        if zstdWeight > 0, zstdWeight >= gzipWeight { return .zstd }
        return gzipWeight > 0 ? .gzip : nil
    }

    /// `conditional` (an `If-None-Match` or `If-Match` value) with this coding's suffix taken off every entity tag
    /// that has it, so that those name the representation the router's tags name; another coding's keep theirs.
    func strippingSuffix(from conditional: String) -> String {
        conditional.replacing(tagSuffix + "\"", with: "\"")
    }

    /// `tag` (an `ETag` value, weak or strong) as this coding's representation's.
    func tagging(_ tag: String) -> String {
        guard tag.hasSuffix("\"") else { return tag }
        return String(tag.dropLast()) + tagSuffix + "\""
    }
}

extension Substring {
    fileprivate func trimmingSpaces() -> Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return text
    }
}
