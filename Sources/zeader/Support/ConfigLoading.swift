import ArgumentParser
import ZeaderConfig

extension ReaderConfig {
    /// The config file as `zeader COMMAND` reads it, the same way for every command: a file
    /// that does not load is one line on stderr, `zeader COMMAND: file:line: message` (`zeader:`
    /// for the reader), and exit status 1, before the command touches the store. Warnings are
    /// left to the reader's status line and `zeader config check`, so that a command's output
    /// (a cron job's mail) stays its own.
    ///
    /// ```swift
    /// let rules = try ReaderConfig.loadOrExit(command: "ignore add").ignoreRules
    /// ```
    static func loadOrExit(command: String?) throws(ExitCode) -> ReaderConfig {
        do {
            return try load()
        } catch {
            let prefix = command.map { "zeader \($0)" } ?? "zeader"
            CommandOutput.warn("\(prefix): \(TerminalText.line(String(describing: error)))")
            throw ExitCode.failure
        }
    }
}
