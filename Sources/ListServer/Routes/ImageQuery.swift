import ListDomain

/// The validated query of an image request (`GET /items/<id>/image`): size, format and Lorem Picsum's effects.
///
/// - `w`, `h`: plain decimal integers in `1...5000`; the image may have at most 25 megapixels. Either alone keeps
///   the item's shape; neither gives the item's own size (made smaller to fit the limits).
/// - `format`: `jpg` (or `jpeg`), `png` or `webp`; a path extension (`/image.png`) takes precedence.
/// - `grayscale`: present (`?grayscale`, `=1`, `=true`) turns the image grey; `=0` or `=false` does not.
/// - `blur`: `1...10`, or present without a value for 5 (as Picsum: `?blur`); `0` for none.
///
/// Each may be given once; other parameters (cache-busters, the controls `delay_ms`, `fail`, `fail_first`) are
/// left to others.
struct ImageQuery: Sendable, Equatable {
    var width: Int?
    var height: Int?
    var format: ImageFormat?
    var grayscale = false
    var blur = 0
    /// `?progressive`: nil when the request does not say (``SettingKey/imageProgressive`` decides).
    var progressive: Bool?

    private static let widthRule = QueryIntegerRule(name: "w", range: 1...UInt64(ImageSpec.maxSide))
    private static let heightRule = QueryIntegerRule(name: "h", range: 1...UInt64(ImageSpec.maxSide))
    private static let blurRule = QueryIntegerRule(name: "blur", range: 0...UInt64(ImageSpec.blurRange.upperBound))

    /// `target`'s query items; a query that does not decode is a 400.
    static func items(of target: RequestTarget) throws(Problem) -> [QueryItem] {
        do {
            return try target.queryItems()
        } catch {
            throw error.problem
        }
    }

    /// Reads and validates the image parameters among a query's `items`.
    ///
    /// - Throws: A 400 ``Problem`` (`invalid-parameter`, naming it) for a bad or repeated parameter.
    init(items: [QueryItem]) throws(Problem) {
        var width: String?
        var height: String?
        var format: String?
        var grayscale: String?
        var blur: String?
        var progressive: String?
        for item in items {
            switch item.name {
            case "w": try Self.widthRule.setOnce(&width, item.value)
            case "h": try Self.heightRule.setOnce(&height, item.value)
            case "blur": try Self.blurRule.setOnce(&blur, item.value)
            case "format": try Self.setOnce(&format, item.value, name: "format")
            case "grayscale": try Self.setOnce(&grayscale, item.value, name: "grayscale")
            case "progressive": try Self.setOnce(&progressive, item.value, name: "progressive")
            default: continue
            }
        }
        self.width = try width.map { text throws(Problem) in Int(try Self.widthRule.validate(text)) }
        self.height = try height.map { text throws(Problem) in Int(try Self.heightRule.validate(text)) }
        if let blur {
            self.blur = blur.isEmpty ? ImageSpec.defaultBlur : Int(try Self.blurRule.validate(blur))
        }
        if let format {
            guard let parsed = ImageFormat(fileExtension: format) else {
                throw Problem(
                    .invalidParameter,
                    detail: "query parameter \"format\" must be jpg, png or webp, got \(Problem.quoted(format))",
                    parameter: "format")
            }
            self.format = parsed
        }
        if let grayscale { self.grayscale = try Self.flag(grayscale, name: "grayscale") }
        self.progressive = try progressive.map { text throws(Problem) in try Self.flag(text, name: "progressive") }
    }

    /// A switch parameter's value: none, `1` or `true` is on; `0` or `false` off; anything else a 400.
    static func flag(_ value: String, name: String) throws(Problem) -> Bool {
        switch value {
        case "", "1", "true": return true
        case "0", "false": return false
        default:
            throw Problem(
                .invalidParameter,
                detail: "query parameter \(Problem.quoted(name)) takes no value, 1, true, 0 or false, got "
                    + Problem.quoted(value),
                parameter: name)
        }
    }

    /// The size of an image whose own is `ownWidth`×`ownHeight` (an item's, or its upload's): `w` and `h`, one of
    /// them and the own shape, or the own size fitted to the limits.
    ///
    /// - Throws: A 400 ``Problem`` naming `w` when the size has more than 25 megapixels.
    func size(ofWidth ownWidth: Int, height ownHeight: Int) throws(Problem) -> (width: Int, height: Int) {
        let size: (width: Int, height: Int)
        switch (width, height) {
        case (let width?, let height?): size = (width, height)
        case (let width?, nil):
            size = (width, ImageSpec.proportional(width, side: ownWidth, other: ownHeight))
        case (nil, let height?):
            size = (ImageSpec.proportional(height, side: ownHeight, other: ownWidth), height)
        case (nil, nil): return ImageSpec.fitted(width: ownWidth, height: ownHeight)
        }
        guard ImageSpec.allows(width: size.width, height: size.height) else {
            let name = width == nil ? "h" : "w"
            throw Problem(
                .invalidParameter,
                detail: "the image would be \(size.width)x\(size.height) pixels; each side may be "
                    + "1...\(ImageSpec.maxSide) "
                    + "and the whole at most \(ImageSpec.maxPixels) pixels",
                parameter: name)
        }
        return size
    }

    /// Stores `value` in `slot`, or throws a 400 naming `name` when the parameter was already given.
    static func setOnce(_ slot: inout String?, _ value: String, name: String) throws(Problem) {
        if let first = slot {
            throw Problem(
                .invalidParameter,
                detail: "query parameter \(Problem.quoted(name)) was given twice (\(Problem.quoted(first)) and "
                    + "\(Problem.quoted(value))); give it once",
                parameter: name)
        }
        slot = value
    }
}
