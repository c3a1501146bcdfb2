import ArgumentParser
import ZeaderKit

/// `zeader items [--feed URL] [--unread] [--flagged] [--tag T…] [--search WORDS] [--where PREDICATE] [--limit N] [--json]`.
///
/// ```sh
/// zeader items --unread --search "swift linux" --limit 10
/// zeader items --where 'title CONTAINS[cd] "release" AND read == NO' --json
/// ```
struct ItemsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "items", abstract: "List items, newest first; filters combine with AND.")

    @Option(help: ArgumentHelp("Only the items of this feed.", valueName: "URL"))
    var feed: String?

    @Flag(help: "Only unread items.")
    var unread = false

    @Flag(help: "Only flagged (starred) items.")
    var flagged = false

    @Option(
        name: .customLong("tag"),
        help: ArgumentHelp("Only the items of feeds with this tag (repeat: any of them).", valueName: "T"))
    var tags: [String] = []

    @Option(
        help: ArgumentHelp(
            "Words that must each begin a word of the title, author, summary or article text (case- and accent-insensitive).",
            valueName: "WORDS"))
    var search: String?

    @Option(
        name: .customLong("where"),
        help: ArgumentHelp(
            "A predicate over items in the ObjectGraph language, e.g. 'read == NO AND author CONTAINS[c] \"ann\"', or a newsboat filter ('unread = \"yes\" and tags # \"tech\"').",
            valueName: "PREDICATE"))
    var wherePredicate: String?

    @Option(help: ArgumentHelp("At most N items.", valueName: "N"))
    var limit: Int?

    @Flag(help: "Print one JSON array of {feed, id, title, link, author, published, updated, read, flagged}.")
    var json = false

    @OptionGroup var store: StoreOptions

    var query: ItemQuery {
        ItemQuery(
            feed: feed, unreadOnly: unread, flaggedOnly: flagged, tags: tags, search: search, wherePredicate: wherePredicate,
            limit: limit)
    }

    func validate() throws {
        if let limit, limit < 1 { throw ValidationError("--limit must be at least 1, not \(limit)") }
        do { _ = try query.predicate() } catch { throw ValidationError(error.description) }
    }

    func run() throws {
        let library = FeedLibrary(store: try store.openStore(command: "items"))
        do {
            guard json else {
                // The text listing pads the feed column to the widest shown, so it needs
                // every line first; it holds the lines, not the items.
                CommandOutput.write(ItemSummary.text(try library.items(query)))
                return
            }
            // Page by page: one page of items in memory, whatever the store's size.
            var written = 0
            try library.forEachItems(query) { page in
                var out = written == 0 ? "[" : ""
                for item in page {
                    out += written == 0 ? "\n" : ",\n"
                    ItemSummary.appendJSON(item, to: &out)
                    written += 1
                }
                CommandOutput.write(out)
            }
            CommandOutput.write(written == 0 ? "[]\n" : "\n]\n")
        } catch {
            throw CommandOutput.fail("items", error)
        }
    }
}
