import ArgumentParser
import Feeds
import ZeaderKit

/// `zeader set FEED KEY VALUE…`: one of a feed's own settings (`reload-interval`, `max-items`,
/// `proxy`, `cookie`…), over the config's. The value's words are joined with spaces.
///
/// ```sh
/// zeader set https://example.org/feed.xml reload-interval 240
/// zeader set https://example.org/feed.xml header "X-Token: abc"
/// ```
struct SetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set", abstract: "Set one of a feed's own settings (see zeader(1), SETTINGS PER FEED).",
        discussion: """
            Keys: \(FeedSettingKey.allCases.map(\.rawValue).joined(separator: ", ")). A feed's own setting wins \
            over the config's `feed URL`, `feed tag:NAME` and global lines. `zeader list --json` shows them, \
            secrets masked; `zeader unset FEED KEY` removes one.
            """)

    @Argument(help: ArgumentHelp("The feed's URL, as `zeader list` shows it.", valueName: "FEED"))
    var feed: String

    @Argument(help: ArgumentHelp("The setting's name.", valueName: "KEY"))
    var key: String

    @Argument(help: ArgumentHelp("The value (several words are joined with spaces).", valueName: "VALUE"))
    var value: [String]

    @OptionGroup var store: StoreOptions

    func validate() throws {
        guard FeedSettingKey(rawValue: key.lowercased()) != nil else {
            throw ValidationError(FeedSettingsError.unknownKey(key).description)
        }
        if value.isEmpty { throw ValidationError("Missing expected argument '<VALUE>'") }
    }

    func run() throws {
        let library = FeedLibrary(store: try store.openStore(command: "set", writes: true))
        guard let key = FeedSettingKey(rawValue: key.lowercased()) else { throw ExitCode.validationFailure }
        do {
            try library.setFeedSetting(url: feed, key: key, value: value.joined(separator: " "))
        } catch {
            throw CommandOutput.fail("set", error)
        }
    }
}

/// `zeader unset FEED KEY`: removes one of a feed's own settings (every value of a `header`
/// or `cookie`), so the config's applies again.
///
/// ```sh
/// zeader unset https://example.org/feed.xml proxy
/// ```
struct UnsetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unset", abstract: "Remove one of a feed's own settings.")

    @Argument(help: ArgumentHelp("The feed's URL, as `zeader list` shows it.", valueName: "FEED"))
    var feed: String

    @Argument(help: ArgumentHelp("The setting's name.", valueName: "KEY"))
    var key: String

    @OptionGroup var store: StoreOptions

    func validate() throws {
        guard FeedSettingKey(rawValue: key.lowercased()) != nil else {
            throw ValidationError(FeedSettingsError.unknownKey(key).description)
        }
    }

    func run() throws {
        let library = FeedLibrary(store: try store.openStore(command: "unset", writes: true))
        guard let key = FeedSettingKey(rawValue: key.lowercased()) else { throw ExitCode.validationFailure }
        do {
            try library.setFeedSetting(url: feed, key: key, value: nil)
        } catch {
            throw CommandOutput.fail("unset", error)
        }
    }
}
