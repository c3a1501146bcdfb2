import ArgumentParser
import Foundation
import ZeaderKit

/// `zeader export [--json]`: the subscriptions as OPML 2.0 on stdout, or with `--json` a
/// backup of every feed and item (restored by `zeader import`).
///
/// ```sh
/// zeader export > feeds.opml
/// zeader export --json > backup.json
/// ```
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export", abstract: "Print the subscriptions as OPML 2.0, or a JSON backup of feeds and items.",
        discussion:
            "OPML carries each feed's tags as its folder and `category` attribute. The JSON backup holds every feed (url, title, siteLink, displayOrder, tags, etag, lastModified) and item (feed, guid, title, link, author, summary, content, published, updated, read, flagged, firstSeen); `zeader import` restores it. Items are written oldest first, so a restore keeps the order of items that share a date. From a damaged store, --json salvages every row that can still be read (warning on stderr about the rest) and exits 1; so does a backup stdout cannot take whole (a full disk), saying so."
    )

    @Flag(help: "Write a JSON backup of every feed and item instead of OPML.")
    var json = false

    @OptionGroup var store: StoreOptions

    func run() throws {
        guard json else {
            let library = FeedLibrary(store: try store.openStore(command: "export"))
            do {
                CommandOutput.write(try library.exportOPML())
            } catch {
                throw CommandOutput.fail("export", error)
            }
            return
        }
        // A damaged store is salvaged: opened for reading only if it cannot be opened
        // otherwise, and read row by row from where the damage shows.
        var opened: ZeaderStore
        do {
            opened = try ZeaderStore.open(at: store.url)
        } catch .store(.damaged(_, let detail)) {
            CommandOutput.warn("zeader export: \(TerminalText.line(Messages.salvaging(detail: detail)))")
            opened = try store.openStore(command: "export", readOnly: true)
        } catch {
            throw CommandOutput.fail("export", error)
        }
        let report: BackupExportReport
        // The first error stdout gave: a backup cut short must not look like a whole one.
        var writeError: Int32?
        do {
            report = try FeedLibrary(store: opened).exportBackup(salvaging: { warning in
                CommandOutput.warn("zeader export: \(TerminalText.line(warning))")
            }) { text in
                if writeError == nil { writeError = CommandOutput.write(text) }
            }
        } catch {
            throw CommandOutput.fail("export", error)
        }
        if let writeError {
            CommandOutput.warn(
                "zeader export: cannot write the backup (\(String(cString: strerror(writeError)))); what was written is incomplete"
            )
            throw ExitCode(1)
        }
        if report.salvaged {
            CommandOutput.warn(
                "zeader export: salvaged \(report.feeds) feeds and \(report.items) items from a damaged store"
                    + (report.skippedKeys > 0 || report.orphans > 0 ? "; some rows could not be read (above)" : "")
                    + "; restore it with `zeader --db NEW.sqlite import FILE`")
            throw ExitCode(1)
        }
    }
}
