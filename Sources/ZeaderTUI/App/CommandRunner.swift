import Feeds
import Foundation

/// Runs a command the user wrote (pipe, bookmark, notify) without a shell: its words are
/// split as a shell would split them (``CommandWords``: quotes group, `\` escapes, no
/// expansions), and the program is found on `$PATH`. Write `sh -c '…'` to get a shell.
///
/// ```swift
/// try CommandRunner.arguments("grep -i \"swift linux\"")   // ["grep", "-i", "swift linux"]
/// let status = try CommandRunner.run(["wc", "-l"], input: Data("a\nb\n".utf8))
/// ```
enum CommandRunner {
    /// The words of `command` (``CommandWords``); an error for an empty command.
    static func arguments(_ command: String) throws(ExportError) -> [String] {
        let words = CommandWords.split(command)
        guard !words.isEmpty else { throw ExportError("no command given") }
        return words
    }

    /// Runs `argv` with `input` on its standard input (nothing when nil) and waits; returns
    /// its exit status. Its output goes to the terminal.
    static func run(_ argv: [String], input: Data? = nil) throws(ExportError) -> Int32 {
        let outcome: Subprocess.Outcome
        do { outcome = try Subprocess.run(argv, input: input) } catch { throw ExportError(error.description) }
        switch outcome.termination {
        case .exited(let status): return status
        case .signalled(let signal): return 128 + signal
        }
    }
}
