import ArgumentParser
import ZeaderKit

/// `zeader list [--tag T] [--json]`: the feeds with their unread and total counts and tags.
///
/// ```sh
/// zeader list --json | jq '.[] | select(.lastError != null) | .url'
/// ```
struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List the feeds with unread/total counts and their last error.")

    @Option(help: ArgumentHelp("Only the feeds with this tag (ignoring case).", valueName: "T"))
    var tag: String?

    @Flag(help: "Print one JSON array of {url, title, unread, total, lastError, lastRefresh, disabled, tags, synced}.")
    var json = false

    @OptionGroup var store: StoreOptions

    func run() throws {
        let library = FeedLibrary(store: try store.openStore(command: "list"))
        do {
            let servers = try library.servers(tag: tag)
            CommandOutput.write(json ? ServerSummary.json(servers) : ServerSummary.text(servers))
        } catch {
            throw CommandOutput.fail("list", error)
        }
    }
}
