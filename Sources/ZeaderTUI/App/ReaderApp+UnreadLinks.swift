import ObjectGraph
import ZeaderConfig
import ZeaderKit

/// newsboat's actions on a list's unread items: `open-all-unread-in-browser` (and
/// `-and-mark-read`), at most `max-browser-tabs` links, and `mark-all-above-as-read`.
extension ReaderApp {
    /// The unread items of the item list shown (the article's list while reading), or of the
    /// feed under the cursor in the feed list, oldest page first as the list orders them.
    func unreadItemsOfTheList() -> [ObjectID] {
        let ids: [ObjectID]
        switch state.top {
        case .items(let list): ids = list.ids
        case .article: ids = state.items?.ids ?? []
        case .feeds:
            guard let feed = state.selectedFeed, let server = feed.serverID else { return [] }
            var views = state.views
            views.showReadArticles = false
            ids = (try? model.itemPage(.server(server), views: views, filter: nil, atLeast: 0).0) ?? []
        case .help, .picker: return []
        }
        return ids.filter { !model.isRead($0) }
    }

    /// Opens the unread items' links, one browser run after another, the first
    /// `max-browser-tabs` of them; marks each opened item read when `markingRead`.
    func openAllUnreadInBrowser(markingRead: Bool) {
        let unread = unreadItemsOfTheList()
        guard !unread.isEmpty else { return state.say(.reader(.noUnreadLinks)) }
        var opened = 0
        for id in unread where opened < config.behaviour.maxBrowserTabs {
            guard let link = model.item(id)?.link, !link.isEmpty else { continue }
            open(link: link)
            opened += 1
            if markingRead { attempt { try model.setRead(id, true) } }
        }
        if opened == 0 { state.say(.noLinkToOpen) }
    }

    /// Marks read every item above the cursor of the item list.
    func markAllAboveAsRead() {
        guard case .items(let list) = state.top else { return notHere(.markAllAboveAsRead) }
        let above = list.ids.prefix(list.position.cursor).filter { !model.isRead($0) }
        attempt {
            for id in above { try model.setRead(id, true) }
            state.say(.markedRead(true))
        }
    }
}
