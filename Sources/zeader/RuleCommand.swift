import ArgumentParser
import Foundation
import ZeaderConfig
import ZeaderKit

/// `zeader rule add|list|remove|test`: rules that act on new items (the config's `rule`
/// lines apply too).
///
/// ```sh
/// zeader rule add 'title CONTAINS[cd] "release" -> flag notify'
/// ```
struct RuleCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rule",
        abstract: "Rules that act on new items: mark-read, flag, tag, untag, notify, exec, full-article, ignore.",
        discussion: """
            A rule is PREDICATE -> ACTION…: a predicate over items in the smart-feed language (or newsboat's filter \
            language), then what to do with each new item it matches, as a refresh or a sync stores it: mark-read, \
            flag, tag NAME and untag NAME (the item's own tags, `tags` in predicates), notify (the item's title \
            through notify-program), full-article (fetch the item's page), ignore (never \
            store it: the killfile, as `zeader ignore`), exec PROGRAM ARG… (run PROGRAM, never through a shell, with the \
            item's fields in its arguments: %t title, %l link, %a author, %f feed, %i id, %d date, %% a percent sign), \
            exec --json PROGRAM ARG… (the item as JSON on its standard input). Rules apply in order, the ignore rules \
            first; each firing is logged on stderr. Programs run at most 10 s each and 100 per refresh or sync.
            """,
        subcommands: [Add.self, List.self, Remove.self, Test.self])

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a rule, last in the list.")

        @Argument(
            help: ArgumentHelp("The rule, e.g. 'author == \"bot\" -> mark-read'.", valueName: "PREDICATE -> ACTION…"))
        var rule: String

        @OptionGroup var store: StoreOptions

        func run() throws {
            let configRules = try ReaderConfig.loadOrExit(command: "rule add").ignoreRules
            let library = FeedLibrary(store: try store.openStore(command: "rule add", writes: true))
            do {
                let removed = try library.addRule(rule, configIgnoreRules: configRules)
                let added = try ItemRules.parse(rule)
                var line = "added \(TerminalText.line(added.text))"
                if added.isIgnore { line += "; removed \(removed) stored item\(removed == 1 ? "" : "s")" }
                CommandOutput.write(line + "\n")
            } catch {
                throw CommandOutput.fail("rule add", error)
            }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the rules in the order they apply: the stored ones numbered (for remove), then the config's.")

        @OptionGroup var store: StoreOptions

        func run() throws {
            let config = try ReaderConfig.loadOrExit(command: "rule list")
            let library = FeedLibrary(store: try store.openStore(command: "rule list", readOnly: true))
            let stored: [(number: Int, rule: FeedLibrary.StoredRule)]
            do {
                stored = try library.rules()
            } catch {
                throw CommandOutput.fail("rule list", error)
            }
            let configRules =
                config.ignoreRules.map(FeedLibrary.StoredRule.ignore) + config.itemRules.map(FeedLibrary.StoredRule.acting)
            CommandOutput.write(
                RuleListing.text(stored: stored.map { ($0.number, $0.rule.line) }, config: configRules.map(\.line)))
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove stored rule N (config rules are removed by editing the config).")

        @Argument(help: ArgumentHelp("The rule's number in `zeader rule list`.", valueName: "N"))
        var number: Int

        @OptionGroup var store: StoreOptions

        func run() throws {
            let configRules = try ReaderConfig.loadOrExit(command: "rule remove").ignoreRules
            let library = FeedLibrary(store: try store.openStore(command: "rule remove", writes: true))
            do {
                let rule = try library.removeRule(number: number, configIgnoreRules: configRules)
                CommandOutput.write("removed \(TerminalText.line(rule.line))\n")
            } catch {
                throw CommandOutput.fail("rule remove", error)
            }
        }
    }

    struct Test: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the stored items a rule's predicate matches (a whole rule is taken too; nothing is changed).")

        @Argument(help: ArgumentHelp("The predicate, or a whole rule.", valueName: "PREDICATE"))
        var predicate: String

        @Option(help: ArgumentHelp("At most N items.", valueName: "N"))
        var limit: Int?

        @Flag(help: "Print one JSON array of items, as `zeader items --json` does.")
        var json = false

        @OptionGroup var store: StoreOptions

        func validate() throws {
            if let limit, limit < 1 { throw ValidationError("--limit must be at least 1, not \(limit)") }
        }

        func run() throws {
            let library = FeedLibrary(store: try store.openStore(command: "rule test", readOnly: true))
            do {
                let format = try ItemRules.testedPredicate(predicate)
                let items = try library.items(ItemQuery(wherePredicate: format, limit: limit))
                if json {
                    var out = "["
                    for (index, item) in items.enumerated() {
                        out += index == 0 ? "\n" : ",\n"
                        ItemSummary.appendJSON(item, to: &out)
                    }
                    CommandOutput.write(out + (items.isEmpty ? "]\n" : "\n]\n"))
                } else {
                    CommandOutput.write(ItemSummary.text(items))
                }
            } catch {
                throw CommandOutput.fail("rule test", error)
            }
        }
    }
}
