import ArgumentParser
import Foundation
import ZeaderKit

/// `zeader check`: SQLite's `integrity_check` over the store, read-only.
///
/// ```sh
/// zeader check || zeader export --json > rescue.json
/// ```
struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check", abstract: "Check the store for damage (SQLite's integrity_check); exit 1 if it is damaged.",
        discussion:
            "Opens the store for reading only and prints \"ok\" with the store's path, or each problem SQLite finds (at most 100 lines) and how to rescue the rest: `zeader export --json` salvages what can still be read, and `zeader import` restores it into a new store."
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
            return
        }
        var out = problems.prefix(Self.shownProblems).map { TerminalText.line($0) + "\n" }.joined()
        if problems.count > Self.shownProblems { out += "… and \(problems.count - Self.shownProblems) more\n" }
        CommandOutput.write(out)
        throw CommandOutput.fail(
            "check", .store(.damaged(path: path, detail: "\(problems.count) problem\(problems.count == 1 ? "" : "s") found")))
    }
}
