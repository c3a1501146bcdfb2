import Foundation
import ObjectGraph
import ZeaderConfig
import ZeaderKit

// The reader's timed refresh and each feed's `reload-interval` (ZeaderKit's FeedSettingsScopes).
extension ReaderApp {
    /// Minutes between two timed refreshes: the config's `refresh-interval`, or a feed's
    /// shorter `reload-interval`; nil: no timer. With a sync account, `refresh-interval` only
    /// (the server fetches the feeds).
    func refreshTimerMinutes() -> Int? {
        let global = config.refreshIntervalMinutes > 0 ? config.refreshIntervalMinutes : nil
        guard refresher?.syncs != true else { return global }
        let shortest: Int? = (try? config.feedSettings.shortestInterval(in: model.context)) ?? nil
        return [global, shortest].compactMap { $0 }.filter { $0 > 0 }.min()
    }

    /// The timer's refresh: the feeds whose interval has passed (their own, else
    /// `refresh-interval`); every feed with a sync account.
    func timedRefresh() {
        guard refresher?.syncs != true else { return refresh([]) }
        let global = config.refreshIntervalMinutes > 0 ? config.refreshIntervalMinutes : nil
        guard
            let due = try? config.feedSettings.dueServers(defaultMinutes: global, withoutInterval: false, in: model.context)
        else {
            return refresh([])
        }
        if !due.isEmpty { refresh(due) }
    }
}
