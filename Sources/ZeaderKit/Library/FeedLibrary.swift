import Feeds
import Foundation
import ObjectGraph

/// The headless operations on a store: subscribe, unsubscribe, list, query items, mark read,
/// import and export subscription lists. Each call runs on its own background context and
/// saves before it returns; the command line is a thin layer over this type.
///
/// ```swift
/// let library = FeedLibrary(store: try ZeaderStore.open(at: dbURL))
/// try library.add(url: "https://example.org/feed.xml", title: "Example")
/// print(try library.servers().map(\.url))
/// ```
public struct FeedLibrary: Sendable {
    public let store: ZeaderStore

    public init(store: ZeaderStore) {
        self.store = store
    }

    /// Runs `body` on a fresh background context and waits; every error becomes a ZeaderError.
    /// The context's changes win key by key over what other processes saved meanwhile
    /// (`.objectTrumps`): a `mark-read` during a refresh keeps both.
    func withContext<T>(_ body: (ManagedObjectContext) throws -> T) throws(ZeaderError) -> T {
        let context = store.container.newBackgroundContext(name: "library")
        context.mergePolicy = .objectTrumps
        do {
            return try context.performAndWait { try body(context) }
        } catch {
            throw ZeaderError.wrapping(error)
        }
    }

    // MARK: Subscriptions

    /// Subscribes to `url` (placed last in the feed list) with optional tags. Returns the URL stored.
    ///
    /// ```swift
    /// try library.add(url: "https://example.org/feed.xml", title: "Example", tags: ["news"])
    /// ```
    @discardableResult
    public func add(url: String, title: String? = nil, tags: [String] = [], fullArticle: Bool = false) throws(ZeaderError)
        -> String
    {
        try withContext { context in
            let server = try FeedSubscription.add(url: url, title: title, tags: tags, in: context)
            server.fullArticle = fullArticle
            try context.save()
            return server.url
        }
    }

    /// Marks the feeds `urls` for full articles, or not (``FullArticles``): each refresh then
    /// fetches the article of their new items' pages.
    ///
    /// ```swift
    /// try library.setFullArticle(true, urls: ["https://example.org/feed.xml"])
    /// ```
    public func setFullArticle(_ on: Bool, urls: [String]) throws(ZeaderError) {
        try withContext { context in
            try FullArticles.setFullArticle(on, urls: urls, in: context)
            try context.save()
        }
    }

    /// Saves a smart feed: a predicate over FeedItem in the ObjectGraph language, listed
    /// with the feeds in the reader with live counts. The predicate is checked first.
    ///
    /// ```swift
    /// try library.addSmartFeed(title: "Swift", predicate: "read == NO AND title CONTAINS[cd] \"swift\"")
    /// ```
    public func addSmartFeed(title: String, predicate format: String) throws(ZeaderError) {
        try withContext { context in
            try SmartFeeds.add(title: title, predicate: format, in: context)
            try context.save()
        }
    }

    /// Gives the feed at `url` the title `title` (``FeedEditing/retitle(_:to:in:)``: an empty
    /// one gives it back its own), queued for its account. Returns the title afterwards, nil
    /// when the next refresh or sync gives it one.
    ///
    /// ```swift
    /// try library.rename(url: "https://lwn.net/headlines/rss", title: "LWN")
    /// ```
    @discardableResult
    public func rename(url: String, title: String) throws(ZeaderError) -> String? {
        try withContext { context in
            try FeedEditing.retitle(try FeedEditing.server(url: url, in: context).objectID, to: title, in: context)
        }
    }

    /// Unsubscribes from `url`, deleting its items. Returns how many items went with it.
    ///
    /// ```swift
    /// let gone = try library.remove(url: "https://example.org/feed.xml")
    /// ```
    @discardableResult
    public func remove(url: String) throws(ZeaderError) -> Int {
        try withContext { context in
            try FeedEditing.delete(try FeedEditing.server(url: url, in: context).objectID, in: context)
        }
    }

