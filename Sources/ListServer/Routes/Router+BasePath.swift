/// `/d/<name>/…`: a dataset as a base URL, for an app under test that is given one URL and changes nothing else.
///
/// A request whose path starts with `/d/<name>` (``RequestTarget/base``) means what the same request without it,
/// with `X-Dataset: <name>`, means: ``route(_:_:waitingForOthers:retried:)`` adds that field (refusing one that names
/// another dataset, and a `?dataset=` that does), so every handler, the dataset loading and the faults read the
/// dataset as they always do. Every URL of the answer keeps the base:
/// - in JSON bodies, each handler gives its ``JSONWriter`` the target's ``RequestTarget/basePath`` (`image_url`);
/// - absolute URLs (Picsum's) are made under ``publicRoot(_:base:)``;
/// - server-relative `Link` and `Location` values are written by the handlers without the base and get it here, in
///   one place (``rebase(_:base:)``), whatever route made them.
///
/// `/d/<name>` alone is a 308 to `/d/<name>/`, the app's page, whose relative requests then keep the base too.
extension Router {
    /// Routes a request whose target has a base: as the same request naming that dataset, or with the answer
    /// ``nameBaseDataset(_:_:)`` gives instead. Out of line, so that routing a request without a base stays as small
    /// as it was (inlined into it, this cost every request about 650 instructions, callgrind).
    @inline(never)
    func routeUnderBase(
        _ request: HTTPRequest, _ match: Match, _ target: RequestTarget, waitingForOthers: Bool, retried: Bool
    ) -> RouteOutcome {
        var named = request
        let answer: HTTPResponse?
        do throws(Problem) {
            answer = try Self.nameBaseDataset(&named, target)
        } catch {
            answer = error.response()
        }
        if let answer {
            return .response(Self.decorated(answer, cors: service.cors, origin: request.headers["Origin"], base: ""))
        }
        return route(named, match, waitingForOthers: waitingForOthers, retried: retried, named: true)
    }

    /// Makes `request` name the dataset its target's base names; returns the answer it gets instead, if any (the
    /// redirect of a bare base). Throws 400 when a field or `?dataset=` names another dataset.
    static func nameBaseDataset(_ request: inout HTTPRequest, _ target: RequestTarget) throws(Problem) -> HTTPResponse?
    {
        guard let dataset = target.dataset else { return nil }
        let name = String(dataset)
        if target.path.isEmpty {
            let location = String(target.base) + "/" + (target.query.map { "?" + Self.visibleASCII($0) } ?? "")
            return HTTPResponse(status: 308, headers: ["Location": location])
        }
        if let field = request.headers[datasetField] {
            guard field == name else {
                throw Problem(
                    .invalidHeader,
                    detail:
                        "the path names dataset \(Problem.quoted(name)) (\(target.base)/) and \(datasetField) names "
                        + "\(Problem.quoted(field)); give one, or the same in both")
            }
        } else {
            request.headers.add(datasetField, name)
        }
        // `dataset` may come percent-encoded (`%64ataset=`): any escape means the query is read in full.
        if let query = target.query,
            query.utf8.firstRange(of: "dataset=".utf8) != nil || query.utf8.contains(UInt8(ascii: "%")),
            let other = (try? target.queryItems())?.first(where: { $0.name == "dataset" && $0.value != name })
        {
            throw Problem(
                .invalidParameter,
                detail: "the path names dataset \(Problem.quoted(name)) (\(target.base)/) and dataset= names "
                    + "\(Problem.quoted(other.value)); give one, or the same in both",
                parameter: "dataset")
        }
        return nil
    }

    /// `text` with every byte that is not visible ASCII percent-encoded: what goes back into a `Location` from a
    /// request's query (the connection layer refuses such bytes in a target, but nothing a client sent may reach a
    /// header raw).
    static func visibleASCII(_ text: Substring) -> String {
        guard !text.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else { return String(text) }
        var result = ""
        for byte in text.utf8 {
            if (0x21...0x7E).contains(byte) {
                result.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                result += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return result
    }

    /// The server-relative URLs of `headers`' `Link` and `Location` fields, moved under `base` (`/d/<name>`); URLs
    /// already under it (an absolute root made with it) and absolute ones are left as they are.
    static func rebase(_ headers: inout HTTPHeaders, base: String) {
        headers.transformValues(of: "Location") { value in rebased(value, base: base) }
        headers.transformValues(of: "Link") { value in
            // Each link is `<URI>; params`, several separated by commas; a URI holds no `<`.
            var result = ""
            var rest = value[...]
            while let open = rest.firstIndex(of: "<") {
                result += rest[...open]
                rest = rest[rest.index(after: open)...]
                let close = rest.firstIndex(of: ">") ?? rest.endIndex
                result += rebased(String(rest[..<close]), base: base)
                rest = rest[close...]
            }
            return result + rest
        }
    }

    /// `body` (JSON the server wrote) with each `"image_url":"/…` moved under `basePath`: for a recorded answer,
    /// replayed to a request under a base. Exact on JSON: inside a string every `"` is escaped, so those bytes occur
    /// only where the key `image_url` has a string value.
    static func rebasedImageURLs(_ body: [UInt8], basePath: [UInt8]) -> [UInt8] {
        let key = Array(#""image_url":"/"#.utf8)
        var result: [UInt8] = []
        result.reserveCapacity(body.count + basePath.count)
        var index = 0
        while index < body.count {
            if body[index] == key[0], body.count - index >= key.count,
                body[index..<index + key.count].elementsEqual(key)
            {
                result += key.dropLast()
                result += basePath
                result.append(UInt8(ascii: "/"))
                index += key.count
            } else {
                result.append(body[index])
                index += 1
            }
        }
        return result
    }

    /// `url` under `base` when it is a server-relative path (`/items/42`) not already under it.
    private static func rebased(_ url: String, base: String) -> String {
        guard url.hasPrefix("/"), !url.hasPrefix("//"), !(url.hasPrefix(base) && url.dropFirst(base.count).first == "/")
        else { return url }
        return base + url
    }
}

extension String {
    /// This string with zeros in front, to `width` characters.
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
