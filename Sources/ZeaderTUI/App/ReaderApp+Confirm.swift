import ZeaderConfig

/// The questions newsboat's `confirm-exit`, `confirm-mark-feed-read` and
/// `confirm-mark-all-feeds-read` ask before `q` quits from the feed list, `A` marks a feed
/// read and `C` marks every feed read (``ReaderBehaviour``). Without them nothing is asked.
extension ReaderApp {
    /// `q` on the last screen: quits, or asks first with `confirm-exit`.
    func quitAsking() {
        guard config.behaviour.confirmExit else { return quit() }
        state.prompt = .confirm(.quit)
    }

    /// `C`: whether `confirm-mark-all-feeds-read` asks first (the question is then open).
    func asksBeforeMarkingAllRead() -> Bool {
        guard config.behaviour.confirmMarkAllFeedsRead else { return false }
        state.prompt = .confirm(.markAllRead)
        return true
    }

    /// `A`: whether `confirm-mark-feed-read` asks first about the feed selected or listed.
    func asksBeforeMarkingFeedRead() -> Bool {
        guard config.behaviour.confirmMarkFeedRead else { return false }
        let title = state.screen == .feeds ? state.selectedFeed?.title : state.items?.title
        guard let title else { return false }
        state.prompt = .confirm(.markFeedRead(title: title))
        return true
    }

    /// The answer to a ``Confirmation``: `y` does it, `n` or ESC does not, another key waits.
    func answer(_ question: Confirmation, key: Key) {
        guard let yes = answer(key) else { return }
        state.prompt = nil
        guard yes else { return }
        switch question {
        case .quit: quit()
        case .markAllRead: markAllRead()
        case .markFeedRead: onScreen(.markFeedRead)
        }
    }
}

/// A yes/no question before an action newsboat's `confirm-…` settings guard.
///
/// ```swift
/// Prompt.confirm(.quit).line   // "Do you really want to quit? [y/n]"
/// ```
public enum Confirmation: Equatable, Sendable {
    case quit
    case markAllRead
    /// The feed (or list) shown or selected.
    case markFeedRead(title: String)

    /// The question as the prompt line shows it.
    var question: String {
        switch self {
        case .quit: return "Do you really want to quit? [y/n]"
        case .markAllRead: return "Mark every feed read? [y/n]"
        case .markFeedRead(let title): return "Mark \(title) read? [y/n]"
        }
    }
}

/// newsboat's `goto-first-unread`: a list opens on its first unread item.
extension ReaderApp {
    /// Puts the open list's cursor on its first unread item (it stays at the top when there is none).
    func selectFirstUnread() {
        guard let list = state.items, let index = model.firstUnread(in: list.ids, from: 0, forward: true) else { return }
        select(index, openArticle: false)
    }
}
