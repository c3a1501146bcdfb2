import ZeaderConfig
import ZeaderKit

extension ReaderApp {
    /// After a refresh: the message of `notify-format` (when it stored new items, or always
    /// with `notify-always`; a feed set to `notify no` is not counted) goes to the terminal's signals the config asks for and to
    /// `notify-program`, which starts without being waited for; if it fails, the status line
    /// says so in one line. On `queue`.
    func notifyNewItems(_ summary: RefreshSummary) {
        logRefreshErrors(summary)
        let unread = (try? model.feedRows(countingSmartFeeds: false).filter { $0.serverID != nil }.map(\.unread)) ?? []
        let quiet = (try? config.feedSettings.quietFeeds(in: model.context)) ?? []
        guard let message = config.notify.message(NotifyCounts(summary, unreadPerFeed: unread, quiet: quiet)) else {
            return
        }
        let signals = config.notify.terminalSignals(for: message)
        if !signals.isEmpty { backend.signal(signals) }
        guard let program = RefreshNotifier.program(configured: config.articleCommands.notifyProgram) else { return }
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
