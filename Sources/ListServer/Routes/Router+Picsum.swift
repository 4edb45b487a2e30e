import ListDomain

/// Lorem Picsum's routes over the items, so an app written against `picsum.photos` works by changing the host:
/// `/v2/list`, `/id/<id>/info`, `/seed/<seed>/info`, and the image routes of `Router+PicsumImages.swift`.
///
/// Picsum's rules are kept where a client could notice: its JSON shape (`id` a string), its defaults and clamping
/// instead of errors for `page` and `limit`, its `Link` header. An item's Picsum size is its own `width`x`height`
/// made smaller (same shape) to fit 5000 pixels a side, so `download_url` is always a size the image routes serve.
extension Router {
    /// Picsum's page size when `limit` is missing or not a number above 0.
    static let picsumDefaultLimit: UInt64 = 30
    /// Picsum's largest page size: a larger `limit` counts as this.
    static let picsumMaxLimit: UInt64 = 100

    /// `GET /v2/list?page=&limit=`: a bare JSON array of Picsum objects, with Picsum's `Link` header.
    func picsumList(_ target: RequestTarget, headers: HTTPHeaders) throws(Problem) -> HTTPResponse {
        let root = try publicRoot(headers, base: target.base)
        let state = try readableState(of: try Self.listName(headers))
        var page: UInt64 = 1
        var limit = Self.picsumDefaultLimit
        for item in try Self.picsumQuery(target) {
            // Picsum's rules: a value that is no number above 0 counts as the default; the last one given wins.
            switch item.name {
            case "page": page = UInt64(plainDecimal: item.value).flatMap { $0 >= 1 ? $0 : nil } ?? 1
            case "limit":
                limit =
                    UInt64(plainDecimal: item.value).flatMap { $0 >= 1 ? min($0, Self.picsumMaxLimit) : nil }
                    ?? Self.picsumDefaultLimit
            default: continue
            }
        }
        page = min(page, PageQuery.maximumPage)
        let ids = state.page(page, limit: limit, order: .asc).ids
        var json = JSONWriter(capacity: 64 + ids.count * 220)
        json.append(raw: "[")
        for (index, id) in ids.enumerated() {
            if index > 0 { json.append(raw: ",") }
            if let item = state.item(id) { Self.writePicsumObject(item, root: root, into: &json) }
        }
        json.append(raw: "]")
        var fields: HTTPHeaders = ["Content-Type": MediaType.json]
        func link(_ page: UInt64, _ relation: String) -> String {
            "<\(root)/v2/list?page=\(page)&limit=\(limit)>; rel=\"\(relation)\""
        }
        // Picsum's: page 1 always has `next`; a short page (the end) only `prev`; the others both.
        if page == 1 {
            fields.add("Link", link(2, "next"))
        } else if ids.count < limit {
            fields.add("Link", link(page - 1, "prev"))
        } else {
            fields.add("Link", link(page - 1, "prev") + ", " + link(page + 1, "next"))
        }
        return HTTPResponse(status: 200, headers: fields, body: json.bytes)
    }

    /// The query's items; a query that does not decode is a 400 here as everywhere (Picsum's clamping is for
    /// values, not for broken percent-encoding).
    static func picsumQuery(_ target: RequestTarget) throws(Problem) -> [QueryItem] {
        do {
            return try target.queryItems()
        } catch {
            throw error.problem
        }
    }

    /// `GET /id/<id>/info`, `GET /seed/<seed>/info`: the item as one Picsum object.
    func picsumInfo(_ pick: PicsumPick, headers: HTTPHeaders, base: Substring = "") throws(Problem) -> HTTPResponse {
        let root = try publicRoot(headers, base: base)
        let state = try readableState(of: try Self.listName(headers))
        let item = try picsumItem(pick, in: state)
        var json = JSONWriter(capacity: 256)
        Self.writePicsumObject(item, root: root, into: &json)
        return HTTPResponse(status: 200, headers: ["Content-Type": MediaType.json], body: json.bytes)
    }

    /// The item `pick` names in `state`: 404 for an id that is not digits, past the end or deleted (Picsum's
    /// "Image does not exist"), and for a seed or a draw from an empty list.
    func picsumItem(_ pick: PicsumPick, in state: ListState) throws(Problem) -> Item {
        let id: UInt64?
        switch pick {
        case .id(let raw): id = UInt64(plainDecimal: raw)
        case .seed(let seed): id = PicsumPick.liveItem(PicsumPick.hash(seed: seed), in: state)
        case .random: id = PicsumPick.liveItem(picsumSequence.draw(), in: state)
        }
        guard let id, let item = state.item(id) else {
            throw Problem(.notFound, detail: "there is no image \(Problem.quoted(pickText(pick)))")
        }
        return item
    }

    private func pickText(_ pick: PicsumPick) -> String {
        switch pick {
        case .id(let raw): raw
        case .seed(let seed): "seed " + seed
        case .random: "at random (the list is empty)"
        }
    }

    /// The base of the absolute URLs written: ``SettingKey/publicURL``, else `http://` and the request's `Host`, which
    /// must be a host name or an IP literal with an optional port (never echoed unchecked); without either (an
    /// HTTP/1.0 request may have no `Host`), nothing: the URLs are then server-relative. Then `base`, the
    /// `/d/<name>` a request named its dataset by (Router+BasePath.swift).
    func publicRoot(_ headers: HTTPHeaders, base: Substring = "") throws(Problem) -> String {
        if let publicURL = service.publicURL { return publicURL + base }
        guard let host = headers["Host"] else { return String(base) }
        guard let authority = HostAuthority.normalized(host) else {
            throw Problem(
                .invalidHeader,
                detail:
                    "the Host field \(Problem.quoted(host)) is not host[:port]; set \(SettingKey.publicURL.name) behind a "
                    + "proxy")
        }
        return "http://" + authority + base
    }

    /// `{"id":"42","author":…,"width":…,"height":…,"url":…,"download_url":…,"blur_hash":…}`, Picsum's member order
    /// and then ours.
    static func writePicsumObject(_ item: Item, root: String, into json: inout JSONWriter) {
        let size = ImageSpec.fitted(width: item.width, height: item.height)
        json.append(raw: "{\"id\":\"")
        json.append(integer: item.id)
        json.append(raw: "\",\"author\":")
        json.append(string: item.author)
        json.append(raw: ",\"width\":")
        json.append(integer: size.width)
        json.append(raw: ",\"height\":")
        json.append(integer: size.height)
        json.append(raw: ",\"url\":")
        json.append(string: root + "/items/" + String(item.id))
        json.append(raw: ",\"download_url\":")
        json.append(string: root + "/id/\(item.id)/\(size.width)/\(size.height)")
        // Not Lorem Picsum's: the placeholder items carry, for a client that shows one.
        json.append(raw: ",\"blur_hash\":")
        if let blurHash = item.blurHash { json.append(string: blurHash) } else { json.appendNull() }
        json.append(raw: "}")
    }
}
