import Foundation
import ObjectGraph
import ZeaderConfig
import ZeaderKit

/// The article view's handler: what each ``ScreenAction`` does while an item is read.
extension ReaderApp {
    func articleView(_ action: ScreenAction) {
        switch action {
        case .open, .sort, .setFilter, .moveFeed: notHere(action.action)
        case .refreshFeed: refreshOpenFeed()
        case .step(let forward): stepItem(forward: forward)
        case .goToFeed(let forward): goToFeed(forward: forward, unreadOnly: false)
        case .clearFilter, .selectFilter, .deleteFeed, .editURLs, .renameFeed, .deleteAllArticles: belongsElsewhere(action)
        case .markFeedRead: markListRead()
        case .toggleSourceView: toggleSourceView()
        case .item(let itemAction):
            guard let id = state.article?.itemID else { return state.say(.reader(.needsItem)) }
            onItem(itemAction, id)
        }
    }

    /// A key the article view reads itself before the key map: digits name a link, ENTER opens
    /// it (ESC forgets it). Returns whether the key was taken.
    func articleKey(_ key: Key) -> Bool {
        if case .character(let c) = key, c.isASCII, c.isNumber {
            state.pendingLinkNumber.append(c)
            return true
        }
        guard key == .enter || key == .escape, !state.pendingLinkNumber.isEmpty else { return false }
        let number = state.pendingLinkNumber
        state.pendingLinkNumber = ""
        if key == .enter { openLink(number: Int(number) ?? 0) }
        return true
    }

    /// `J`/`K` while reading: the next or previous item of the list.
    func stepItem(forward: Bool) {
        guard let list = state.items else { return notHere(forward ? .next : .prev) }
        let index = list.position.cursor + (forward ? 1 : -1)
        guard list.ids.indices.contains(index) else {
            return state.say(forward ? .reader(.noNextItem) : .reader(.noPreviousItem))
        }
        select(index, openArticle: true)
    }

    /// `^U`: the article's HTML source, or its rendering.
    func toggleSourceView() {
        guard var article = state.article else { return notHere(.toggleSourceView) }
        article.showsSource.toggle()
        article.renderedWidth = 0
        article.scroll = 0
        state.article = article
        state.say(.reader(.showingSource(article.showsSource)))
    }

    /// The link numbered `number` in the article shown.
    func openLink(number: Int) {
        guard let article = state.article, number >= 1, number <= article.links.count else {
            return state.say(.noLink(number))
        }
        open(link: article.links[number - 1])
    }
}
