import ArgumentParser
import ZeaderKit

/// `zeader trust URL`: vouches for a command or file feed that came from an import, a sync
/// server or a store older than recorded origins, so that a refresh runs it (what
/// `zeader check` advises for each such feed).
///
/// ```sh
/// zeader trust 'exec:~/bin/weather-feed'
/// ```
struct TrustCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trust",
        abstract: "Let a refresh run a subscribed exec:/filter: feed or read a file: feed, as if you had added it.",
        discussion:
            "Feeds from an OPML file, backup or cache.db imported without --allow-commands, or from a sync server, never run a command or read a file; `zeader check` lists such feeds. Trust only a command you have read."
    )

    @Argument(help: "The feed's URL, as `zeader list` or `zeader check` shows it.")
    var url: String

    @OptionGroup var store: StoreOptions

    func run() throws {
        let library = FeedLibrary(store: try store.openStore(command: "trust", writes: true))
        do {
            let reach = try library.trust(url: url)
            let what =
                switch reach {
                case .command: "its command runs at each refresh"
                case .file: "its file is read at each refresh"
                case .web: "an http(s) feed (nothing to run)"
                }
            CommandOutput.write("trusted \(TerminalText.line(url)): \(what)\n")
        } catch {
            throw CommandOutput.fail("trust", error)
        }
    }
}
