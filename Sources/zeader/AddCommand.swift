import ArgumentParser
import Feeds
import Foundation
import ZeaderKit

/// `zeader add URL [--title T] [--tag T…] [--pick N] [--no-fetch]`: subscribes to a feed (a web
/// page's feed, found by ``FeedFinder``);
/// `zeader add --smart PREDICATE --title T`: saves a smart feed.
///
/// ```sh
/// zeader add https://example.org/feed.xml --title Example --tag news && zeader refresh https://example.org/feed.xml
/// zeader add --smart 'read == NO AND title CONTAINS[cd] "swift"' --title Swift
/// ```
struct AddCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add", abstract: "Subscribe to a feed (or a web page's feed), or save a smart feed.",
        discussion: """
            The URL is fetched once to check it: a feed is subscribed as given; a web page's feeds are found
            (<link rel="alternate">, else /feed, /rss.xml, /atom.xml, /index.xml, /feed.json) and one is
            subscribed, or, when there are several, listed to choose from (--pick N; without a terminal the
            list is printed and the exit status is 2). A URL that cannot be fetched is subscribed as given.
            """)

    @Argument(help: "The feed's (or the web page's) URL (http, https or file), or exec:COMMAND, filter:COMMAND:URL.")
    var url: String?

    @Option(help: ArgumentHelp("When the page names several feeds, subscribe to the Nth of the list.", valueName: "N"))
    var pick: Int?

    @Flag(help: "Subscribe to the URL as given, without fetching it (the next refresh checks it).")
    var noFetch = false

    @Option(
        help: ArgumentHelp(
            "Save a smart feed instead: a predicate over items, e.g. 'read == NO AND title CONTAINS[cd] \"swift\"' (needs --title).",
            valueName: "PREDICATE"))
    var smart: String?

    @Option(help: ArgumentHelp("The name to show instead of the feed's own title.", valueName: "T"))
    var title: String?

    @Option(name: .customLong("tag"), help: ArgumentHelp("A tag for the feed (repeat for more).", valueName: "T"))
    var tags: [String] = []

    @Flag(help: "Fetch the full article of each new item's web page at every refresh (zeader full-article changes it).")
    var fullArticle = false

    @Option(
        help: ArgumentHelp(
            "The sync account the feed joins (zeader sync status lists them), or local; by default the store's only account, else local.",
            valueName: "name"))
    var account: String?

    @OptionGroup var store: StoreOptions

    func validate() throws {
        if let smart {
            guard url == nil else { throw ValidationError("give either a URL or --smart, not both") }
            guard let title, !title.isEmpty else { throw ValidationError("--smart needs a --title") }
            guard tags.isEmpty else { throw ValidationError("--tag applies to feeds, not smart feeds") }
            guard !fullArticle else { throw ValidationError("--full-article applies to feeds, not smart feeds") }
            guard account == nil else { throw ValidationError("--account applies to feeds, not smart feeds") }
            do {
                try SmartFeeds.validate(smart)
            } catch {
                throw ValidationError(TerminalText.line(error.description))
            }
            return
        }
        guard let url else { throw ValidationError("Missing expected argument '<url>' (or --smart PREDICATE --title T)") }
        if let pick, pick < 1 { throw ValidationError("--pick must be at least 1, not \(pick)") }
        // One line whatever the URL holds (an escape or a line break is named, never printed).
        do { _ = try FeedSubscription.validatedURL(url) } catch { throw ValidationError(TerminalText.line(error.description)) }
    }

    func run() async throws {
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
        if let account {
            do { try library.checkAccount(account) } catch { throw CommandOutput.fail("add", error) }
        }
        if noFetch || CommandFeed.isCommand(url) { return try subscribe(url, library: library) }
        let checked: String
        do throws(ZeaderError) {
            checked = try FeedSubscription.validatedURL(url)
            if try library.isSubscribed(checked) { throw ZeaderError.alreadySubscribed(checked) }
        } catch {
            throw CommandOutput.fail("add", error)
        }
        let fetcher = FeedFetcher(configuration: FetcherConfiguration(version: zeaderVersion, idleTimeout: 10, totalTimeout: 30))
        switch await FeedFinder.find(checked, with: fetcher) {
        case .feed:
            try subscribe(checked, library: library)
        case .unreachable(let failure):
            CommandOutput.warn(
                "zeader add: cannot check \(TerminalText.line(checked)) (\(TerminalText.line(failure.description))); "
                    + "subscribed as given, the next refresh tries again")
            try subscribe(checked, library: library)
        case .notAFeed(let failure):
            CommandOutput.warn(
                "zeader add: \(TerminalText.line(failure.description)); nothing subscribed (--no-fetch subscribes anyway)")
            throw ExitCode.failure
        case .page(let feeds):
            try subscribe(oneOf: feeds, page: checked, library: library)
        }
    }

    private func subscribe(_ url: String, library: FeedLibrary, note: String = "") throws {
        do {
            let stored = try library.add(url: url, title: title, tags: tags, fullArticle: fullArticle)
            if let account { try library.move(feed: stored, toAccount: account) }
            CommandOutput.write("added \(TerminalText.line(stored))\(note)\n")
        } catch {
            throw CommandOutput.fail("add", error)
        }
    }

    /// A web page's feeds: none is an error, one is subscribed, several are chosen from.
    private func subscribe(oneOf feeds: [DiscoveredFeed], page: String, library: FeedLibrary) throws {
        let note = " (found on \(TerminalText.line(page)))"
        if feeds.isEmpty {
            CommandOutput.warn(
                "zeader add: \(TerminalText.line(page)) is a web page that names no feed (no <link rel=\"alternate\">, "
                    + "nothing at \(FeedDiscovery.commonPaths.joined(separator: ", ")))")
            throw ExitCode.failure
        }
        if let pick {
            guard pick <= feeds.count else {
                CommandOutput.warn("zeader add: --pick \(pick): \(TerminalText.line(page)) names \(feeds.count) feeds")
                throw ExitCode(2)
            }
            return try subscribe(feeds[pick - 1].url, library: library, note: note)
        }
        if feeds.count == 1 { return try subscribe(feeds[0].url, library: library, note: note) }
        var list = ""
        for (index, feed) in feeds.enumerated() {
            list += "\(index + 1)  \(TerminalText.line(feed.url))"
            if let title = feed.title { list += "  \(TerminalText.line(title))" }
            list += "\n"
        }
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else {
            CommandOutput.write(list)
            CommandOutput.warn(
                "zeader add: \(TerminalText.line(page)) names \(feeds.count) feeds (listed above); choose one with --pick N")
            throw ExitCode(2)
        }
        CommandOutput.write(
            "\(TerminalText.line(page)) names \(feeds.count) feeds:\n" + list + "Subscribe to which? [1-\(feeds.count)] ")
        guard let answer = readLine(), let choice = Int(answer.trimmingCharacters(in: .whitespaces)),
            (1...feeds.count).contains(choice)
        else {
            CommandOutput.warn("zeader add: nothing subscribed")
            throw ExitCode(2)
        }
        try subscribe(feeds[choice - 1].url, library: library, note: note)
    }
}
