import Foundation  // JSONDecoder, for the contrast benchmark only
import ListDomain
import ListServer

extension ListBenchmarks {
    /// A `POST /items` body with every field, as a client sends it (111 bytes).
    static let itemBody = Array(
        ##"{"label":"Groceries for the week","author":"Zoë Dubois","width":1280,"height":720,"color":"#A1B2C3","likes":7}"##
            .utf8)

    /// A body at `http.max_body_bytes` (64 KiB): an array of integers and fractions.
    static let numbersBody: [UInt8] = {
        var text = "["
        var index = 0
        while text.utf8.count < 65_000 {
            text += index % 3 == 0 ? "\(index).25," : "\(index * 7919),"
            index += 1
        }
        return Array((text + "0]").utf8)
    }()

    /// The write-body path: the strict parser with the field checks, against `JSONDecoder` on the same body.
    static func bodyBenchmarks(_ harness: inout Harness) throws {
        try harness.measure("RequestJSON.parse + ItemBody.creation, POST body of 111 bytes", iterations: 500_000) {
            count in
            var checksum: UInt64 = 0
            for _ in 0..<count {
                let overrides = try ItemBody.creation(RequestJSON.parse(itemBody, maxDepth: 16))
                checksum &+= UInt64(overrides.likes ?? 0)
            }
            return checksum
        }

        let decoder = JSONDecoder()
        let data = Data(itemBody)
        try harness.measure("JSONDecoder, the same body into a Codable struct (no checks)", iterations: 100_000) {
            count in
            var checksum: UInt64 = 0
            for _ in 0..<count {
                checksum &+= UInt64(try decoder.decode(CodableItemBody.self, from: data).likes ?? 0)
            }
            return checksum
        }

        try harness.measure("RequestJSON.parse, 64 KiB array of numbers", iterations: 2_000) { count in
            var checksum: UInt64 = 0
            for _ in 0..<count {
                if case .array(let elements) = try RequestJSON.parse(numbersBody, maxDepth: 16) {
                    checksum &+= UInt64(elements.count)
                }
            }
            return checksum
        }
    }
}

/// The POST body's fields as `Codable` sees them, for the contrast benchmark.
struct CodableItemBody: Decodable {
    let label: String
    let author: String?
    let width: Int?
    let height: Int?
    let color: String?
    let likes: Int?
}
