import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The post's data layer: a page of metadata first, then each row's picture from its `download_url`.
struct PictureStore: Sendable {
    /// `https://picsum.photos` in the post; a ListServer here.
    let baseURL: String

    enum Failure: Error, CustomStringConvertible {
        case status(Int, URL)
        case notAJPEG(URL)

        var description: String {
            switch self {
            case .status(let code, let url): "\(url) answered \(code)"
            case .notAJPEG(let url): "\(url) is not a JPEG file"
            }
        }
    }

    /// One page of the list: `GET /v2/list?page=&limit=`.
    func pictures(page: Int, limit: Int) async throws -> [PictureData] {
        let url = URL(string: "\(baseURL)/v2/list?page=\(page)&limit=\(limit)")!
        let (data, response) = try await URLSession.shared.data(from: url)
        try check(response, url)
        return try JSONDecoder().decode([PictureData].self, from: data)
    }

    /// A row's picture: the bytes at its `download_url`.
    func image(for picture: PictureData) async throws -> Data {
        let url = URL(string: picture.download_url)!
        let (data, response) = try await URLSession.shared.data(from: url)
        try check(response, url)
        return data
    }

    private func check(_ response: URLResponse, _ url: URL) throws {
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard status == 200 else { throw Failure.status(status, url) }
    }
}
