import Foundation
import ObjectGraph
import ZeaderConfig
import ZeaderKit

/// The feed list's first screen without the rest (``FeedListPage``): at start the reader fetches
/// only the feeds the first screen shows, in the order the views ask for, plus the list's
/// size, its unread total and its widest count from the stored counts (three aggregates),
/// so 2,000 feeds open as fast as 100. The whole list (every row, the smart feeds and their
/// counts) is read right after that first frame is drawn, or before the first key if one is
/// already waiting; every action therefore sees the complete list, as before.
///
/// Only views that SQL orders exactly like ``FeedSortOrder/sorted(_:)`` take this path: the
/// user's order, the counts and the last refresh (ties in the user's order), read feeds shown
/// or hidden; a sort by title or tag, a tag or a filter read the whole list at once.
///
/// ```swift
/// if let page = try model.firstFeedScreen(views: state.views, rows: state.listHeight) { … }
/// ```
public struct FeedListSummary: Equatable, Sendable {
    /// Rows in the whole list (subscriptions shown by the views, then smart feeds).
    public var count: Int
    /// Unread items over the subscriptions shown (the title bar's count).
    public var unread: Int
    /// The subscriptions' largest item count, which sets the width of the count column (a
    /// smart feed's larger count widens it once the whole list is read).
    public var maxTotal: Int
}

extension ReaderModel {
    /// The first `rows` feed rows as `views` arrange them and the whole list's summary, or nil
    /// when the list is no longer than `rows` or the views need every row to arrange it.
    func firstFeedScreen(views: ViewOptions, rows: Int) throws -> (rows: [FeedRow], summary: FeedListSummary)? {
        guard views.tag == nil, views.feedFilter == nil, let sort = Self.sortDescriptors(views.feedOrder),
            let page = try FeedListPage.first(rows: rows, showRead: views.showReadFeeds, order: sort, in: context)
        else { return nil }
        let smart = try SmartFeeds.stored(in: context).count + configSmartFeeds.count
        let summary = FeedListSummary(count: page.count + smart, unread: page.unread, maxTotal: page.maxTotal)
        return (page.servers.map { Self.row($0) }, summary)
    }

    /// The feed list's row of a subscription (stored counts), with the account that syncs it.
    static func row(_ server: Server) -> FeedRow {
        FeedRow(
            kind: .server(server.objectID), title: titleWithTags(server), unread: Int(server.unreadCount),
            total: Int(server.totalCount), lastRefresh: server.lastRefresh, lastError: server.lastError, url: server.url,
            tags: FeedTags.list(server.tags), account: server.syncID == nil ? nil : server.account)
    }

    /// The SQL order of `order`, ties in the user's order; nil for the orders SQL would
    /// collate differently (titles and tags compare as the locale does).
    static func sortDescriptors(_ order: FeedSortOrder) -> [ObjectSortDescriptor]? {
        let key: String
        switch order.field {
        case .none: return FeedEditing.order  // either way round, as FeedSortOrder.sorted leaves it
        case .articlecount: key = "totalCount"
        case .unreadarticlecount: key = "unreadCount"
        case .lastupdated: key = "lastRefresh"
        case .title, .firsttag: return nil
        }
        return [ObjectSortDescriptor(key, ascending: order.ascending)] + FeedEditing.order
    }

}

extension ReaderApp {
    /// Shows the first screen of the feed list (``ReaderModel/firstFeedScreen(views:rows:)``),
    /// or the whole list when the views need it; a short list is read whole.
    func loadFirstFeedScreen() {
        do {
            if let first = try model.firstFeedScreen(views: state.views, rows: state.listHeight) {
                state.feeds = first.rows
                state.feedSummary = first.summary
            } else {
                state.feeds = arrangedFeeds(try model.feedRows())
            }
        } catch {
            state.say(.cannotReadFeeds("\(error)"))
        }
    }

    /// Reads the rest of a feed list shown from its first screen (the cursor stays on its row).
    func completeFeedList() {
        guard state.feedSummary != nil else { return }
        state.feedSummary = nil
        let selected = state.selectedFeed?.kind
        do { state.feeds = arrangedFeeds(try model.feedRows()) } catch { state.say(.cannotReadFeeds("\(error)")) }
        if let selected, let index = state.feeds.firstIndex(where: { $0.kind == selected }) {
            state.feedPosition.cursor = index
        }
        state.clampPositions()
    }
}

extension ReaderApp {
    /// The start's second step: the whole feed list, drawn when it differs from the first screen.
    func completeFeedListAndRedraw() {
        guard state.feedSummary != nil else { return }
        let before = state
        completeFeedList()
        if state != before { redraw() }
    }
}
