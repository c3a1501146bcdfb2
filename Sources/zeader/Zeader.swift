import ArgumentParser
import Feeds
import Foundation
import ZeaderConfig
import ZeaderKit
import ZeaderTUI

/// The `zeader` command: the interactive reader and its headless subcommands.
///
/// Exit status: 0 success; 1 an operation failed (a feed, a file, the store, a sync); 2 bad
/// usage (``ZeaderError/isUsageError``: an argument, or a file that is not what was asked).
@main
struct Zeader: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "zeader",
        abstract: "A terminal feed reader.",
        usage: "zeader [--db <PATH>] [--demo] [<subcommand>]",
        discussion: """
            Without a subcommand, zeader opens the interactive reader on the store.
            Exit status: 0 success, 1 failure (a feed, a file, the store, a sync), 2 bad usage (an argument, or a \
            file that is not what the command reads).
            """,
        version: zeaderVersion,
        subcommands: [
            // Subcommands are registered here, one struct per file.
            RefreshCommand.self,
            AddCommand.self,
            RemoveCommand.self,
            RenameCommand.self,
            TrustCommand.self,
            ListCommand.self,
            ItemsCommand.self,
            MarkReadCommand.self,
            TagCommand.self,
            FullArticleCommand.self,
            SetCommand.self,
            UnsetCommand.self,
            FlagCommand.self,
            UnflagCommand.self,
            ImportCommand.self,
            ExportCommand.self,
            CheckCommand.self,
            CleanupCommand.self,
            IgnoreCommand.self,
            RuleCommand.self,
            ParseCommand.self,
            ExtractCommand.self,
            ConfigCommand.self,
            SyncCommand.self,
            PodcastsCommand.self,
        ]
    )

    @OptionGroup var store: StoreOptions

    @Flag(help: "Read the bundled offline demo feeds (in memory; nothing is saved).")
    var demo = false

    func run() async throws {
        let config = try ReaderConfig.loadOrExit(command: nil)
        do {
            let store = try demo ? ZeaderStore.inMemory() : ZeaderStore.open(at: ZeaderPaths.databaseURL(explicit: self.store.db))
            if demo { try DemoFeeds.load(into: store) }
            let fetcher = FeedFetcher(configuration: FetcherConfiguration(version: zeaderVersion))
            // The demo's feeds are offline: no refresh there.
            var options = config.refreshOptions(RefreshOptions(jobs: config.reloadThreads ?? RefreshOptions().jobs))
            options.ignoreRules = config.ignoreRules
            options.itemRules = config.itemRules
            options.rulesChangeItemsLater = true  // one undo step in the reader
            options.retention = config.retention
            options.fullArticleScopes = config.fullArticleScopes
            options.articleSelectors = config.articleSelectors
            options.alwaysDownload = config.alwaysDownload
            options.feedSettings = config.feedSettings
            let refresher: ReaderRefresher? = demo ? nil : SyncingRefresher(store: store, options: options)
            try await ReaderTerminal.run(store: store, config: config, refresher: refresher, fetcher: fetcher)
            // `cleanup-on-quit yes`: what `zeader cleanup` does, once the screen is restored.
            if config.retention.cleanupOnQuit && !demo {
                let library = FeedLibrary(store: store)
                _ = try library.cleanup(policy: library.retention(config.retention, with: config.feedSettings))
            }
        } catch {
            // One line naming what was wrong (the store, the terminal).
            // Never trapping: after the terminal hung up, stderr may be that terminal (EIO).
            try? FileHandle.standardError.write(contentsOf: Data("zeader: \(error)\n".utf8))
            throw ExitCode((error as? ZeaderError)?.isUsageError == true ? 2 : 1)
        }
    }

    /// Parses the arguments with `--db` moved after the subcommand's name, runs the command,
    /// and exits 2 (not ArgumentParser's 64) on bad usage.
    static func main() async {
        MallocArenas.capAtCoreCount()
        do {
            var command = try parseAsRoot(normalizedArguments(Array(CommandLine.arguments.dropFirst())))
            ReaderConfig.applyTrustSettings()  // the config's ca-file, for every command's fetches
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            if exitStatus(for: error) == 2 {
                // An ExitCode(2) thrown after the command said why itself carries no message.
                let message = fullMessage(for: error)
                if !message.isEmpty { FileHandle.standardError.write(Data((message + "\n").utf8)) }
                Foundation.exit(2)
            }
            exit(withError: error)
        }
    }

    /// The arguments (without the program name) as the parser reads them: `--db` given
    /// before the subcommand's name moved after it.
    static func normalizedArguments(_ arguments: [String]) -> [String] {
        GlobalOptions.normalize(arguments, subcommands: Set(configuration.subcommands.map { $0._commandName }))
    }

    /// The exit status for an error from parsing or running: 2 for bad usage (where
    /// ArgumentParser would say 64), else ArgumentParser's own.
    static func exitStatus(for error: any Error) -> Int32 {
        let code = exitCode(for: error)
        return code == .validationFailure ? 2 : code.rawValue
    }
}
