import Foundation
import ZeaderConfig
import ZeaderKit

extension RuleEffects {
    /// The command line's end of a refresh or sync whose rules acted: each firing logged on
    /// stderr (`zeader COMMAND: rule '…' on "TITLE" (FEED)`), then their notifications and
    /// programs, each problem on stderr too.
    ///
    /// ```swift
    /// await RuleEffects.report(summary.results.flatMap(\.firings), command: "refresh", config: config)
    /// ```
    static func report(_ firings: [ItemRules.Firing], command: String, config: ReaderConfig) async {
        guard !firings.isEmpty else { return }
        for firing in firings { CommandOutput.warn("zeader \(command): \(TerminalText.line(Messages.ruleFired(firing)))") }
        for problem in await perform(firings, notifyProgram: config.articleCommands.notifyProgram) {
            CommandOutput.warn("zeader \(command): \(TerminalText.line(problem))")
        }
    }
}
