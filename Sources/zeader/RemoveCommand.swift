import ArgumentParser
import ZeaderKit

/// `zeader remove URL`: unsubscribes from a feed and deletes its items.
///
/// ```sh
/// zeader remove https://example.org/feed.xml
/// ```
struct RemoveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove", abstract: "Unsubscribe from a feed and delete its items.")

    @Argument(help: "The feed's URL, as `zeader list` shows it.")
    var url: String

    @OptionGroup var store: StoreOptions

    func run() throws {
        let library = FeedLibrary(store: try store.openStore(command: "remove", writes: true))
        do {
            let items = try library.remove(url: url)
            CommandOutput.write("removed \(TerminalText.line(url)) (\(items) item\(items == 1 ? "" : "s"))\n")
        } catch {
            throw CommandOutput.fail("remove", error)
        }
    }
}
