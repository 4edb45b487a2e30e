/// The libFuzzer entry point: libFuzzer's `main` calls it for every input when `scripts/fuzz.sh` builds this target
/// with `-sanitize=fuzzer` (and `-DLISTSERVER_LIBFUZZER`, which leaves ``FuzzReplay``'s `@main` out). It is the
/// fuzzer's one C boundary, so it takes a pointer; everything past it sees an array.
///
/// The input's first byte selects what is fuzzed (see ``FuzzInput``); the rest is the payload. The harness turns
/// broken promises into crashes (`FuzzCheck`), so libFuzzer keeps the input that shows them.
///
/// - Parameters:
///   - data: The input bytes; nil when `size` is 0.
///   - size: The number of input bytes.
/// - Returns: 0: every input is kept for the corpus if it finds new coverage.
@_cdecl("LLVMFuzzerTestOneInput")
public func listServerFuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    FuzzHarness.run(FuzzInput(bytes, entry: FuzzHarness.forcedEntry))
    return 0
}