    /// Every feed in the user's order, with its counts and tags; with `tag`, only the feeds
    /// carrying it (ignoring case).
    ///
    /// ```swift
    /// for feed in try library.servers(tag: "linux") { print(feed.unread, feed.title) }
    /// ```
    public func servers(tag: String? = nil) throws(ZeaderError) -> [ServerSummary] {
        try withContext { context in
            let syncing = SyncQueue.isActive(in: context)
            return try FeedEditing.servers(in: context)
                .filter { server in tag.map { FeedTags.contains(server.tags, $0) } ?? true }
                .map { ServerSummary($0, syncing: syncing) }
        }
    }

    // MARK: Items

    /// The items matching `query`, newest first (``ItemOrder``); with a search, through
    /// ``ItemSearch`` as the reader searches.
    ///
    /// ```swift
    /// let unread = try library.items(ItemQuery(unreadOnly: true, limit: 20))
    /// ```
    public func items(_ query: ItemQuery) throws(ZeaderError) -> [ItemSummary] {
        var items: [ItemSummary] = []
        try forEachItems(query) { items += $0 }
        return items
    }

    /// Calls `body` with the items matching `query`, newest first, a page of at most
    /// `pageSize` at a time (``ItemOrder/forEachPage(matching:searchText:limit:pageSize:timeLimit:in:_:)``):
    /// only one page of items is held, so `zeader items --json` over a million items needs
    /// the memory of one page. With a search, the words are looked up and ranked as
    /// ``ItemSearch`` does (exact title matches first). One feed's items are read through the feed's key (an index), not its URL.
    ///
    /// ```swift
    /// try library.forEachItems(ItemQuery(unreadOnly: true)) { page in print(ItemSummary.text(page), terminator: "") }
    /// ```
    public func forEachItems(_ query: ItemQuery, pageSize: Int = 500, _ body: ([ItemSummary]) throws -> Void)
        throws(ZeaderError)
    {
        var unfiltered = query
        unfiltered.feed = nil
        let predicate = try unfiltered.predicate()
        try withContext { context in
            var filter = predicate == .true ? nil : predicate
            if let feed = query.feed {
                guard let server = try Server.findFirst(byAttribute: "url", value: .string(feed), in: context),
                    let key = server.objectID.primaryKey
                else {
                    throw ZeaderError.missingFeed(feed)
                }
                let byKey = ObjectPredicate.comparison(
                    .keyPath("server"), .equalTo, .objectReference(entity: "Server", rawValue: key))
                filter = filter.map { byKey && $0 } ?? byKey
            }
            // The feeds' URLs and titles by key, read once: an item's `server` gives its
            // feed's ID without a query, and pages reset the context.
            var urls: [ObjectID: String] = [:]
            var titles: [ObjectID: String] = [:]
            for server in try Server.findAll(in: context) {
                urls[server.objectID] = server.url
                titles[server.objectID] = server.displayTitle
            }
            context.reset()
            let timeLimit = query.wherePredicate == nil ? nil : query.whereTimeLimit
            var remaining = query.limit
            func emit(_ page: [FeedItem]) throws {
                if let limit = remaining { remaining = limit - page.count }
                try body(
                    page.map { item in
                        let feed = item.server?.objectID
                        return ItemSummary(
                            item, feedURL: feed.flatMap { urls[$0] } ?? "", feedTitle: feed.flatMap { titles[$0] })
                    })
            }
            do {
                var rest = filter
                if let text = query.search, let exact = ItemSearch.exactTitle(text) {
                    // ItemSearch's ranking, streamed: the exact title matches first, then the others.
                    try ItemOrder.forEachPage(
                        matching: filter.map { $0 && exact } ?? exact, searchText: text, limit: remaining,
                        pageSize: pageSize, timeLimit: timeLimit, searchWindow: ItemSearch.exactTitleWindow, in: context,
                        emit)
                    let others = try ObjectPredicate(format: "title == nil") || !exact
                    rest = filter.map { $0 && others } ?? others
                }
                if remaining.map({ $0 > 0 }) ?? true {
                    try ItemOrder.forEachPage(
                        matching: rest, searchText: query.search, limit: remaining, pageSize: pageSize, timeLimit: timeLimit,
                        in: context, emit)
                }
            } catch let error as ZeaderError {
                throw error
            } catch {
                throw Self.predicateError(error)
            }
        }
    }

