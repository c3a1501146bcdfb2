import ArgumentParser
import Foundation
import ZeaderConfig
import ZeaderKit

/// `zeader cleanup [--vacuum] [--max-items N] [--keep-days N]`: removes old items by the
/// config's retention settings (`max-items`, `keep-days`, `cleanup-keeps`), leaving a
/// tombstone per item so no refresh stores it again.
///
/// ```sh
/// zeader cleanup --vacuum
/// ```
struct CleanupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cleanup", abstract: "Remove old items by the config's max-items and keep-days (flagged and unread kept).",
        discussion: """
            Each feed keeps its max-items newest items and those younger than keep-days (config directives, per feed \
            or tag or for all); flagged and unread items stay unless `cleanup-keeps` says otherwise. A removed item's \
            guid is kept as a tombstone, so the next refresh does not store it again. --max-items and --keep-days \
            set the limits for every feed for this run, over the config's lines for all feeds.
            """)

    @Flag(help: "Then rebuild the store's file so that it shrinks (SQLite VACUUM; needs free space about its size).")
    var vacuum = false

    @Option(help: ArgumentHelp("Keep at most N items per feed (0: no limit).", valueName: "N"))
    var maxItems: Int?

    @Option(help: ArgumentHelp("Keep items at most N days old (0: no limit).", valueName: "N"))
    var keepDays: Int?

    @OptionGroup var store: StoreOptions

    func validate() throws {
        if let maxItems, maxItems < 0 { throw ValidationError("--max-items must be 0 or more, not \(maxItems)") }
        if let keepDays, keepDays < 0 { throw ValidationError("--keep-days must be 0 or more, not \(keepDays)") }
    }

    func run() throws {
        let config = try ReaderConfig.loadOrExit(command: "cleanup")
        var policy = config.retention
        if let maxItems { policy.maxItems.append(.init(scope: .all, value: maxItems)) }
        if let keepDays { policy.keepDays.append(.init(scope: .all, value: keepDays)) }
        let library = FeedLibrary(store: try store.openStore(command: "cleanup", writes: true))
        let report: CleanupReport
        do {
            policy = try library.retention(policy, with: config.feedSettings)  // each feed's own first
            report = try library.cleanup(policy: policy, vacuum: vacuum)
        } catch {
            throw CommandOutput.fail("cleanup", error)
        }
        CommandOutput.write(Self.summary(report, limited: !policy.isEmpty) + "\n")
    }

    /// `removed 900 items from 3 feeds (…)`.
    static func summary(_ report: CleanupReport, limited: Bool) -> String {
        var line =
            "removed \(report.removedItems) item\(report.removedItems == 1 ? "" : "s") from \(report.feeds) feed\(report.feeds == 1 ? "" : "s")"
        var details: [String] = []
        if !limited { details.append("no max-items or keep-days configured") }
        if report.droppedTombstones > 0 { details.append("\(report.droppedTombstones) old tombstones dropped") }
        if let bytes = report.reclaimedBytes { details.append("vacuumed, \(ByteCount.text(bytes)) given back") }
        if !details.isEmpty { line += " (" + details.joined(separator: ", ") + ")" }
        return line
    }
}
