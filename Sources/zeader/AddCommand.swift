import ArgumentParser
import ZeaderKit

/// `zeader add URL [--title T]`: subscribes to a feed.
///
/// ```sh
/// zeader add https://example.org/feed.xml --title Example && zeader refresh https://example.org/feed.xml
/// ```
struct AddCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add", abstract: "Subscribe to a feed (fetched by the next refresh).")

    @Argument(help: "The feed's URL (http, https or file).")
    var url: String

    @Option(help: ArgumentHelp("The name to show instead of the feed's own title.", valueName: "T"))
    var title: String?

    @OptionGroup var store: StoreOptions

    func validate() throws {
        do { _ = try FeedLibrary.validatedFeedURL(url) } catch { throw ValidationError(error.description) }
    }

    func run() throws {
        let library = FeedLibrary(store: try store.openStore(command: "add"))
        do {
            let stored = try library.add(url: url, title: title)
            CommandOutput.write("added \(TerminalText.line(stored))\n")
        } catch {
            throw CommandOutput.fail("add", error)
        }
    }
}
