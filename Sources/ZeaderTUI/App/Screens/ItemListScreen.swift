import Foundation
import ObjectGraph
import ZeaderConfig
import ZeaderKit

/// The item list's handler: what each ``ScreenAction`` does on a feed's, a smart feed's or a
/// search's items.
extension ReaderApp {
    func itemList(_ action: ScreenAction) {
        switch action {
        case .open:
            guard let id = state.items?.selectedID else { return notHere(action.action) }
            showArticle(id)
        case .refreshFeed: refreshOpenFeed()
        case .step(let forward): goToFeed(forward: forward, unreadOnly: false)
        case .goToFeed(let forward): goToFeed(forward: forward, unreadOnly: false)
        case .sort(let reverse): state.prompt = .sort(reverse: reverse, feeds: false)
        case .setFilter: state.prompt = .filter(text: state.items?.filter ?? "", error: nil)
        case .clearFilter: clearItemFilter()
        case .selectFilter: showFilterList()
        case .deleteFeed, .editURLs, .renameFeed: belongsElsewhere(action)
        case .moveFeed: notHere(action.action)
        case .markFeedRead: markListRead()
        case .deleteAllArticles: confirmDeleteAllArticles()
        case .toggleSourceView: notHere(action.action)
        case .item(let itemAction):
            guard let id = state.items?.selectedID else { return state.say(.reader(.needsItem)) }
            onItem(itemAction, id)
        }
    }

    /// `r` below the feed list: the feed whose items are listed, else every feed.
    func refreshOpenFeed() {
        if case .server(let id)? = state.items?.source { refresh([id]) } else { refresh([]) }
    }

    /// `A` on a list (or an article of it): its feed, its smart feed, or the search results
    /// listed (exactly those, as one undo step).
    func markListRead() {
        let kind: FeedRow.Kind
        switch state.items?.source {
        case .server(let id): kind = .server(id)
        case .smart(let format): kind = .smart(predicateFormat: format, id: nil)
        case .search, .feedSearch:
            let ids = state.items?.ids ?? []
            return attempt { state.say(.markedItemsRead(try model.markRead(ids))) }
        case nil: return state.say(.markReadNeedsAFeed)
        }
        attempt { state.say(.markedItemsRead(try model.markRead(kind))) }
    }

    /// `^F`: removes the item list's filter.
    func clearItemFilter() {
        guard state.items?.filter != nil else { return state.say(.reader(.noFilter)) }
        reloadItemList(filter: .some(nil))
        state.say(.reader(.filterCleared))
    }

    /// `^D`: asks before deleting every item of the list.
    func confirmDeleteAllArticles() {
        loadRestOfItemList()
        let ids = state.items?.ids ?? []
        guard !ids.isEmpty else { return state.say(.reader(.noItemsToDelete)) }
        // `confirm-delete-all-articles no`: at once (u undoes).
        guard config.behaviour.confirmDeleteAllArticles else {
            return attempt { state.say(.reader(.deletedItems(try ItemDeletion.delete(ids, in: model.context)))) }
        }
        state.prompt = .confirmDeleteItems(count: ids.count, ids: ids)
    }
}
