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
    func withContext<T>(_ body: (ManagedObjectContext) throws -> T) throws(ZeaderError) -> T {
        let context = store.container.newBackgroundContext(name: "library")
        do {
            return try context.performAndWait { try body(context) }
        } catch {
            throw ZeaderError.wrapping(error)
        }
    }

    // MARK: Subscriptions

    /// Checks that `text` is a URL Zeader can fetch (http or https with a host, or file)
    /// and returns it trimmed.
    ///
    /// ```swift
    /// try FeedLibrary.validatedFeedURL(" https://example.org/feed ")   // "https://example.org/feed"
    /// ```
    public static func validatedFeedURL(_ text: String) throws(ZeaderError) -> String {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw .invalidURL(text, reason: "empty") }
        guard let url = URL(string: trimmed), let scheme = url.scheme?.lowercased() else {
            throw .invalidURL(text, reason: "not an absolute URL (expected http://, https:// or file://)")
        }
        switch scheme {
        case "http", "https":
            guard let host = url.host, !host.isEmpty else { throw .invalidURL(text, reason: "no host") }
        case "file":
            guard !url.path.isEmpty else { throw .invalidURL(text, reason: "no path") }
        default:
            throw .invalidURL(text, reason: "unsupported scheme '\(scheme)' (expected http, https or file)")
        }
        return trimmed
    }

    /// Subscribes to `url` (placed last in the feed list) with optional tags. Returns the URL stored.
    ///
    /// ```swift
    /// try library.add(url: "https://example.org/feed.xml", title: "Example", tags: ["news"])
    /// ```
    @discardableResult
    public func add(url: String, title: String? = nil, tags: [String] = []) throws(ZeaderError) -> String {
        let url = try Self.validatedFeedURL(url)
        return try withContext { context in
            if try Server.findFirst(byAttribute: "url", value: .string(url), in: context) != nil {
                throw ZeaderError.alreadySubscribed(url)
            }
            let server = context.insert(Server.self)
            server.url = url
            if let title, !title.isEmpty { server.title = title }
            server.tags = FeedTags.normalized(tags)
            server.displayOrder = try nextDisplayOrder(in: context)
            try context.save()
            return url
        }
    }

    /// Saves a smart feed: a predicate over FeedItem in the ObjectGraph language, listed
    /// with the feeds in the reader with live counts. The predicate is checked first.
    ///
    /// ```swift
    /// try library.addSmartFeed(title: "Swift", predicate: "read == NO AND title CONTAINS[cd] \"swift\"")
    /// ```
    public func addSmartFeed(title: String, predicate format: String) throws(ZeaderError) {
        let title = title.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !title.isEmpty else { throw ZeaderError.other("a smart feed needs a --title") }
        try Self.validateSmartPredicate(format)
        try withContext { context in
            if try SmartFeed.findFirst(byAttribute: "title", value: .string(title), in: context) != nil {
                throw ZeaderError.other("a smart feed named '\(title)' exists already")
            }
            let smart = context.insert(SmartFeed.self)
            smart.title = title
            smart.predicateFormat = format
            let last = try SmartFeed.findFirst(where: .true, sortedBy: "displayOrder", ascending: false, in: context)
            smart.displayOrder = (last?.displayOrder ?? -1) + 1
            try context.save()
        }
    }

    /// Checks a smart feed's predicate against FeedItem: syntax, keys and types.
    ///
    /// ```swift
    /// try FeedLibrary.validateSmartPredicate("read == NO")
    /// ```
    public static func validateSmartPredicate(_ format: String) throws(ZeaderError) {
        do {
            let predicate = try ObjectGraph.Predicate(format: format)
            try predicate.validate(for: try ZeaderModel.current.entity(named: "FeedItem"), in: ZeaderModel.current)
        } catch {
            throw ZeaderError.other("invalid --smart predicate: \(error)")
        }
    }

    func nextDisplayOrder(in context: ManagedObjectContext) throws -> Int64 {
        let last = try Server.findFirst(where: .true, sortedBy: "displayOrder", ascending: false, in: context)
        return (last?.displayOrder ?? -1) + 1
    }

    /// Unsubscribes from `url`, deleting its items. Returns how many items went with it.
    ///
    /// ```swift
    /// let gone = try library.remove(url: "https://example.org/feed.xml")
    /// ```
    @discardableResult
    public func remove(url: String) throws(ZeaderError) -> Int {
        try withContext { context in
            guard let server = try Server.findFirst(byAttribute: "url", value: .string(url), in: context) else {
                throw ZeaderError.notSubscribed(url)
            }
            let items = Int(server.totalCount)
            context.delete(server)
            try context.save()
            return items
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
            try Server.findAll(sortedBy: "displayOrder", in: context)
                .filter { server in tag.map { FeedTags.contains(server.tags, $0) } ?? true }
                .map(ServerSummary.init)
        }
    }

    // MARK: Items

    /// The items matching `query`, newest first.
    ///
    /// ```swift
    /// let unread = try library.items(ItemQuery(unreadOnly: true, limit: 20))
    /// ```
    public func items(_ query: ItemQuery) throws(ZeaderError) -> [ItemSummary] {
        let predicate = try query.predicate()
        return try withContext { context in
            if let feed = query.feed, try Server.findFirst(byAttribute: "url", value: .string(feed), in: context) == nil {
                throw ZeaderError.notSubscribed(feed)
            }
            // Registering every server first lets each item's `server` resolve without a query.
            let servers = try Server.findAll(in: context)
            var urls: [ObjectID: String] = [:]
            for server in servers { urls[server.objectID] = server.url }
            let request = ObjectGraph.FetchRequest<FeedItem>(
                predicate: predicate, sortDescriptors: [SortDescriptor("sortDate", ascending: false)],
                fetchLimit: query.limit ?? 0)
            do throws(ObjectGraphError) {
                return try context.fetch(request).map { (item: FeedItem) -> ItemSummary in
                    ItemSummary(item, feedURL: item.server.flatMap { urls[$0.objectID] } ?? "")
                }
            } catch {
                switch error {
                case .unknownKey, .invalidPredicate, .typeMismatch, .predicateSyntax:
                    throw ZeaderError.invalidPredicate(error.description)
                default: throw ZeaderError.store(error)
                }
            }
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
        try withContext { context in
            var predicate = Predicate.comparison(.keyPath("read"), .equalTo, .constant(.bool(false)))
            if let url {
                guard try Server.findFirst(byAttribute: "url", value: .string(url), in: context) != nil else {
                    throw ZeaderError.notSubscribed(url)
                }
                predicate = predicate && Predicate.comparison(.keyPath("server.url"), .equalTo, .constant(.string(url)))
            }
            let items = try context.fetch(ObjectGraph.FetchRequest<FeedItem>(predicate: predicate))
            for item in items { item.read = true }
            try context.save()
            return items.count
        }
    }

    // MARK: Import and export

    /// Subscribes to every feed of an OPML file or a newsboat `urls` file (told apart by
    /// content) that is not subscribed yet, in the file's order. OPML folders and
    /// `category` attributes, and newsboat tags, become the feeds' tags; a feed already
    /// subscribed gains the file's tags for it.
    ///
    /// ```swift
    /// let report = try library.importSubscriptions(data: Data(contentsOf: url), source: url.path)
    /// print(report.added, report.alreadySubscribed)
    /// ```
    public func importSubscriptions(data: Data, source: String) throws(ZeaderError) -> ImportReport {
        let list: SubscriptionImport
        do {
            list = try SubscriptionImport.read(data: data, source: source)
        } catch {
            let message = String(describing: error)
            throw ZeaderError.unreadableFile(
                path: source, reason: message.hasPrefix(source) ? String(message.dropFirst(source.count + 2)) : message)
        }
        var report = ImportReport(notes: list.notes)
        report.rejected = list.rejected
        try withContext { context in
            var known: [String: Server] = [:]
            for server in try Server.findAll(in: context) { known[server.url] = server }
            var order = try nextDisplayOrder(in: context)
            for subscription in list.subscriptions {
                let url: String
                do {
                    url = try Self.validatedFeedURL(subscription.url)
                } catch {
                    report.rejected.append("\(source): not imported: \(error)")
                    continue
                }
                if let existing = known[url] {
                    let merged = FeedTags.normalized(FeedTags.list(existing.tags) + subscription.categories)
                    if merged != existing.tags { existing.tags = merged }
                    report.alreadySubscribed += 1
                    continue
                }
                let server = context.insert(Server.self)
                known[url] = server
                server.url = url
                server.title = subscription.title
                server.tags = FeedTags.normalized(subscription.categories)
                server.siteLink = subscription.siteLink
                server.displayOrder = order
                order += 1
                report.added += 1
            }
            try context.save()
        }
        return report
    }

    /// The subscriptions as an OPML 2.0 document, in the user's order; each feed's tags
    /// become its folder and `category` attribute.
    ///
    /// ```swift
    /// print(try library.exportOPML(), terminator: "")
    /// ```
    public func exportOPML(dateCreated: Date = Date()) throws(ZeaderError) -> String {
        let subscriptions = try withContext { context in
            try Server.findAll(sortedBy: "displayOrder", in: context).map {
                OPMLSubscription(url: $0.url, title: $0.title, siteLink: $0.siteLink, categories: FeedTags.list($0.tags))
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
    /// Entries left out or changed, one line each (naming the file).
    public var notes: [String]
    /// Entries that could not be imported, one line each (naming the file and the entry):
    /// `zeader import` exits non-zero when there are any.
    public var rejected: [String] = []

    public init(added: Int = 0, alreadySubscribed: Int = 0, notes: [String] = []) {
        self.added = added
        self.alreadySubscribed = alreadySubscribed
        self.notes = notes
    }
}
