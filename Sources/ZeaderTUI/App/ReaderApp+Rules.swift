import ZeaderConfig
import ZeaderKit

extension ReaderApp {
    /// After a refresh whose rules acted: their `mark-read` and `flag` on the view context as
    /// one undo step (``ItemRules/applyChanges(_:in:)``), then their notifications and
    /// programs in the background; each problem goes to the status line. On `queue`.
    func applyRules(_ summary: RefreshSummary) {
        let firings = summary.results.flatMap { result in result.firings.map { (server: result.serverID, firing: $0) } }
        guard !firings.isEmpty else { return }
        do { try ItemRules.applyChanges(firings, in: model.context) } catch { state.say(.failed("\(error)")) }
        let notifyProgram = config.articleCommands.notifyProgram
        let fired = firings.map(\.firing)
        effects.task { [self] in
            let problems = await RuleEffects.perform(fired, notifyProgram: notifyProgram)
            guard let problem = problems.first else { return }
            queue.async { [self] in
                state.say(.failed(problem))
                redraw()
            }
        }
    }
}
