/// The width and height in a JPEG file's start-of-frame segment: how the example checks, without an image
/// library (there is no UIKit here), that a picture is a JPEG file of the size the list promised.
enum JPEGHeader {
    /// `(width, height)` of the first SOF0...SOF15 frame (not DHT, JPG or DAC), or nil when `bytes` is not a JPEG
    /// file with one.
    static func dimensions(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
        guard bytes.count > 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
        var offset = 2
        while offset + 9 < bytes.count {
            guard bytes[offset] == 0xFF else { return nil }
            let marker = bytes[offset + 1]
            let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            if (0xC0...0xCF).contains(marker) && ![0xC4, 0xC8, 0xCC].contains(marker) {
                let height = Int(bytes[offset + 5]) << 8 | Int(bytes[offset + 6])
                let width = Int(bytes[offset + 7]) << 8 | Int(bytes[offset + 8])
                return (width, height)
            }
            offset += 2 + length
        }
        return nil
    }
}
