import ArgumentParser
import Foundation
import ZeaderKit

/// The `zeader` command: the interactive reader and its headless subcommands.
///
/// Exit status: 0 success; 1 an operation failed (a feed, a file, the store); 2 bad usage.
@main
struct Zeader: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "zeader",
        abstract: "A terminal feed reader.",
        discussion: "Exit status: 0 success, 1 failure (a feed, a file or the store), 2 bad usage.",
        version: zeaderVersion,
        subcommands: [
            // Subcommands are registered here, one struct per file.
            RefreshCommand.self,
            AddCommand.self,
            RemoveCommand.self,
            ListCommand.self,
            ItemsCommand.self,
            MarkReadCommand.self,
            ImportCommand.self,
            ExportCommand.self,
            ParseCommand.self,
        ]
    )

    @OptionGroup var store: StoreOptions

    func run() async throws {
        print("zeader \(zeaderVersion)")
    }

    /// Parses the arguments with `--db` moved after the subcommand's name, runs the command,
    /// and exits 2 (not ArgumentParser's 64) on bad usage.
    static func main() async {
        let names = Set(configuration.subcommands.map { $0._commandName })
        let arguments = GlobalOptions.normalize(Array(CommandLine.arguments.dropFirst()), subcommands: names)
        do {
            var command = try parseAsRoot(arguments)
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            if exitCode(for: error) == .validationFailure {
                FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
                Foundation.exit(2)
            }
            exit(withError: error)
        }
    }
}
