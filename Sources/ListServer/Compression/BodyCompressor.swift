import CDeflate
import CZstd

/// Compresses whole response bodies, gzip with libdeflate and Zstandard with libzstd, both at level 1: one per event
/// loop, used on its thread only (each library's compressor keeps tables it reuses from body to body).
///
/// Level 1 because the body is compressed on the loop for every request: a 20-item page (4.4 KB) takes about
/// 10 µs in gzip and 8 µs in Zstandard at level 1, where higher levels saved a few percent more bytes at two to
/// four times the time (Benchmarks/compression).
package final class BodyCompressor {
    private let deflater: OpaquePointer
    private let zstd: OpaquePointer

    package init() {
        guard let deflater = libdeflate_alloc_compressor(1), let zstd = ZSTD_createCCtx() else {
            fatalError("the compressors could not be allocated")
        }
        self.deflater = deflater
        self.zstd = zstd
        ZSTD_CCtx_setParameter(zstd, ZSTD_c_compressionLevel, 1)
    }

    deinit {
        libdeflate_free_compressor(deflater)
        ZSTD_freeCCtx(zstd)
    }

    /// Where bodies are compressed before the result is copied out at its size: an array made at the library's
    /// bound would keep that capacity (about the body's size) for as long as the result is kept.
    private var scratch: [UInt8] = []

    /// `body` in `coding`, an array of exactly its bytes; nil when the library fails (it does not, given room for
    /// its bound) or when the result is no smaller than the body.
    package func compress(_ body: [UInt8], as coding: ContentCoding) -> [UInt8]? {
        guard !body.isEmpty else { return nil }
        let bound =
            switch coding {
            case .gzip: libdeflate_gzip_compress_bound(deflater, body.count)
            case .zstd: ZSTD_compressBound(body.count)
            }
        if scratch.count < bound { scratch = [UInt8](repeating: 0, count: bound) }
        let written = body.withUnsafeBytes { source in
            scratch.withUnsafeMutableBytes { target -> Int in
                switch coding {
                case .gzip:
                    return libdeflate_gzip_compress(
                        deflater, source.baseAddress, source.count, target.baseAddress, target.count)
                case .zstd:
                    let result = ZSTD_compress2(
                        zstd, target.baseAddress, target.count, source.baseAddress, source.count)
                    return ZSTD_isError(result) != 0 ? 0 : result
                }
            }
        }
        guard written > 0, written < body.count else { return nil }
        return Array(scratch[..<written])
    }
}
