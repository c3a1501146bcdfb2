import Foundation
import ZeaderConfig

/// The pickers' handler (the tag, link, discovered-feed, dialog and filter lists): ENTER picks;
/// in the link list, the item keys that take a link (`o`, `O`, `s`) take the one selected.
extension ReaderApp {
    func pickerScreen(_ action: ScreenAction, _ picker: PickerState) {
        switch action {
        case .open: pick(picker)
        case .sort, .setFilter, .moveFeed, .toggleSourceView: notHere(action.action)
        case .refreshFeed: refreshOpenFeed()
        case .step(let forward): state.move(forward ? .down : .up)
        case .goToFeed(let forward): goToFeed(forward: forward, unreadOnly: false)
        case .clearFilter, .selectFilter, .deleteAllArticles, .deleteFeed, .editURLs, .renameFeed: belongsElsewhere(action)
        case .markFeedRead: markListRead()
        case .item(let itemAction): linkListItemAction(itemAction, picker)
        }
    }

    /// The picker's ENTER: what it means depends on the list.
    func pick(_ picker: PickerState) {
        switch picker.kind {
        case .tags:
            state.views.tag = picker.selectedValue
            back()
            rearrangeFeeds()
            state.feedPosition.set(0, count: state.feeds.count, height: state.listHeight)
            state.say(.reader(.showingTag(state.views.tag)))
        case .links:
            if let link = picker.selectedValue { openLinkOrPicture(link) }
        case .discoveredFeeds: pickDiscoveredFeed()
        case .dialogs: goToDialog(at: picker.position.cursor)
        case .filters: applyPickedFilter()
        case .podcasts: onPodcasts(.pbPlay)
        }
    }

    /// An item key in a picker: in the link list, opening and saving act on its links and the
    /// rest do nothing; the other lists need an item.
    private func linkListItemAction(_ action: ItemAction, _ picker: PickerState) {
        guard picker.kind == .links else { return state.say(.reader(.needsItem)) }
        switch action {
        case .openInBrowser, .openInBrowserAndMarkRead:
            guard let link = picker.selectedValue, !link.isEmpty else { return state.say(.noLinkToOpen) }
            openLinkOrPicture(link)
        case .save: state.prompt = .writeLinks(text: "")
        case .toggleRead, .toggleFlag, .enqueue, .deleteArticle, .editFlags, .gotoURL, .showUrls, .pipeTo, .bookmark,
            .fullArticle, .editTags:
            notHere(action.action)
        }
    }
}
