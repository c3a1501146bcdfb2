import ArgumentParser
import ZeaderKit

/// `zeader rename URL [TITLE]`: gives a feed a title of the user's own (newsboat's
/// `"~title"`), kept by refreshes and pushed to the feed's account at the next sync; an
/// empty or no TITLE gives the feed back its own.
///
/// ```sh
/// zeader rename https://lwn.net/headlines/rss "LWN"
/// zeader rename https://lwn.net/headlines/rss ""
/// ```
struct RenameCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rename", abstract: "Give a feed a title of your own (an empty one gives it back its own).",
        discussion: """
            The title is kept by refreshes; a feed of an account has it pushed at the next sync (Fever and \
            Tiny Tiny RSS have no rename: the title stays on this device). Prints the feed's title afterwards.
            """)

    @Argument(help: ArgumentHelp("The feed's URL, as `zeader list` shows it.", valueName: "URL"))
    var url: String

    @Argument(help: ArgumentHelp("The new title; empty or left out: the feed's own.", valueName: "TITLE"))
    var title: String = ""

    @OptionGroup var store: StoreOptions

    func run() throws {
        let library = FeedLibrary(store: try store.openStore(command: "rename", writes: true))
        do {
            let now = try library.rename(url: url, title: title)
            CommandOutput.write(TerminalText.line(Messages.feedRenamed(url: url, title: now)) + "\n")
        } catch {
            throw CommandOutput.fail("rename", error)
        }
    }
}
