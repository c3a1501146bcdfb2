import Foundation
import ObjectGraph
import ZeaderConfig
import ZeaderKit

/// newsboat's navigation: next/previous unread across feeds (wrapping), next/previous feed,
/// next/previous unread feed, random unread.
extension ReaderApp {
    /// `n` (forward) and `p`: the next unread item after the cursor, then in the following
    /// feeds with unread items, wrapping round to the top of the feed it started from.
    func jumpToUnread(forward: Bool) {
        let fromArticle = state.screen == .article
        if state.screen == .items || fromArticle, let list = state.items {
            // From the item list the cursor's own item counts; from an article, the ones after (before) it.
            let cursor = list.position.cursor
            let start = fromArticle ? cursor + (forward ? 1 : -1) : cursor
            if let index = model.firstUnread(in: list.ids, from: start, forward: forward) {
                select(index, openArticle: true)
                return
            }
            if forward, !list.isComplete {
                loadRestOfItemList()
                if let ids = state.items?.ids, let index = model.firstUnread(in: ids, from: start, forward: true) {
                    select(index, openArticle: true)
                    return
                }
            }
        } else if state.screen != .feeds {
            return notHere(forward ? .nextUnread : .prevUnread)
        }
        if state.screen != .feeds, !config.behaviour.gotoNextFeed {
            return state.say(forward ? .noMoreUnreadItems : .reader(.noPreviousUnreadItems))
        }
        // Through the feed list, from the feed after the open one (or the selected one), round to it again.
        let count = state.feeds.count
        let current = openFeedIndex() ?? state.feedPosition.cursor
        let firstStep = state.screen == .feeds ? 0 : 1
        guard count > 0 else {
            state.say(forward ? .noUnreadItems : .reader(.noPreviousUnreadItems))
            return
        }
        for step in firstStep...count {
            let index = ((current + (forward ? step : -step)) % count + count) % count
            let row = state.feeds[index]
            guard row.serverID != nil, row.unread > 0 else { continue }
            openFeed(at: index, keepArticle: fromArticle)
            loadRestOfItemList()
            guard let ids = state.items?.ids,
                let found = model.firstUnread(in: ids, from: forward ? 0 : ids.count - 1, forward: forward)
            else { continue }
            select(found, openArticle: true)
            return
        }
        state.say(forward ? .noMoreUnreadItems : .reader(.noPreviousUnreadItems))
    }

    /// The feed list row of the open item list's feed.
    func openFeedIndex() -> Int? {
        guard let source = state.items?.source else { return nil }
        switch source {
        case .server(let id): return state.feeds.firstIndex { $0.serverID == id }
        case .smart(let format): return state.feeds.firstIndex { if case .smart(format, _) = $0.kind { true } else { false } }
        case .feedSearch(_, let id): return state.feeds.firstIndex { $0.serverID == id }
        case .search: return nil
        }
    }

    /// Opens the feed list's row `index` as the item list (under the article view when
    /// `keepArticle`).
    func openFeed(at index: Int, keepArticle: Bool) {
        let article = keepArticle ? state.article : nil
        state.feedPosition.set(index, count: state.feeds.count, height: state.listHeight)
        state.stack = [.feeds]
        openSelectedFeed()
        if let article, state.screen == .items { state.stack.append(.article(article)) }
    }

    /// Puts the item list's cursor on `index`; opens that article (marking it read) when asked.
    func select(_ index: Int, openArticle: Bool) {
        guard var list = state.items else { return }
        list.position.set(index, count: list.ids.count, height: state.listHeight)
        state.items = list
        if openArticle { showArticle(list.ids[index]) }
    }

    /// The next/previous subscription (with unread items, wrapping, when `unreadOnly`).
    func goToFeed(forward: Bool, unreadOnly: Bool) {
        let count = state.feeds.count
        guard count > 0 else { return }
        let current = state.screen == .feeds ? state.feedPosition.cursor : (openFeedIndex() ?? state.feedPosition.cursor)
        for step in 1...count {
            var index = current + (forward ? step : -step)
            if unreadOnly {
                index = (index % count + count) % count
            } else if !state.feeds.indices.contains(index) {
                break
            }
            let row = state.feeds[index]
            guard row.serverID != nil, !unreadOnly || row.unread > 0, index != current || unreadOnly else { continue }
            openFeed(at: index, keepArticle: false)
            if unreadOnly, let ids = state.items?.ids, let first = model.firstUnread(in: ids, from: 0, forward: true) {
                select(first, openArticle: false)
            }
            return
        }
        state.say(unreadOnly ? .noUnreadItems : forward ? .reader(.noNextFeed) : .reader(.noPreviousFeed))
    }

    /// `^K`: a random unread item of any feed, opened in its feed's list.
    func randomUnread() {
        do {
            guard let id = try model.randomUnreadItem(), let server = model.serverID(ofItem: id) else {
                state.say(.noUnreadItems)
                return
            }
            if let index = state.feeds.firstIndex(where: { $0.serverID == server }) {
                openFeed(at: index, keepArticle: false)
            } else if let row = model.article(id) {
                showItems(.server(server), title: row.feedTitle)
            }
            if let index = state.items?.ids.firstIndex(of: id) {
                select(index, openArticle: true)
            } else {
                showArticle(id)
            }
        } catch {
            state.say(.failed("\(error)"))
        }
    }
}
