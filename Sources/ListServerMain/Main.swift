import ListServer

/// The `ListServer` executable: everything it does is ``ServerCommand`` in the `ListServer` library.
@main
struct Main {
    static func main() async {
        await ServerCommand.run()
    }
}
