import Foundation
import ListDomain
import Testing

@testable import ListServer

/// What the generated photos weigh and show, encoded as served (JPEG from the drawn planes, quality 85, 4:2:0):
/// sizes like a real set of photos (issue 35), the item's colour as the photo's average, the id on its plate.
@Suite("Generated photos")
struct GeneratedPhotoTests {
    let codecs: ImageCodecs

    init() throws {
        codecs = try ImageCodecs()
    }

    /// The item of the default catalog (seed 42).
    func item(_ id: UInt64) -> Item { Catalog(seed: 42, count: 10_000).item(id)! }

    /// The JPEG sizes of ids 0–99 at `width`×`height`: median, 10th and 90th percentile in bytes.
    func sizes(width: Int, height: Int) throws -> (median: Int, p10: Int, p90: Int) {
        var sizes: [Int] = []
        for id in UInt64(0)..<100 {
            let spec = ImageSpec(id: id, width: width, height: height, color: item(id).rgb)
            sizes.append(try codecs.encodeJPEG(ImageRenderer.renderPlanes(spec)).count)
        }
        sizes.sort()
        if let folder = ProcessInfo.processInfo.environment["LISTSERVER_PHOTO_SIZES"] {
            try? sizes.map(String.init).joined(separator: "\n")
                .write(toFile: "\(folder)/\(width)x\(height).txt", atomically: true, encoding: .utf8)
        }
        return ((sizes[49] + sizes[50]) / 2, sizes[10], sizes[90])
    }

    @Test("600x400: median 25-70 KB, the 90th percentile at least twice the 10th")
    func listSizes() throws {
        let (median, p10, p90) = try sizes(width: 600, height: 400)
        #expect((25_000...70_000).contains(median), "median \(median)")
        #expect(p90 >= 2 * p10, "10th \(p10), 90th \(p90)")
    }

    @Test("1080x1920 (a phone's full screen): median 150-450 KB, the 90th percentile at least twice the 10th")
    func fullScreenSizes() throws {
        let (median, p10, p90) = try sizes(width: 1080, height: 1920)
        #expect((150_000...450_000).contains(median), "median \(median)")
        #expect(p90 >= 2 * p10, "10th \(p10), 90th \(p90)")
    }
}
