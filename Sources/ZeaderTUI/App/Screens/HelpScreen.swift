import Foundation
import ZeaderConfig

/// The help screen's handler: it lists keys, so the actions on a feed, a list or an item do
/// nothing here and say so; moving scrolls it.
extension ReaderApp {
    func helpScreen(_ action: ScreenAction) {
        switch action {
        case .open, .sort, .setFilter, .moveFeed, .toggleSourceView: notHere(action.action)
        case .refreshFeed: refreshOpenFeed()
        case .step(let forward): state.move(forward ? .down : .up)
        case .goToFeed(let forward): goToFeed(forward: forward, unreadOnly: false)
        case .clearFilter, .selectFilter, .deleteAllArticles, .deleteFeed, .editURLs, .renameFeed, .item: belongsElsewhere(action)
        case .markFeedRead: markListRead()
        }
    }
}
