import Dispatch
import Foundation
import ObjectGraph
import ZeaderKit

/// How the reader's changes travel with a sync account: an edit is pushed once the edits
/// pause (``ReaderApp/pushDelay``), the account is synced every `sync-interval`, and quitting
/// pushes what is left, waiting at most ``ReaderApp/quitPushTimeout``. One sync or push of
/// the store runs at a time: what comes while one runs waits for its end.
///
/// ```swift
/// app.schedulePush()   // after an edit saved from another context
/// ```
extension ReaderApp {
    /// Whether a sync (a refresh) or a push is running.
    var syncOrPushRunning: Bool { state.refreshProgress != nil || pushRunning }

    /// A timer on `queue` that refreshes (syncs) every `seconds`, skipping a turn while one runs.
    func backgroundRefreshTimer(seconds: Int) -> EffectTimer {
        effects.repeating(every: seconds, on: queue) { [weak self] in
            guard let self, !self.quitting, !self.syncOrPushRunning else { return }
            self.timedRefresh()
            self.redraw()
        }
    }

    /// Pushes the changes made here ``pushDelay`` seconds after the last call (with a sync
    /// account; nothing otherwise).
    func schedulePush() {
        guard !quitting, !hasQuit, let refresher, refresher.syncs else { return }
        pushWork?.cancel()
        pushWork = effects.once(after: pushDelay, on: queue) { [weak self] in self?.pushNow() }
    }

    /// Pushes now, or once the running sync or push ends.
    private func pushNow() {
        pushWork = nil
        guard !hasQuit else { return }
        if syncOrPushRunning {
            pushWanted = true
            return
        }
        guard let refresher, refresher.pendingChanges() > 0 else { return }
        startPush(refresher)
    }

    private func startPush(_ refresher: ReaderRefresher) {
        pushRunning = true
        effects.task { [self] in
            let outcome: Result<Int, ZeaderError>
            do throws(ZeaderError) {
                outcome = .success(try await refresher.push())
            } catch {
                outcome = .failure(error)
            }
            queue.async { [self] in
                finishPush(outcome)
                if !hasQuit { redraw() }
            }
        }
    }

    private func finishPush(_ outcome: Result<Int, ZeaderError>) {
        pushRunning = false
        switch outcome {
        case .success: lastPushError = nil
        case .failure(let error):
            lastPushError = error.description
            if !quitting {
                state.say(.pushFailed(Messages.syncFailed(error.description, pending: refresher?.pendingChanges() ?? 0)))
            }
        }
        backgroundWorkEnded()
    }

    /// Runs what waited for the sync or push that just ended: quitting, a refresh the user
    /// asked for, or a push of the edits made meanwhile.
    func backgroundWorkEnded() {
        if quitting {
            continueQuit()
        } else if let servers = queuedRefresh {
            queuedRefresh = nil
            refresh(servers)
        } else if pushWanted {
            pushWanted = false
            pushNow()
        }
    }

    // MARK: Quitting

    /// Starts quitting with a sync account: stops the timers, gives up after
    /// ``quitPushTimeout``, and pushes once the running sync or push ends.
    func startQuitPush() {
        quitting = true
        lastPushError = nil
        stop()
        // Reached only while a sync or the push still runs: a push that ended has quit already.
        quitDeadline = effects.once(after: quitPushTimeout, on: queue) { [weak self] in
            guard let self else { return }
            self.lastPushError = ReaderMessage.pushTimedOut(seconds: self.quitPushTimeout).text
            self.finishQuit()
        }
        continueQuit()
    }

    /// Pushes the changes left (once), then quits.
    private func continueQuit() {
        guard !hasQuit else { return }
        if syncOrPushRunning {
            state.say(.reader(.pushingOnQuit(nil)))
            redraw()
            return
        }
        guard let refresher, !quitPushTried else { return finishQuit() }
        let pending = refresher.pendingChanges()
        guard pending > 0 else { return finishQuit() }
        quitPushTried = true
        state.say(.reader(.pushingOnQuit(pending)))
        redraw()
        startPush(refresher)
    }

    /// The line printed when `signal` ends the reader with changes not pushed (they stay
    /// queued for the next sync), or nil when there are none.
    ///
    /// ```swift
    /// if let line = app.keptChangesNotice(signal: SIGTERM) { print(line) }
    /// ```
    func keptChangesNotice(signal: Int32) -> String? {
        guard let refresher, refresher.syncs else { return nil }
        let pending = refresher.pendingChanges()
        return pending > 0 ? Messages.syncFailed(ReaderMessage.stoppedBySignal(signal).text, pending: pending) : nil
    }

    /// Quits now; with changes not pushed, keeps the line that says so (``quitNotice``).
    func finishQuit() {
        guard !hasQuit else { return }
        hasQuit = true
        quitDeadline?.cancel()
        quitDeadline = nil
        stop()
        if quitting, let refresher {
            let pending = refresher.pendingChanges()
            if pending > 0 {
                quitNotice = Messages.syncFailed(
                    lastPushError ?? ReaderMessage.quitBeforePush.text, pending: pending)
            }
        }
        onQuit?()
    }
}
