import ArgumentParser
import Feeds
import Foundation
import ZeaderKit

/// The folder parts of `zeader sync`: `sync add folder:PATH`, `sync remove folder`,
/// `sync status [folder] [--json]` and `sync` itself when the store syncs through a folder;
/// and the runs `zeader refresh` makes (``FolderSyncEngine``).
///
/// ```sh
/// zeader sync add folder:~/Sync
/// zeader sync status folder --json
/// ```
enum FolderSyncCommand {
    /// The prefix that names a shared folder instead of a server's API URL.
    static let prefix = "folder:"

    /// The word that names the folder where an account's name goes (`sync status folder`,
    /// `sync remove folder`, `sync --account folder`).
    static let name = SyncAccounts.folderName

    /// Whether `sync ACTION ARGUMENT --account ACCOUNT` is about the folder whatever the store holds.
    static func names(action: String?, argument: String?, account: String? = nil) -> Bool {
        switch action {
        case "add": argument?.lowercased().hasPrefix(prefix) ?? false
        case "remove", "status": argument?.lowercased() == name || (argument == nil && account?.lowercased() == name)
        case nil: account?.lowercased() == name
        default: false
        }
    }

    /// Whether the store syncs through a folder and has no server account: then `sync`,
    /// `sync status` and `sync remove` are about the folder.
    static func isFolderOnly(_ store: ZeaderStore) -> Bool {
        guard (try? FolderSyncEngine(store: store).settings()) != nil else { return false }
        return (try? FeedSync(store: store).hasAccount()) != true
    }

    /// Runs a folder action of `zeader sync`.
    static func run(action: String?, argument: String?, json: Bool, store: ZeaderStore) throws {
        let sync = FolderSyncEngine(store: store)
        do {
            switch action {
            case "add":
                let path = HomePath.expanding(String((argument ?? "").dropFirst(prefix.count)))
                guard !path.isEmpty else { throw ZeaderError.folderSync(.missingFolder(path: "")) }
                let run = try sync.add(folder: path)
                let settings = try sync.settings()
                CommandOutput.write(
                    "folder sync added: \(TerminalText.line(settings?.folder)) (this device: \(settings?.device ?? ""))\n")
                report(run, command: "sync")
            case "remove":
                guard try sync.remove() else { throw ZeaderError.folderSync(.notSetUp) }
                CommandOutput.write("folder sync removed (feeds and items kept; this device's files stay in the folder)\n")
            case "status":
                guard let status = try sync.status() else { throw ZeaderError.folderSync(.notSetUp) }
                CommandOutput.write(
                    json
                        ? FolderSyncJSON.status(status)
                        : status.text.split(separator: "\n").map {
                            TerminalText.line(String($0)) + "\n"
                        }.joined())
            default:
                report(try sync.run(), command: "sync")
            }
        } catch let error as ZeaderError {
            throw CommandOutput.fail("sync", error)
        }
    }

    /// The folder's part of `zeader sync` beside accounts: a run when the store syncs through
    /// a folder, printed; a failure is one line on stderr naming the folder. False when it failed.
    static func syncAlongside(_ store: ZeaderStore) -> Bool {
        do {
            guard let run = try FolderSyncEngine(store: store).runIfSetUp() else { return true }
            report(run, command: "sync")
            return true
        } catch {
            CommandOutput.warn("zeader sync: \(name): \(TerminalText.line(error.description))")
            return false
        }
    }

    /// Prints a run: its refusals, what it held back and the folder's problems on stderr, its line on stdout.
    static func report(_ run: FolderSyncRun, command: String) {
        for line in run.refusals.map(\.description) + run.heldBack + run.problems {
            CommandOutput.warn("zeader \(command): \(TerminalText.line(line))")
        }
        CommandOutput.write(run.line + "\n")
    }

    /// The folder sync of `zeader refresh`: a run before the feeds are fetched (so that
    /// feeds another device subscribed to are fetched now) and one after (so that items just
    /// stored take the marks other devices gave them, and this refresh's changes are sent),
    /// which prints what both did (`before`: the first). A failure is one line on stderr; the
    /// refresh goes on.
    @discardableResult
    static func refreshRun(_ store: ZeaderStore, before: FolderSyncRun?) -> FolderSyncRun? {
        do {
            guard var run = try FolderSyncEngine(store: store).runIfSetUp() else { return nil }
            guard let before else { return run }
            run.sent += before.sent
            run.received += before.received
            run.applied += before.applied
            run.refusals = before.refusals + run.refusals
            var seen = Set<String>()
            run.heldBack = (before.heldBack + run.heldBack).filter { seen.insert($0).inserted }
            run.compacted = run.compacted || before.compacted
            report(run, command: "refresh")
            return run
        } catch {
            CommandOutput.warn("zeader refresh: \(TerminalText.line(error.description))")
            return nil
        }
    }
}
