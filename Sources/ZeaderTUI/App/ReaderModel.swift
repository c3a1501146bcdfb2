import Feeds
import Foundation
import ObjectGraph
import ZeaderConfig
import ZeaderKit

/// The reader's adapter from ZeaderKit's use cases to screen state, on the view context's
/// queue: rows for the lists and articles are read here; every edit (read toggles, mark
/// read, flag, delete, reorder) and every list (``ItemOrder``, ``ItemSearch``,
/// ``SmartFeeds``) is the use case the command line calls too, run on the view context so
/// that undo (`z`) reverts it.
///
/// ```swift
/// let model = ReaderModel(store: store, smartFeeds: config.smartFeeds)
/// let rows = try model.feedRows()
/// ```
public final class ReaderModel {
    /// The store the reader shows.
    public let store: ZeaderStore
    /// The view context: every call of this class runs on its queue.
    public var context: ManagedObjectContext { store.container.viewContext }
    let configSmartFeeds: [ReaderConfig.SmartFeedDefinition]
    /// `highlight-article` lines (ReaderModel+ItemHighlights.swift).
    var itemHighlights: [(highlight: Int, predicate: ObjectPredicate)] = []

    public init(store: ZeaderStore, smartFeeds: [ReaderConfig.SmartFeedDefinition] = []) {
        self.store = store
        self.configSmartFeeds = smartFeeds
        if store.container.viewContext.undoManager == nil {
            store.container.viewContext.undoManager = ContextUndoManager()
        }
    }

    // MARK: Reading

    /// The subscriptions in user order (stored counts, never counted), then smart feeds
    /// with their kept counts (brought up to date by the items changed since the last call)
    /// or, when `countingSmartFeeds` is false, the counts of the matching rows of `previous`.
    ///
    /// ```swift
    /// state.feeds = try model.feedRows(countingSmartFeeds: false, previous: state.feeds)
    /// ```
    public func feedRows(countingSmartFeeds: Bool = true, previous: [FeedRow] = []) throws -> [FeedRow] {
        var rows = try FeedEditing.servers(in: context).map { Self.row($0) }
        let stored = try SmartFeeds.stored(in: context)
        let smart =
            stored.map { ($0.title, $0.predicateFormat, Optional($0.objectID)) }
            + configSmartFeeds.map { ($0.title, $0.predicateFormat, ObjectID?.none) }
        // Kept counts (``SmartFeeds/counts(of:in:forgettingOthers:)``): the items changed
        // since the last call are checked, not every item; a new smart feed is counted once.
        let kinds = smart.map { FeedRow.Kind.smart(predicateFormat: $0.1, id: $0.2) }
        let reused = kinds.map { kind in countingSmartFeeds ? nil : previous.first { $0.kind == kind } }
        var counts: [Result<(unread: Int, total: Int), any Error>] = []
        if reused.contains(where: { $0 == nil }) {
            do {
                counts = try SmartFeeds.counts(of: smart.map(\.1), in: context, forgettingOthers: true)
            } catch {
                counts = smart.map { _ in .failure(error) }
            }
        }
        for (n, (title, _, _)) in smart.enumerated() {
            if let old = reused[n] {
                rows.append(old)
                continue
            }
            var row = FeedRow(kind: kinds[n], title: title, unread: 0, total: 0)
            switch counts[n] {
            case .success(let (unread, total)): (row.unread, row.total) = (unread, total)
            case .failure(let error): row.lastError = "smart feed '\(title)': \(error)"
            }
            rows.append(row)
        }
        return rows
    }

    /// A feed's title followed by its tags, e.g. `Kernel Daily [linux, news]`; filter by tag
    /// with a smart feed such as `server.tags CONTAINS[c] "linux"`.
    static func titleWithTags(_ server: Server) -> String {
        let tags = FeedTags.list(server.tags)
        return tags.isEmpty ? server.displayTitle : "\(server.displayTitle) [\(tags.joined(separator: ", "))]"
    }

    /// The items of `source`, newest first (``ItemOrder``; a search through ``ItemSearch``).
    public func itemIDs(_ source: ItemSource) throws -> [ObjectID] {
        switch source {
        case .server(let id): return try ItemOrder.itemIDs(ofServer: id, in: context)
        case .smart(let format):
            return try ItemOrder.itemIDs(
                matching: try ZeaderModel.itemPredicate(format: format), timeLimit: UserPredicate.timeLimit, in: context)
        case .search(let text): return try ItemSearch.itemIDs(text, in: context)
        case .feedSearch(let text, let server): return try feedSearchIDs(text, server: server)
        }
    }

    func item(_ id: ObjectID) -> FeedItem? {
        (try? context.existingObject(with: id)) as? FeedItem
    }

