import ArgumentParser
import Foundation
import ZeaderConfig
import ZeaderKit

/// `zeader ignore add|list|remove`: killfile rules stored in the store (the config's
/// `ignore` lines apply too).
///
/// ```sh
/// zeader ignore add 'title CONTAINS[cd] "sponsored"' --tag news
/// ```
struct IgnoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ignore", abstract: "Killfile: items matching a rule are never stored, shown or counted.",
        discussion: """
            A rule is a predicate over items in the smart-feed language (title, author, summary, content, link, \
            published…), for every feed or one feed (--feed) or the feeds with a tag (--tag). Matching items are \
            removed now and dropped at every refresh; their guids are kept so they are not stored again. Flagged \
            items are never removed. Removing a rule brings back, at the next refresh, the items their feeds still carry.
            """,
        subcommands: [Add.self, List.self, Remove.self])

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a rule and remove the stored items it matches.")

        @Argument(help: ArgumentHelp("The predicate, e.g. 'title CONTAINS[cd] \"sponsored\"'.", valueName: "PREDICATE"))
        var predicate: String

        @Option(help: ArgumentHelp("Only for this feed.", valueName: "URL"))
        var feed: String?

        @Option(help: ArgumentHelp("Only for the feeds with this tag.", valueName: "TAG"))
        var tag: String?

        @OptionGroup var store: StoreOptions

        func validate() throws {
            if feed != nil && tag != nil { throw ValidationError("give --feed or --tag, not both") }
        }

        func run() throws {
            let scope: FeedScope = feed.map(FeedScope.feed) ?? tag.map(FeedScope.tag) ?? .all
            let rule = Killfile.Rule(scope: scope, predicateFormat: predicate)
            let configRules = try ReaderConfig.loadOrExit(command: "ignore add").ignoreRules
            let library = FeedLibrary(store: try store.openStore(command: "ignore add", writes: true))
            let removed: Int
            do {
                removed = try library.addIgnoreRule(rule, configRules: configRules)
            } catch {
                throw CommandOutput.fail("ignore add", error)
            }
            CommandOutput.write(
                "added \(TerminalText.line(rule.line)); removed \(removed) stored item\(removed == 1 ? "" : "s")\n")
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the rules: the stored ones numbered (for remove), then the config's.")

        @OptionGroup var store: StoreOptions

        func run() throws {
            let configRules = try ReaderConfig.loadOrExit(command: "ignore list").ignoreRules
            let library = FeedLibrary(store: try store.openStore(command: "ignore list", readOnly: true))
            let stored: [(number: Int, rule: Killfile.Rule)]
            do {
                stored = try library.ignoreRules()
            } catch {
                throw CommandOutput.fail("ignore list", error)
            }
            CommandOutput.write(
                RuleListing.text(stored: stored.map { ($0.number, $0.rule.line) }, config: configRules.map(\.line)))
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove stored rule N (config rules are removed by editing the config).")

        @Argument(help: ArgumentHelp("The rule's number in `zeader ignore list`.", valueName: "N"))
        var number: Int

        @OptionGroup var store: StoreOptions

        func run() throws {
            let configRules = try ReaderConfig.loadOrExit(command: "ignore remove").ignoreRules
            let library = FeedLibrary(store: try store.openStore(command: "ignore remove", writes: true))
            do {
                let rule = try library.removeIgnoreRule(number: number, configRules: configRules)
                CommandOutput.write(
                    "removed \(TerminalText.line(rule.line)); its items come back with the next refresh if their feeds still carry them\n"
                )
            } catch {
                throw CommandOutput.fail("ignore remove", error)
            }
        }
    }
}
