/// One photo of the list, as Lorem Picsum's `/v2/list` describes it (the post's model, unchanged).
struct PictureData: Codable, Identifiable, Sendable {
    let id: String
    let author: String
    let width: Int
    let height: Int
    let url: String
    let download_url: String
}
