import ZeaderConfig
import ZeaderKit

extension ReaderApp {
    /// Starts `notify-program` after a refresh that stored new items, without waiting; if it
    /// fails, the status line says so in one line. On `queue`.
    func notifyNewItems(_ summary: RefreshSummary) {
        guard let program = RefreshNotifier.program(configured: config.articleCommands.notifyProgram),
            let message = RefreshNotifier.message(for: summary)
        else { return }
        do {
            try effects.notify(command: program.command, message: message) { [self] problem in
                guard let problem, !program.isFallback else { return }
                queue.async { [self] in
                    state.say(.reader(.notifyFailed(problem)))
                    redraw()
                }
            }
        } catch {
            if !program.isFallback { state.say(.reader(.notifyFailed(error.description))) }
        }
    }
}