    /// A store error caused by a `--where` predicate (an unknown key, a type mismatch)
    /// becomes ``ZeaderError/invalidPredicate(_:)``; one that ran past its time limit
    /// ``ZeaderError/predicateTimedOut(seconds:)``.
    static func predicateError(_ error: any Error) -> ZeaderError {
        switch ZeaderError.wrapping(error) {
        case .store(let graph):
            switch graph {
            case .unknownKey, .invalidPredicate, .typeMismatch, .predicateSyntax: return .invalidPredicate(graph.description)
            case .timeLimitExceeded(_, let seconds): return .predicateTimedOut(seconds: seconds)
            default: return .store(graph)
            }
        case let other: return other
        }
    }

    /// Marks read every unread item of the feed `url`, or of every feed when `url` is nil.
    /// Returns how many items changed.
    ///
    /// ```swift
    /// let n = try library.markRead(feed: nil)   // everything
    /// ```
    @discardableResult
    public func markRead(feed url: String?) throws(ZeaderError) -> Int {
        let changed = try withContext { context in
            guard let url else { return try ItemMarking.markRead(.all, in: context) }
            guard let server = try Server.findFirst(byAttribute: "url", value: .string(url), in: context) else {
                throw ZeaderError.missingFeed(url)
            }
            return try ItemMarking.markRead(.feed(server.objectID), in: context)
        }
        store.checkpoint()
        return changed
    }

    // MARK: Import and export

    /// Subscribes to every feed of an OPML file or a newsboat `urls` file (told apart by
    /// content) that is not subscribed yet, in the file's order. OPML folders and
    /// `category` attributes, and newsboat tags, become the feeds' tags; a feed already
    /// subscribed gains the file's tags for it.
    ///
    /// What may be subscribed follows ``FeedTrust``: a urls file is the user's own, so its
    /// `exec:`, `filter:` and `file:` feeds are subscribed (each with a note); an OPML file's
    /// are listed in ``ImportReport/skipped`` and left out unless `allowCommands`. Any other
    /// URL that is not http(s) is refused (``ImportReport/rejected``).
    ///
    /// ```swift
    /// let report = try library.importSubscriptions(data: Data(contentsOf: url), source: url.path)
    /// print(report.added, report.alreadySubscribed, report.skipped.count)
    /// ```
    public func importSubscriptions(data: Data, source: String, allowCommands: Bool = false) throws(ZeaderError)
        -> ImportReport
    {
        let list: SubscriptionImport
        do {
            list = try SubscriptionImport.read(data: data, source: source)
        } catch {
            let message = String(describing: error)
            let reason = message.hasPrefix(source) ? String(message.dropFirst(source.count + 2)) : message
            switch error as? OPMLError {
            case .notXML?, .notOPML?, .unreadableText?: throw ZeaderError.notTheFileAsked(path: source, reason: reason)
            default: throw ZeaderError.unreadableFile(path: source, reason: reason)
            }
        }
        var report = ImportReport(notes: list.notes)
        report.rejected = list.rejected
        let isURLsFile = list.format == .newsboatURLs
        try withContext { context in
            var known: [String: Server] = [:]
            for server in try Server.findAll(in: context) { known[server.url] = server }
            var order = try FeedSubscription.nextDisplayOrder(in: context)
            // Each feed's tags from the file, gathered and stored once at the end: a feed
            // listed many times (written differently) costs its own tags, not all so far.
            var fileTags: [String: (server: Server, tags: [String], subscribedBefore: Bool)] = [:]
            for subscription in list.subscriptions {
                let what = Messages.importEntry(title: subscription.title, url: subscription.url, outline: !isURLsFile)
                let url: String
                let origin: FeedOrigin
                do throws(FeedTrust.ImportRefusal) {
                    if isURLsFile {
                        do throws(ZeaderError) {
                            url = try FeedSubscription.validatedURL(subscription.url)
                        } catch {
                            throw FeedTrust.ImportRefusal.invalid(error)
                        }
                        origin = .urlsFile
                    } else {
                        (url, origin) = try FeedTrust.importedURL(subscription.url, allowCommands: allowCommands)
                    }
                } catch {
                    let line = Messages.importRefusal(error, source: source, what: what)
                    if case .needsAllow = error { report.skipped.append(line) } else { report.rejected.append(line) }
                    continue
                }
                if isURLsFile, let server = known[url],
                    let note = FeedSettingsEditing.applyLine(
                        subscription.settings, to: server, url: url, allowingPrograms: allowCommands)
                {
                    report.notes.append(note)
                }
                if fileTags[url] != nil {
                    fileTags[url]?.tags += subscription.categories
                    continue
                }
                if let existing = known[url] {
                    fileTags[url] = (existing, subscription.categories, true)
                    report.alreadySubscribed += 1
                    continue
                }
                let server = context.insert(Server.self)
                known[url] = server
                server.url = url
                server.origin = origin
                server.title = subscription.title
                server.siteLink = subscription.siteLink.flatMap(FeedTrust.webURL)
                server.displayOrder = order
                SyncQueue.queue(.subscribe, for: server, in: context)
                if isURLsFile,
                    let note = FeedSettingsEditing.applyLine(
                        subscription.settings, to: server, url: url, allowingPrograms: allowCommands)
                {
                    report.notes.append(note)
                }
                fileTags[url] = (server, subscription.categories, false)
                order += 1
                report.added += 1
            }
            for (server, tags, subscribedBefore) in fileTags.values {
                let merged = FeedTags.normalized(subscribedBefore ? FeedTags.list(server.tags) + tags : tags)
                if merged != server.tags {
                    server.tags = merged
                    if subscribedBefore { SyncQueue.queue(.tags, for: server, in: context) }
                }
            }
            let queries = try QueryFeedImport.add(list.queryFeeds, in: context)
            report.smartFeedsAdded = queries.added
            report.notes += queries.notes.map(\.description)
            try context.save()
        }
        if isURLsFile { try? URLsFileLayout.recordImport(of: String(decoding: data, as: UTF8.self), in: store.container.store) }
        store.checkpoint()
        return report
    }

