import ArgumentParser
import ZeaderKit

/// `zeader add URL [--title T] [--tag T…]`: subscribes to a feed;
/// `zeader add --smart PREDICATE --title T`: saves a smart feed.
///
/// ```sh
/// zeader add https://example.org/feed.xml --title Example --tag news && zeader refresh https://example.org/feed.xml
/// zeader add --smart 'read == NO AND title CONTAINS[cd] "swift"' --title Swift
/// ```
struct AddCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add", abstract: "Subscribe to a feed (fetched by the next refresh), or save a smart feed.")

    @Argument(help: "The feed's URL (http, https or file).")
    var url: String?

    @Option(
        help: ArgumentHelp(
            "Save a smart feed instead: a predicate over items, e.g. 'read == NO AND title CONTAINS[cd] \"swift\"' (needs --title).",
            valueName: "PREDICATE"))
    var smart: String?

    @Option(help: ArgumentHelp("The name to show instead of the feed's own title.", valueName: "T"))
    var title: String?

    @Option(name: .customLong("tag"), help: ArgumentHelp("A tag for the feed (repeat for more).", valueName: "T"))
    var tags: [String] = []

    @OptionGroup var store: StoreOptions

    func validate() throws {
        if let smart {
            guard url == nil else { throw ValidationError("give either a URL or --smart, not both") }
            guard let title, !title.isEmpty else { throw ValidationError("--smart needs a --title") }
            guard tags.isEmpty else { throw ValidationError("--tag applies to feeds, not smart feeds") }
            do {
                try SmartFeeds.validate(smart)
            } catch {
                throw ValidationError(TerminalText.line(error.description))
            }
            return
        }
        guard let url else { throw ValidationError("Missing expected argument '<url>' (or --smart PREDICATE --title T)") }
        // One line whatever the URL holds (an escape or a line break is named, never printed).
        do { _ = try FeedSubscription.validatedURL(url) } catch { throw ValidationError(TerminalText.line(error.description)) }
    }

    func run() throws {
        let library = FeedLibrary(store: try store.openStore(command: "add", writes: true))
        if let smart, let title {
            do {
                try library.addSmartFeed(title: title, predicate: smart)
                CommandOutput.write("added smart feed \(TerminalText.line(title))\n")
            } catch {
                throw CommandOutput.fail("add", error)
            }
            return
        }
        guard let url else { return }
        do {
            let stored = try library.add(url: url, title: title, tags: tags)
            CommandOutput.write("added \(TerminalText.line(stored))\n")
        } catch {
            throw CommandOutput.fail("add", error)
        }
    }
}
