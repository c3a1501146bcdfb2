import ArgumentParser
import Foundation
import ZeaderKit

/// `zeader check`: SQLite's `integrity_check` over the store, read-only, then the command
/// and file feeds no origin vouches for (``FeedTrust``), one line each on stderr.
///
/// ```sh
/// zeader check || zeader export --json > rescue.json
/// ```
struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract:
            "Check the store for damage (SQLite's integrity_check); exit 1 if it is damaged. Also list command and file feeds nobody vouched for.",
        discussion:
            "Opens the store for reading only and prints \"ok\" with the store's path, or each problem SQLite finds (at most 100 lines) and how to rescue the rest: `zeader export --json` salvages what can still be read, and `zeader import` restores it into a new store. It also lists on stderr, one line each, every exec:, filter: or file: feed that came from an import, a sync server or an unknown source (a store made before Zeader recorded where feeds come from), with how to keep it (`zeader trust URL`) or drop it (`zeader remove URL`); those lines do not change the exit status."
    )

    @OptionGroup var store: StoreOptions

    /// The most problem lines printed.
    static let shownProblems = 100

    func run() throws {
        let path = store.url.path
        let problems: [String]
        do {
            problems = try ZeaderStore.integrityProblems(at: store.url)
        } catch {
            throw CommandOutput.fail("check", error)
        }
        if problems.isEmpty {
            CommandOutput.write("ok: \(TerminalText.line(path))\n")
            warnUnvouchedFeeds()
            return
        }
        var out = problems.prefix(Self.shownProblems).map { TerminalText.line($0) + "\n" }.joined()
        if problems.count > Self.shownProblems { out += "… and \(problems.count - Self.shownProblems) more\n" }
        CommandOutput.write(out)
        throw CommandOutput.fail(
            "check", .store(.damaged(path: path, detail: "\(problems.count) problem\(problems.count == 1 ? "" : "s") found")))
    }

    /// One line on stderr for each command or file feed no origin vouches for.
    private func warnUnvouchedFeeds() {
        guard let opened = try? ZeaderStore.openForReading(at: store.url),
            let feeds = try? FeedLibrary(store: opened).unvouchedFeeds()
        else { return }
        for feed in feeds { CommandOutput.warn("zeader check: \(TerminalText.line(Messages.unvouched(feed)))") }
    }
}
