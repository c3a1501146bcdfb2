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

    @Argument(
        help:
            "The OPML, urls, backup or newsboat cache.db file, or newsboat's folder ('-' reads OPML or urls from stdin)."
    )
    var file: String

    @Option(
        help: ArgumentHelp(
            "With a newsboat cache.db: its urls file (feeds, order, tags); default: a urls file beside the cache or in ~/.config/newsboat.",
            valueName: "FILE"))
    var urls: String?

    @Option(
        help: ArgumentHelp(
            "With a newsboat cache.db: podboat's queue file, put into the podcast queue; default: a queue file beside the cache.",
            valueName: "FILE"))
    var queue: String?

    @Flag(
        help:
            "Also subscribe to the exec:, filter: and file: feeds of an OPML file, backup or cache.db (listed and skipped otherwise): they run commands and read files at each refresh."
    )
    var allowCommands = false

    @Flag(
        help:
            "With a backup: also restore each feed's settings that reach the network (proxy, header, cookie, cookie-cache, ssl-verify, http-auth-method; password-command with --allow-commands too); listed and left out otherwise."
    )
    var trustSettings = false

    @OptionGroup var store: StoreOptions

    func run() throws {
        if let inside = try Self.newsboatFile(inFolder: file) {
            var command = self
            command.file = inside
            return try command.run()
        }
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
        if urls != nil || queue != nil { throw CommandOutput.fail("import", .urlsWithoutNewsboatCache(path: file)) }
        if FeedLibrary.looksLikeBackup(data) {
            guard file != "-" else { throw CommandOutput.fail("import", .backupFromStandardInput) }
            let report: BackupRestoreReport
            do {
                report = try library.restoreBackup(
                    from: URL(fileURLWithPath: file), allowCommands: allowCommands, trustSettings: trustSettings)
            } catch {
                throw CommandOutput.fail("import", error)
            }
            for entry in report.skipped + report.rejected + report.withheld {
                CommandOutput.warn("zeader import: \(TerminalText.line(entry))")
            }
            var line =
                "restored \(report.feedsAdded) feed\(report.feedsAdded == 1 ? "" : "s") and \(report.itemsAdded) item\(report.itemsAdded == 1 ? "" : "s") from \(file)"
            if report.feedsUpdated + report.itemsUpdated > 0 {
                line += " (updated \(report.feedsUpdated) feeds and \(report.itemsUpdated) items already stored)"
            }
            if report.resumedAfter > 0 { line += " (resumed after \(report.resumedAfter) items)" }
            line += Self.leftOut(skipped: report.skipped.count, rejected: report.rejected.count)
            if report.itemsSkipped > 0 { line += " (with \(report.itemsSkipped) item\(report.itemsSkipped == 1 ? "" : "s"))" }
            CommandOutput.write(line + "\n")
            if !report.rejected.isEmpty { throw ExitCode.failure }
            return
        }
        let report: ImportReport
        do {
            report = try library.importSubscriptions(data: data, source: file, allowCommands: allowCommands)
        } catch {
            throw CommandOutput.fail("import", error)
        }
        for note in report.notes { CommandOutput.warn("zeader import: \(TerminalText.line(note))") }
        for entry in report.skipped + report.rejected { CommandOutput.warn("zeader import: \(TerminalText.line(entry))") }
        var line = "imported \(report.added) feed\(report.added == 1 ? "" : "s") from \(file)"
        if report.alreadySubscribed > 0 { line += " (\(report.alreadySubscribed) already subscribed)" }
        if report.smartFeedsAdded > 0 {
            line += " and \(report.smartFeedsAdded) smart feed\(report.smartFeedsAdded == 1 ? "" : "s")"
        }
        line += Self.leftOut(skipped: report.skipped.count, rejected: report.rejected.count)
        CommandOutput.write(line + "\n")
        if !report.rejected.isEmpty { throw ExitCode.failure }
    }

    /// newsboat's folder (`~/.newsboat`, `~/.local/share/newsboat`, `~/.config/newsboat`) given
    /// instead of a file: its `cache.db` (with the urls and queue files beside it), else its
    /// `urls`; nil when `path` is not a folder. A folder with neither is one message, exit 1.
    static func newsboatFile(inFolder path: String) throws -> String? {
        var isFolder: ObjCBool = false
        guard path != "-", FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue else {
            return nil
        }
        let folder = URL(fileURLWithPath: path, isDirectory: true)
        for name in ["cache.db", "urls"]
        where FileManager.default.isReadableFile(atPath: folder.appendingPathComponent(name).path) {
            return folder.appendingPathComponent(name).path
        }
        CommandOutput.warn("zeader import: \(TerminalText.line(path)) is a folder without newsboat's cache.db or urls")
        throw ExitCode.failure
    }

    /// The summary's tail for feeds left out: `; 2 skipped (commands: rerun with
    /// --allow-commands to subscribe); 1 not imported`. Skipped command feeds are the
    /// import doing what it was allowed to (exit 0); feeds not imported make it fail.
    static func leftOut(skipped: Int, rejected: Int) -> String {
        var tail = ""
        if skipped > 0 { tail += "; \(skipped) skipped (commands: rerun with --allow-commands to subscribe)" }
        if rejected > 0 { tail += "; \(rejected) not imported" }
        return tail
    }
}
