import ArgumentParser
import Foundation
import ZeaderKit

/// `zeader import FILE`: subscribes to the feeds of an OPML file or a newsboat `urls` file
/// (folders, categories and tags become tags), restores a JSON backup made by
/// `zeader export --json` (merged with what the store holds; an interrupted restore resumes),
/// or imports newsboat's `cache.db` with its feeds, items, read state and flags
/// (`ImportCommand+Newsboat.swift`).
///
/// ```sh
/// zeader import ~/.newsboat/urls && zeader refresh
/// ```
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Subscribe to the feeds of an OPML or newsboat urls file, restore a JSON backup, or import newsboat's cache.db."
    )

    @Argument(help: "The OPML, urls, backup or newsboat cache.db file ('-' reads OPML or urls from stdin).")
    var file: String

    @Option(
        help: ArgumentHelp(
            "With a newsboat cache.db: its urls file (feeds, order, tags); default: a urls file beside the cache or in ~/.config/newsboat.",
            valueName: "FILE"))
    var urls: String?

    @OptionGroup var store: StoreOptions

    func run() throws {
        let data: Data
        do {
            data =
                file == "-"
                ? FileHandle.standardInput.readDataToEndOfFile()
                : try Data(contentsOf: URL(fileURLWithPath: file), options: .alwaysMapped)
        } catch {
            CommandOutput.warn("zeader import: cannot read \(file): \((error as NSError).localizedDescription)")
            throw ExitCode.failure
        }
        let library = FeedLibrary(store: try store.openStore(command: "import", writes: true))
        if FeedLibrary.looksLikeSQLite(data) {
            try importNewsboatCache(into: library)
            return
        }
        if urls != nil {
            CommandOutput.warn("zeader import: --urls goes with a newsboat cache.db, and \(file) is not one")
            throw ExitCode(2)
        }
        if FeedLibrary.looksLikeBackup(data) {
            guard file != "-" else {
                CommandOutput.warn(
                    "zeader import: a JSON backup must be given as a file (it is read in place and can be resumed)")
                throw ExitCode.failure
            }
            do {
                let report = try library.restoreBackup(from: URL(fileURLWithPath: file))
                var line =
                    "restored \(report.feedsAdded) feed\(report.feedsAdded == 1 ? "" : "s") and \(report.itemsAdded) item\(report.itemsAdded == 1 ? "" : "s") from \(file)"
                if report.feedsUpdated + report.itemsUpdated > 0 {
                    line += " (updated \(report.feedsUpdated) feeds and \(report.itemsUpdated) items already stored)"
                }
                if report.resumedAfter > 0 { line += " (resumed after \(report.resumedAfter) items)" }
                CommandOutput.write(line + "\n")
            } catch {
                throw CommandOutput.fail("import", error)
            }
            return
        }
        let report: ImportReport
        do {
            report = try library.importSubscriptions(data: data, source: file)
        } catch {
            throw CommandOutput.fail("import", error)
        }
        for note in report.notes { CommandOutput.warn("zeader import: \(TerminalText.line(note))") }
        for entry in report.rejected { CommandOutput.warn("zeader import: \(TerminalText.line(entry))") }
        var line = "imported \(report.added) feed\(report.added == 1 ? "" : "s") from \(file)"
        if report.alreadySubscribed > 0 { line += " (\(report.alreadySubscribed) already subscribed)" }
        if !report.rejected.isEmpty { line += "; \(report.rejected.count) not imported" }
        CommandOutput.write(line + "\n")
        if !report.rejected.isEmpty { throw ExitCode.failure }
    }
}
