/// A codec that refused: the one shape every codec failure of the Codecs/ room takes on its way out.
package struct ImageCodecError: Error, CustomStringConvertible, Equatable {
    /// Which library said so: `TurboJPEG`, `libspng`, `libwebp`.
    let codec: String
    /// What it said.
    let message: String

    package var description: String { "\(codec): \(message)" }
}
