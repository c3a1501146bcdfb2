import ArgumentParser
import ZeaderKit

/// `zeader add URL [--title T] [--tag T…]`: subscribes to a feed.
///
/// ```sh
/// zeader add https://example.org/feed.xml --title Example --tag news && zeader refresh https://example.org/feed.xml
/// ```
struct AddCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add", abstract: "Subscribe to a feed (fetched by the next refresh).")

    @Argument(help: "The feed's URL (http, https or file).")
    var url: String

    @Option(help: ArgumentHelp("The name to show instead of the feed's own title.", valueName: "T"))
    var title: String?

    @Option(name: .customLong("tag"), help: ArgumentHelp("A tag for the feed (repeat for more).", valueName: "T"))
    var tags: [String] = []

    @OptionGroup var store: StoreOptions

    func validate() throws {
        do { _ = try FeedLibrary.validatedFeedURL(url) } catch { throw ValidationError(error.description) }
    }

    func run() throws {
        let library = FeedLibrary(store: try store.openStore(command: "add"))
        do {
            let stored = try library.add(url: url, title: title, tags: tags)
            CommandOutput.write("added \(TerminalText.line(stored))\n")
        } catch {
            throw CommandOutput.fail("add", error)
        }
    }
}
