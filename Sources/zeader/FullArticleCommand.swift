import ArgumentParser
import ZeaderKit

/// `zeader full-article URL… [--off]`: marks feeds so that each refresh fetches the full
/// article of their new items' web pages (``FullArticles``), or stops it.
///
/// ```sh
/// zeader full-article https://example.org/feed.xml
/// zeader full-article https://example.org/feed.xml --off
/// ```
struct FullArticleCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "full-article", abstract: "Fetch the full article of feeds' new items at each refresh (or stop).",
        discussion: """
            At each refresh, after the feed is stored, the web page of each new item (20 per feed at most, \
            newest first) is fetched once and its article kept with the item: the reader shows it (w), offline \
            too. A page that fails keeps the feed's text and records why.
            """)

    @Argument(help: ArgumentHelp("The feeds' URLs, as `zeader list` shows them.", valueName: "URL"))
    var urls: [String]

    @Flag(help: "Stop fetching full articles for these feeds (those stored stay).")
    var off = false

    @OptionGroup var store: StoreOptions

    func validate() throws {
        if urls.isEmpty { throw ValidationError("Missing expected argument '<URL>'") }
    }

    func run() throws {
        let library = FeedLibrary(store: try store.openStore(command: "full-article", writes: true))
        do {
            try library.setFullArticle(!off, urls: urls)
        } catch {
            throw CommandOutput.fail("full-article", error)
        }
        let feeds = urls.count == 1 ? "1 feed" : "\(urls.count) feeds"
        CommandOutput.write(off ? "\(feeds): no full articles\n" : "\(feeds): full articles at each refresh\n")
    }
}
