import ListDomain

/// Lorem Picsum's image routes: `/id/<id>/<size>` and `/id/<id>/<w>/<h>` answer with the image (an uploaded one
/// when the item has it); `/seed/<seed>/…`, `/<size>` and `/<w>/<h>` redirect (302) to the `/id/…` URL of the item
/// they pick, as Picsum does.
extension Router {
    /// An image route. `sizes` are the size segments as matched (one or two, digits, the last perhaps with an
    /// extension: `.jpg` (the default), `.webp`, or `.png`).
    ///
    /// Picsum's rules: a size of 0 is the item's own; more than 5000 is 400; `grayscale` present (with any value)
    /// turns the image grey; `blur` present without a value is 5, with one it must be 1...10.
    func picsumImage(
        _ pick: PicsumPick, sizes: [String], target: RequestTarget, headers: HTTPHeaders,
        range: ByteRangeRequest? = nil
    )
        throws(Problem) -> RouteOutcome
    {
        guard let images else {
            throw Problem(.notFound, detail: "images are not served by this server")
        }
        var segments = sizes
        var fileExtension = "jpg"
        if let last = segments.last, let dot = last.firstIndex(of: ".") {
            fileExtension = last[last.index(after: dot)...].lowercased()
            segments[segments.count - 1] = String(last[..<dot])
        }
        guard let format = ImageFormat(fileExtension: fileExtension) else {
            throw Problem(
                .invalidParameter,
                detail: "the extension \(Problem.quoted(fileExtension)) is not .jpg, .webp or .png",
                parameter: "format")
        }
        let width = try Self.picsumSize(segments[0], name: "width")
        let height = segments.count > 1 ? try Self.picsumSize(segments[1], name: "height") : width
        let (grayscale, blur) = try Self.picsumEffects(target)
        let list = try Self.listName(headers)
        let state = try readableState(of: list)
        let item = try picsumItem(pick, in: state)
        let own = ImageSpec.fitted(width: item.width, height: item.height)
        let size = (width: width == 0 ? own.width : width, height: height == 0 ? own.height : height)
        guard case .id = pick else {
            // Absolute, as Picsum's (and under server.public_url's path prefix when it has one).
            var location =
                try publicRoot(headers, base: target.base)
                + "/id/\(item.id)/\(size.width)/\(size.height).\(format.fileExtension)"
            var query: [String] = []
            if blur > 0 { query.append("blur=\(blur)") }
            if grayscale { query.append("grayscale") }
            if !query.isEmpty { location += "?" + query.joined(separator: "&") }
            return .response(HTTPResponse(status: 302, headers: ["Location": location]))
        }
        // An item's uploaded image is its photo here too (in the format the extension names).
        let upload = state.written[item.id]?.image.map { ImageSpec.Upload(list: list, image: $0) }
        // Picsum has no `progressive` parameter: the setting decides.
        let spec = ImageSpec(
            id: item.id, width: size.width, height: size.height, color: item.rgb, grayscale: grayscale, blur: blur,
            upload: upload, progressive: servesProgressive(format, asked: nil, uploaded: upload != nil))
        return serveImage(
            spec, format: format, from: images, version: state.header.version, headers: headers, negotiated: false,
            range: range, picsumID: item.id)
    }

    /// A size segment: 0 (the item's own) or 1...5000.
    static func picsumSize(_ text: String, name: String) throws(Problem) -> Int {
        guard let value = UInt64(plainDecimal: text), value <= UInt64(ImageSpec.maxSide) else {
            throw Problem(
                .invalidParameter,
                detail: "the \(name) \(Problem.quoted(text)) is not 0 (the item's own) or 1...\(ImageSpec.maxSide)",
                parameter: name)
        }
        return Int(value)
    }

    /// Picsum's `grayscale` (present: on) and `blur` (present without a value: 5; a value must be 1...10), each
    /// given at most once.
    static func picsumEffects(_ target: RequestTarget) throws(Problem) -> (grayscale: Bool, blur: Int) {
        var grayscale: String?
        var blur: String?
        for item in try Self.picsumQuery(target) {
            // Each at most once, as every parameter here (Picsum would take the first).
            switch item.name {
            case "grayscale": try ImageQuery.setOnce(&grayscale, item.value, name: "grayscale")
            case "blur": try ImageQuery.setOnce(&blur, item.value, name: "blur")
            default: continue
            }
        }
        guard let blur else { return (grayscale != nil, 0) }
        // Stricter than Picsum, which takes any value that is not a number as 5: here only no value is.
        guard !blur.isEmpty else { return (grayscale != nil, ImageSpec.defaultBlur) }
        guard let amount = UInt64(plainDecimal: blur), amount >= 1, amount <= 10 else {
            throw Problem(
                .invalidParameter,
                detail: "query parameter \"blur\" must be 1...10 (or present without a value for 5), got "
                    + Problem.quoted(blur),
                parameter: "blur")
        }
        return (grayscale != nil, Int(amount))
    }
}
