import ArgumentParser
import Feeds
import Foundation
import ZeaderKit
import ZeaderTUI

/// The `zeader` command: the interactive reader and its headless subcommands.
@main
struct Zeader: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "zeader",
        abstract: "A terminal feed reader.",
        version: zeaderVersion,
        subcommands: [
            // Subcommands are registered here, one struct per file.
            ParseCommand.self,
        ]
    )

    @Option(
        name: .customLong("db"),
        help: ArgumentHelp("The store (default: $ZEADER_DB, else $XDG_DATA_HOME/zeader/zeader.sqlite).", valueName: "PATH"))
    var database: String?

    @Flag(help: "Read the bundled offline demo feeds (in memory; nothing is saved).")
    var demo = false

    func run() async throws {
        do {
            let config = try ReaderConfig.load()
            let store = try demo ? ZeaderStore.inMemory() : ZeaderStore.open(at: ZeaderPaths.databaseURL(explicit: database))
            if demo { try DemoFeeds.load(into: store) }
            let fetcher = FeedFetcher(configuration: FetcherConfiguration(version: zeaderVersion))
            try await ReaderTerminal.run(store: store, config: config, refresher: nil, fetcher: fetcher)
        } catch {
            // One line naming what was wrong (the config file and line, the store, the terminal).
            FileHandle.standardError.write(Data("zeader: \(error)\n".utf8))
            throw ExitCode.failure
        }
    }
}
