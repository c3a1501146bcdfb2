import ArgumentParser
import ZeaderKit

/// `zeader mark-read (--feed URL | --all)`.
///
/// ```sh
/// zeader mark-read --feed https://example.org/feed.xml
/// ```
struct MarkReadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mark-read", abstract: "Mark every item of one feed, or of all feeds, read.")

    @Option(help: ArgumentHelp("The feed whose items to mark read.", valueName: "URL"))
    var feed: String?

    @Flag(help: "Mark the items of every feed read.")
    var all = false

    @OptionGroup var store: StoreOptions

    func validate() throws {
        if (feed == nil) == (all == false) { throw ValidationError("give exactly one of --feed URL and --all") }
    }

    func run() throws {
        let library = FeedLibrary(store: try store.openStore(command: "mark-read", writes: true))
        do {
            let count = try library.markRead(feed: all ? nil : feed)
            CommandOutput.write("marked \(count) item\(count == 1 ? "" : "s") read\n")
        } catch {
            throw CommandOutput.fail("mark-read", error)
        }
    }
}
