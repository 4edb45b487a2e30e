@main
struct Main {
    static func main() async throws {}
}
