import Foundation

// PhotoList <base URL> [pages] [limit]: loads the first pages of the photo list as the post's app does (a page of
// metadata, then every row's picture concurrently) and checks each picture is a JPEG file of the listed size.
// Exits 0 when every picture of every page arrived and matched, 1 otherwise.
let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    print("usage: PhotoList <base URL, e.g. http://127.0.0.1:8080> [pages] [limit]")
    exit(2)
}
let store = PictureStore(baseURL: arguments[1])
let pages = arguments.count > 2 ? Int(arguments[2]) ?? 2 : 2
let limit = arguments.count > 3 ? Int(arguments[3]) ?? 10 : 10

/// What is wrong with `data` as `picture`'s file, or nil when it is a JPEG file of the listed size.
func mismatch(_ picture: PictureData, _ data: Data) -> String? {
    guard let size = JPEGHeader.dimensions([UInt8](data)) else { return "not a JPEG file" }
    guard size.width == picture.width, size.height == picture.height else {
        return "a \(size.width)x\(size.height) JPEG, not \(picture.width)x\(picture.height)"
    }
    return nil
}

/// Every picture's bytes, loaded at once as the app's rows load them (each with its own spinner there).
func loadPictures(_ pictures: [PictureData], from store: PictureStore) async -> [(PictureData, Result<Data, any Error>)]
{
    await withTaskGroup(of: (PictureData, Result<Data, any Error>).self) { group in
        for picture in pictures {
            group.addTask {
                do {
                    return (picture, .success(try await store.image(for: picture)))
                } catch {
                    return (picture, .failure(error))
                }
            }
        }
        var results: [(PictureData, Result<Data, any Error>)] = []
        for await result in group {
            results.append(result)
        }
        return results
    }
}

var failures = 0
var loaded = 0
let clock = ContinuousClock()
let start = clock.now
for page in 1...pages {
    let pictures: [PictureData]
    do {
        pictures = try await store.pictures(page: page, limit: limit)
    } catch {
        print("page \(page): \(error)")
        exit(1)
    }
    guard pictures.count == limit else {
        print("page \(page): \(pictures.count) pictures, expected \(limit)")
        exit(1)
    }
    // The rows load their pictures at once, each with its own spinner in the app.
    let results = await loadPictures(pictures, from: store)
    let ordered = results.sorted { first, second in (Int(first.0.id) ?? 0) < (Int(second.0.id) ?? 0) }
    for (picture, result) in ordered {
        switch result {
        case .failure(let error):
            print("picture \(picture.id) by \(picture.author): \(error)")
            failures += 1
        case .success(let data):
            if let problem = mismatch(picture, data) {
                print("picture \(picture.id): \(problem)")
                failures += 1
            } else {
                loaded += 1
                let size = String(picture.width) + "x" + String(picture.height)
                print("picture " + picture.id + " by " + picture.author + ": " + size + ", \(data.count) bytes")
            }
        }
    }
}
print("\(loaded) pictures loaded, \(failures) failed, in \(start.duration(to: clock.now))")
exit(failures == 0 ? 0 : 1)
