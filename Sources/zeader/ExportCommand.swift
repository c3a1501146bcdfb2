import ArgumentParser
import ZeaderKit

/// `zeader export [--json]`: the subscriptions as OPML 2.0 on stdout, or with `--json` a
/// backup of every feed and item (restored by `zeader import`).
///
/// ```sh
/// zeader export > feeds.opml
/// zeader export --json > backup.json
/// ```
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export", abstract: "Print the subscriptions as OPML 2.0, or a JSON backup of feeds and items.",
        discussion: "OPML carries each feed's tags as its folder and `category` attribute. The JSON backup holds every feed (url, title, siteLink, displayOrder, tags, etag, lastModified) and item (feed, guid, title, link, author, summary, content, published, updated, read, flagged, firstSeen); `zeader import` restores it.")

    @Flag(help: "Write a JSON backup of every feed and item instead of OPML.")
    var json = false

    @OptionGroup var store: StoreOptions

    func run() throws {
        let library = FeedLibrary(store: try store.openStore(command: "export"))
        do {
            if json {
                try library.exportBackup { CommandOutput.write($0) }
            } else {
                CommandOutput.write(try library.exportOPML())
            }
        } catch {
            throw CommandOutput.fail("export", error)
        }
    }
}
