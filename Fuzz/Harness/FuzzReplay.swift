#if !LISTSERVER_LIBFUZZER
    import Foundation

    /// The fuzz target without libFuzzer (any plain `swift build`): replays the inputs it is given, files or
    /// folders of files, through the harness, as libFuzzer does with a file argument. A broken check crashes with
    /// its message, like under libFuzzer.
    ///
    ///     swift run ListServerFuzz Fuzz/corpus .build-fuzz/artifacts/crash-…
    @main
    enum FuzzReplay {
        static func main() throws {
            var count = 0
            for path in CommandLine.arguments.dropFirst() {
                for file in try inputs(at: path) {
                    let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: file)))
                    FuzzHarness.run(FuzzInput(bytes, entry: FuzzHarness.forcedEntry))
                    count += 1
                }
            }
            print("ListServerFuzz: replayed \(count) inputs; every check held")
        }

        /// `path` if it is a file, else the files in the folder `path`, sorted.
        static func inputs(at path: String) throws -> [String] {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
                throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: path])
            }
            guard isFolder.boolValue else { return [path] }
            return try FileManager.default.contentsOfDirectory(atPath: path).sorted().map { path + "/" + $0 }
        }
    }
#endif