    /// The subscriptions as an OPML 2.0 document, in the user's order; each feed's tags
    /// become its folder and `category` attribute. A password in a feed's URL is masked
    /// (``RedactedURL``): a list made to be shared carries no login.
    ///
    /// ```swift
    /// print(try library.exportOPML(), terminator: "")
    /// ```
    public func exportOPML(dateCreated: Date = Date()) throws(ZeaderError) -> String {
        let subscriptions = try withContext { context in
            try Server.findAll(sortedBy: "displayOrder", in: context).map {
                OPMLSubscription(
                    url: RedactedURL.text($0.url), title: $0.title, siteLink: $0.siteLink, categories: FeedTags.list($0.tags))
            }
        }
        return OPML.export(subscriptions, dateCreated: dateCreated)
    }
}

/// What ``FeedLibrary/importSubscriptions(data:source:)`` did.
///
/// ```swift
/// print("imported \(report.added) feeds")
/// ```
public struct ImportReport: Sendable, Equatable {
    public var added = 0
    public var alreadySubscribed = 0
    /// Smart feeds made of a urls file's `query:` lines (``QueryFeedImport``).
    public var smartFeedsAdded = 0
    /// Entries left out or changed, one line each (naming the file).
    public var notes: [String]
    /// Entries that could not be imported, one line each (naming the file and the entry):
    /// `zeader import` exits non-zero when there are any.
    public var rejected: [String] = []
    /// Command and file feeds left out because the import was not allowed to subscribe to
    /// them (`--allow-commands`), one line each naming the entry and what it would run.
    public var skipped: [String] = []

    public init(added: Int = 0, alreadySubscribed: Int = 0, notes: [String] = []) {
        self.added = added
        self.alreadySubscribed = alreadySubscribed
        self.notes = notes
    }
}
