import ArgumentParser
import ZeaderKit

/// `zeader flag [ID…] [--feed URL]` and `zeader unflag …`: flags (stars) items, or takes
/// the flag away. IDs are the items' ids as `zeader items --json` prints them; with
/// `--feed`, only that feed's items are looked at, and without IDs all of them change.
///
/// ```sh
/// zeader flag 'tag:example.org,2024:42' --feed https://example.org/feed.xml
/// zeader items --flagged
/// ```
struct FlagCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flag", abstract: "Flag (star) items by id, or every item of a feed.")

    @OptionGroup var selection: FlagSelection

    func validate() throws { try selection.check() }

    func run() throws { try selection.apply(true, command: "flag") }
}

/// `zeader unflag [ID…] [--feed URL]`: the opposite of `zeader flag`.
///
/// ```sh
/// zeader unflag --feed https://example.org/feed.xml
/// ```
struct UnflagCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unflag", abstract: "Remove the flag from items by id, or from every item of a feed.")

    @OptionGroup var selection: FlagSelection

    func validate() throws { try selection.check() }

    func run() throws { try selection.apply(false, command: "unflag") }
}

/// The items `flag` and `unflag` act on.
struct FlagSelection: ParsableArguments {
    @Argument(help: ArgumentHelp("Item ids, as `zeader items --json` prints them (a guid is taken too).", valueName: "ID"))
    var ids: [String] = []

    @Option(help: ArgumentHelp("Only items of this feed; without ID, all of them.", valueName: "URL"))
    var feed: String?

    @OptionGroup var store: StoreOptions

    func check() throws {
        if ids.isEmpty, feed == nil { throw ValidationError("give item ids, or --feed URL, or both") }
    }

    func apply(_ flagged: Bool, command: String) throws {
        let library = FeedLibrary(store: try store.openStore(command: command, writes: true))
        do {
            let count = try library.setFlag(flagged, ids: ids, feed: feed)
            CommandOutput.write("\(command)ged \(count) item\(count == 1 ? "" : "s")\n")
        } catch {
            throw CommandOutput.fail(command, error)
        }
    }
}
