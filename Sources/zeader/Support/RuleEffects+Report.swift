import Feeds
import Foundation
import ZeaderConfig
import ZeaderKit

extension RuleEffects {
    /// The command line's end of a refresh or sync whose rules acted: each firing logged on
    /// stderr (`zeader COMMAND: rule '…' on "TITLE" (FEED)`), then the full articles a sync's
    /// firings ask for (with `store`: a refresh fetches its own), their notifications and
    /// programs, each problem on stderr too.
    ///
    /// ```swift
    /// await RuleEffects.report(summary.results.flatMap(\.firings), command: "refresh", config: config)
    /// ```
    static func report(_ firings: [ItemRules.Firing], command: String, config: ReaderConfig, store: ZeaderStore? = nil) async {
        guard !firings.isEmpty else { return }
        for firing in firings { CommandOutput.warn("zeader \(command): \(TerminalText.line(Messages.ruleFired(firing)))") }
        if let store {
            let fetcher = FeedFetcher(configuration: config.refreshOptions(RefreshOptions()).fetcherConfiguration)
            _ = await FeedLibrary(store: store).fetchFullArticles(
                for: firings, selectors: config.articleSelectors, with: fetcher)
        }
        for problem in await perform(firings, notifyProgram: config.articleCommands.notifyProgram) {
            CommandOutput.warn("zeader \(command): \(TerminalText.line(problem))")
        }
    }
}
