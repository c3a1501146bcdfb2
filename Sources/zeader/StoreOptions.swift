import ArgumentParser
import Foundation
import ZeaderKit

/// `--db PATH`, accepted by every command (before or after its name: see `Zeader.main`).
struct StoreOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The store (default: $ZEADER_DB, else $XDG_DATA_HOME/zeader/zeader.sqlite).", valueName: "PATH"))
    var db: String?

    /// The store's file.
    var url: URL { ZeaderPaths.databaseURL(explicit: db) }

    /// Opens the store, or reports why not and exits with status 1. A command that
    /// `writes` refuses a store it may only read with one line, before doing anything.
    func openStore(command: String, writes: Bool = false, readOnly: Bool = false) throws -> ZeaderStore {
        let store: ZeaderStore
        do {
            store = try ZeaderStore.open(at: url, readOnly: readOnly)
        } catch {
            throw CommandOutput.fail(command, error)
        }
        if writes && store.isReadOnly {
            throw CommandOutput.fail(command, .store(.readOnlyStore(path: url.path)))
        }
        return store
    }
}

/// Output helpers shared by the commands: stdout in one write, one-line errors on stderr.
enum CommandOutput {
    /// Writes `text` to stdout (file descriptor 1), all of it; returns the error number when
    /// stdout refuses it (a full disk, a pipe to `head` closed), which a listing ignores and a
    /// backup reports.
    @discardableResult
    static func write(_ text: String) -> Int32? {
        var text = text
        return text.withUTF8 { bytes -> Int32? in
            guard var pointer = bytes.baseAddress else { return nil }
            var remaining = bytes.count
            while remaining > 0 {
                let written = Foundation.write(STDOUT_FILENO, pointer, remaining)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                pointer += written
                remaining -= written
            }
            return nil
        }
    }

    /// Writes one line to stderr.
    static func warn(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// Reports `error` as `zeader COMMAND: message` on stderr and returns the exit code to
    /// throw: 2 for usage errors (a bad URL or predicate), 1 for everything else.
    static func fail(_ command: String, _ error: ZeaderError) -> ExitCode {
        warn("zeader \(command): \(TerminalText.line(error.description))")
        return ExitCode(error.isUsageError ? 2 : 1)
    }
}
