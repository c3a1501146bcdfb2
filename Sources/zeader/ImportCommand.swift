import ArgumentParser
import Foundation
import ZeaderKit

/// `zeader import FILE`: subscribes to the feeds of an OPML file or a newsboat `urls` file.
///
/// ```sh
/// zeader import ~/.newsboat/urls && zeader refresh
/// ```
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import", abstract: "Subscribe to the feeds of an OPML file or a newsboat urls file.")

    @Argument(help: "The OPML or urls file ('-' reads stdin).")
    var file: String

    @OptionGroup var store: StoreOptions

    func run() throws {
        let data: Data
        do {
            data =
                file == "-"
                ? FileHandle.standardInput.readDataToEndOfFile() : try Data(contentsOf: URL(fileURLWithPath: file))
        } catch {
            CommandOutput.warn("zeader import: cannot read \(file): \((error as NSError).localizedDescription)")
            throw ExitCode.failure
        }
        let library = FeedLibrary(store: try store.openStore(command: "import"))
        do {
            let report = try library.importSubscriptions(data: data, source: file)
            for note in report.notes { CommandOutput.warn("zeader import: \(TerminalText.line(note))") }
            var line = "imported \(report.added) feed\(report.added == 1 ? "" : "s") from \(file)"
            if report.alreadySubscribed > 0 { line += " (\(report.alreadySubscribed) already subscribed)" }
            CommandOutput.write(line + "\n")
        } catch {
            throw CommandOutput.fail("import", error)
        }
    }
}