    /// The item list line of `id`, or nil when the item is gone: `model.itemRow(id)?.title`.
    public func itemRow(_ id: ObjectID) -> ItemRow? {
        guard let item = item(id) else { return nil }
        var row = ItemRow(
            id: id, title: item.title ?? "", author: item.author, date: item.sortDate ?? item.published, read: item.read,
            feedTitle: item.server?.displayTitle, flagged: item.flagged)
        row.hasEnclosure = item.enclosureURL != nil
        if !itemHighlights.isEmpty { row.highlight = articleHighlight(of: item) }
        return row
    }

    /// The article view's state for `id` (body not yet rendered): `state.article = model.article(id)`.
    public func article(_ id: ObjectID) -> ArticleState? {
        guard let item = item(id) else { return nil }
        let body = item.content?.isEmpty == false ? item.content! : (item.summary ?? "")
        var article = ArticleState(
            itemID: id, feedTitle: item.server?.displayTitle ?? "", title: item.title ?? "(untitled)", author: item.author,
            date: item.published ?? item.sortDate, link: item.link, bodyHTML: body,
            baseURL: item.link.flatMap(URL.init(string:)) ?? item.server.flatMap { URL(string: $0.url) })
        article.flagLetters = item.flagLetters
        article.tags = item.tags
        article.fullArticleHTML = item.body?.article
        // The podcast the item carries (one per item: ``EnclosureSummary``), shown in the header.
        if let enclosure = EnclosureSummary(item) {
            article.enclosures = [ArticleEnclosure(url: enclosure.url, type: enclosure.type, length: enclosure.length)]
        }
        return article
    }

    /// Whether the item is read (a missing item counts as read): `if !model.isRead(id) { … }`.
    public func isRead(_ id: ObjectID) -> Bool { item(id)?.read ?? true }

    // MARK: Undoable edits

    /// Marks one item read or unread, as one undo step: `try model.setRead(id, true)`.
    public func setRead(_ id: ObjectID, _ read: Bool) throws {
        try ItemMarking.setRead([id], read, in: context)
    }

    /// Marks every unread item of a feed (or a smart feed, or everything when nil) read,
    /// as one undo step (``ItemMarking/markRead(_:in:)``), and returns how many items it changed.
    ///
    /// ```swift
    /// let count = try model.markRead(nil)   // "Mark All Read"; undo (`z`) reverts it in one step
    /// ```
    public func markRead(_ kind: FeedRow.Kind?) throws -> Int {
        defer { store.checkpointIfLarge() }  // a bulk write: the `-wal` cut back while the reader stays open
        switch kind {
        case .server(let id): return try ItemMarking.markRead(.feed(id), in: context)
        case .smart(let format, _): return try ItemMarking.markRead(.matching(predicateFormat: format), in: context)
        case nil: return try ItemMarking.markRead(.all, in: context)
        }
    }

    /// Deletes a feed and (cascade) its items, as one undo step: `try model.deleteServer(id)`.
    public func deleteServer(_ id: ObjectID) throws {
        defer { store.checkpointIfLarge() }
        try FeedEditing.delete(id, in: context)
    }

    /// The title of the feed `id` as stored (nil: none, or the feed is gone).
    func feedTitle(of id: ObjectID) -> String? {
        ((try? context.existingObject(with: id)) as? Server)?.title
    }

    /// Moves a feed one place up (`-1`) or down (`+1`) and persists `displayOrder`.
    public func moveServer(_ id: ObjectID, by offset: Int) throws {
        try FeedEditing.move(id, by: offset, in: context)
    }

    /// Undoes the last step and saves; returns its name, or nil when there was none.
    public func undo() throws -> String? {
        defer { store.checkpointIfLarge() }  // the undo of a bulk write is one too
        return try ItemMarking.undo(in: context, bus: store.container.bus)
    }

    /// Redoes the last undone step and saves; returns its name: `try model.redo()`.
    public func redo() throws -> String? {
        defer { store.checkpointIfLarge() }
        return try ItemMarking.redo(in: context, bus: store.container.bus)
    }
}

extension ReaderModel {
    /// Stores the outcome of fetching the item's page (``FullArticles``) and saves it; returns
    /// the article's HTML, nil when the page gave none. Not an undo step: undo (`z`) reverts the user's
    /// edits, not a download.
    ///
    /// ```swift
    /// let html = try model.storeFullArticle(outcome, for: id)
    /// ```
    /// The URL and stored tags of the feed of item `id`, nil when it is gone.
    func feedURLAndTags(of id: ObjectID) -> (url: String, tags: String?)? {
        guard let item = try? context.existingObject(with: id) as? FeedItem, let server = item.server else { return nil }
        return (server.url, server.tags)
    }

    public func storeFullArticle(
        _ outcome: Result<ArticlePage.Fetched, ArticlePage.Problem>, for id: ObjectID
    ) throws -> String? {
        let undo = context.undoManager
        let wasEnabled = undo?.isEnabled ?? false
        undo?.isEnabled = false
        defer { undo?.isEnabled = wasEnabled }
        FullArticles.store(outcome, for: id, in: context)
        try context.save()
        if case .success(let page) = outcome { return page.article.html }
        return nil
    }
}
