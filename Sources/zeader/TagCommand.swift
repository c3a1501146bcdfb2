import ArgumentParser
import ZeaderKit

/// `zeader tag [URL [TAG…] [--remove]]`: shows or changes the tags of a feed; without a
/// URL, lists every tag with its number of feeds.
///
/// ```sh
/// zeader tag https://lwn.net/headlines/rss linux news
/// zeader tag https://lwn.net/headlines/rss news --remove
/// ```
struct TagCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tag", abstract: "Add tags to a feed (or remove them); list the tags in use.",
        discussion: "Tags ignore case; commas and line breaks in a tag become spaces. Without TAG, prints the feed's tags.")

    @Argument(help: ArgumentHelp("The feed's URL, as `zeader list` shows it.", valueName: "URL"))
    var url: String?

    @Argument(help: ArgumentHelp("Tags to add (or, with --remove, to remove).", valueName: "TAG"))
    var tags: [String] = []

    @Flag(help: "Remove the tags instead of adding them.")
    var remove = false

    @OptionGroup var store: StoreOptions

    func validate() throws {
        if url == nil, remove { throw ValidationError("--remove needs a feed URL and the tags to remove") }
        if remove, tags.isEmpty { throw ValidationError("--remove needs the tags to remove") }
    }

    func run() throws {
        let library = FeedLibrary(store: try store.openStore(command: "tag", writes: url != nil))
        do {
            guard let url else {
                let lines = try library.tags().map { "\($0.feeds)  \(TerminalText.line($0.tag))\n" }
                CommandOutput.write(lines.joined())
                return
            }
            let now = try remove ? library.tag(url: url, remove: tags) : library.tag(url: url, add: tags)
            CommandOutput.write(now.map { TerminalText.line($0) + "\n" }.joined())
        } catch {
            throw CommandOutput.fail("tag", error)
        }
    }
}
