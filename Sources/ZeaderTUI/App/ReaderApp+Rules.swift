import ZeaderConfig
import ZeaderKit

extension ReaderApp {
    /// After a refresh or sync whose rules acted: their changes to items on the view context as
    /// one undo step (``ItemRules/applyChanges(_:in:)``), then their notifications and
    /// programs (a sync's too) in the background; a problem goes to the status line. On `queue`.
    func applyRules(_ summary: RefreshSummary) {
        let firings = summary.results.flatMap { result in result.firings.map { (server: result.serverID, firing: $0) } }
        // A sync's rules changed its items as it stored them; their notifications and programs are the same.
        let fired = (summary.sync?.firings ?? []) + firings.map(\.firing)
        guard !fired.isEmpty else { return }
        do {
            try ItemRules.applyChanges(
                firings + ItemRules.withServers(summary.sync?.firings ?? [], in: model.context), in: model.context)
        } catch {
            state.say(.failed("\(error)"))
        }
        let notifyProgram = config.articleCommands.notifyProgram
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
