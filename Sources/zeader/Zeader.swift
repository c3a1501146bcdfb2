import ArgumentParser
import ZeaderKit

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

    func run() async throws {
        print("zeader \(zeaderVersion)")
    }
}

