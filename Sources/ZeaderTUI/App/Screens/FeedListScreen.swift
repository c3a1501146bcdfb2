import Foundation
import ObjectGraph
import ZeaderConfig
import ZeaderKit

/// The feed list's handler: what each ``ScreenAction`` does on the list of subscriptions and
/// smart feeds.
extension ReaderApp {
    func feedList(_ action: ScreenAction) {
        switch action {
        case .open: openSelectedFeed()
        case .refreshFeed: refresh(state.selectedFeed?.serverID.map { [$0] } ?? [])
        case .step(let forward): state.move(forward ? .down : .up)
        case .goToFeed(let forward): goToFeed(forward: forward, unreadOnly: false)
        case .sort(let reverse): state.prompt = .sort(reverse: reverse, feeds: true)
        case .setFilter: state.prompt = .filter(text: state.views.feedFilter ?? "", error: nil)
        case .clearFilter: clearFeedFilter()
        case .selectFilter, .deleteAllArticles, .item: belongsElsewhere(action)
        case .deleteFeed: askDeleteFeed()
        case .moveFeed(let offset): moveFeed(by: offset)
        case .editURLs: editURLs()
        case .renameFeed: askFeedTitle()
        case .markFeedRead: markSelectedFeedRead()
        case .toggleSourceView: notHere(action.action)
        }
    }

    /// ENTER: the selected feed's or smart feed's items.
    func openSelectedFeed() {
        guard let row = state.selectedFeed else { return notHere(.open) }
        let source: ItemSource
        switch row.kind {
        case .server(let id): source = .server(id)
        case .smart(let format, _): source = .smart(predicateFormat: format)
        }
        showItems(source, title: row.title)
    }

    /// `D`: asks before deleting the selected subscription.
    func askDeleteFeed() {
        guard let row = state.selectedFeed, let id = row.serverID else { return state.say(.selectFeedToDelete) }
        state.prompt = .confirmDelete(title: row.title, id: id)
    }

    /// `i`: asks for the selected subscription's new title, its current one to edit.
    func askFeedTitle() {
        guard let id = state.selectedFeed?.serverID else { return state.say(.reader(.renameNeedsAFeed)) }
        state.prompt = .renameFeed(text: model.feedTitle(of: id) ?? "", id: id)
    }

    /// Gives the feed `id` the title `text` (empty: its own), one undo step pushed to its account.
    func renameFeed(_ id: ObjectID, to text: String) {
        attempt {
            let title = try FeedEditing.retitle(id, to: text, in: model.context)
            reloadFromModel()
            state.say(.reader(.feedRenamed(title)))
        }
    }

    /// `[`/`]`: moves the selected subscription up or down the list.
    func moveFeed(by offset: Int) {
        guard let id = state.selectedFeed?.serverID else { return state.say(.reader(.smartFeedsStayLast)) }
        attempt {
            try model.moveServer(id, by: offset)
            reloadFromModel()
            if let index = state.feeds.firstIndex(where: { $0.serverID == id }) {
                state.feedPosition.set(index, count: state.feeds.count, height: state.listHeight)
            }
        }
    }

    /// `A`: marks the selected feed (or every item a smart feed matches) read.
    func markSelectedFeedRead() {
        guard let row = state.selectedFeed else { return state.say(.markReadNeedsAFeed) }
        attempt { state.say(.markedItemsRead(try model.markRead(row.kind))) }
    }

    /// `^F`: removes the feed list's filter.
    func clearFeedFilter() {
        guard state.views.feedFilter != nil else { return state.say(.reader(.noFilter)) }
        state.views.feedFilter = nil
        state.views.feedFilterMatches = []
        rearrangeFeeds()
        state.say(.reader(.filterCleared))
    }
}
