import Feeds
import Foundation
import ObjectGraph
import Synchronization

/// Full articles: the article of an item's web page (``ArticlePage``), stored with the item
/// (``FeedItemBody/article``) so it reads offline and goes with the item. The reader's
/// full-article key fetches one; a refresh fetches them for the new items of the feeds marked
/// ``Server/fullArticle``, after the feed itself is stored.
///
/// ```swift
/// let targets = try FullArticles.pending(of: [serverID], in: context)
/// for (id, outcome) in await FullArticles.fetch(targets, with: fetcher) {
///     try FullArticles.store(outcome, for: id, in: context)
/// }
/// ```
public enum FullArticles {
    /// An item whose page is to be fetched: its ID, its link, and the site's selector
    /// (``ArticleSelectorRule``) if one is for it.
    public struct Target: Sendable, Equatable {
        public var item: ObjectID
        public var url: URL
        public var selector: CSSSelector?
    }

    /// The most items of one feed fetched by one refresh, newest first: a feed just marked, or
    /// a first refresh, does not fetch hundreds of pages from one site at once.
    public static let perFeedLimit = 20

    /// The item's link when it is a page that may be fetched: http(s) with a host (a feed's
    /// link is hostile: never a file, never another scheme).
    ///
    /// ```swift
    /// FullArticles.pageURL("file:///etc/passwd")   // nil
    /// ```
    public static func pageURL(_ link: String?) -> URL? {
        guard let link, let url = URL(string: link.trimmingCharacters(in: .whitespaces)),
            let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host?.isEmpty == false
        else { return nil }
        return url
    }

    /// The items of the feeds `servers` marked ``Server/fullArticle`` (or in one of `scopes`,
    /// the config's `full-article` lines) whose page was never fetched, newest first, at most
    /// ``perFeedLimit`` per feed, each with the selector of `selectors` for its page. Call on
    /// `context`'s queue.
    public static func pending(
        of servers: [ObjectID], scopes: [FeedScope] = [], selectors: [ArticleSelectorRule] = [],
        in context: ManagedObjectContext
    ) throws -> [Target] {
        // The marked feeds come from one query: a refresh of many feeds loads none of the others.
        let marked = Set(
            try context.fetchObjectIDs(FetchRequest<Server>(predicate: try ObjectPredicate(format: "fullArticle == YES"))))
        var targets: [Target] = []
        for id in servers {
            guard marked.contains(id) || (!scopes.isEmpty && inScope(id, scopes, in: context)) else { continue }
            let server = selectors.isEmpty ? nil : try? context.existingObject(with: id) as? Server
            let request = FetchRequest<FeedItem>(
                predicate: try ObjectPredicate(format: "server == %@ AND link != nil AND body.articleFetched == nil", id),
                sortDescriptors: [ObjectSortDescriptor("sortDate", ascending: false)], fetchLimit: perFeedLimit)
            for item in try context.fetch(request) {
                guard let url = pageURL(item.link) else { continue }
                let selector = ArticleSelectorRule.selector(
                    in: selectors, forPage: url, feedURL: server?.url, tags: server?.tags)
                targets.append(Target(item: item.objectID, url: url, selector: selector))
            }
        }
        return targets
    }

    /// Whether the feed `id` is named by one of the config's `full-article` lines.
    private static func inScope(_ id: ObjectID, _ scopes: [FeedScope], in context: ManagedObjectContext) -> Bool {
        guard let server = try? context.existingObject(with: id) as? Server else { return false }
        return scopes.contains { $0.matches(url: server.url, tags: server.tags) }
    }

    /// Fetches the pages of `targets` (each page once, however many items link to it), as
    /// many at a time as the fetcher's limits allow (its per-host limit among them).
    public static func fetch(
        _ targets: [Target], with fetcher: FeedFetcher
    ) async -> [(ObjectID, Result<ArticlePage.Fetched, ArticlePage.Problem>)] {
        let items = Dictionary(grouping: targets, by: \.url).mapValues { $0.map(\.item) }
        let selectors = Dictionary(targets.map { ($0.url, $0.selector) }, uniquingKeysWith: { first, _ in first })
        let results = Mutex<[(ObjectID, Result<ArticlePage.Fetched, ArticlePage.Problem>)]>([])
        await fetcher.fetchAll(items.keys.map { FeedRequest(url: $0) }) { request, outcome in
            let result = ArticlePage.article(from: outcome, url: request.url, selector: selectors[request.url] ?? nil)
            results.withLock { all in all += (items[request.url] ?? []).map { ($0, result) } }
        }
        return results.withLock { $0 }
    }

    /// Fetches the pages of `targets` (``fetch(_:with:)``) and stores each outcome with its item
    /// in `context` (``store(_:for:now:in:)``), in one save; returns how many came and how many
    /// failed (nothing counted when the save fails). Leaves `context` reset.
    ///
    /// ```swift
    /// let count = await FullArticles.fetchAndStore(targets, with: fetcher, in: context)
    /// ```
    public static func fetchAndStore(
        _ targets: [Target], with fetcher: FeedFetcher, in context: ManagedObjectContext
    ) async -> FullArticleCount {
        guard !targets.isEmpty else { return FullArticleCount() }
        let outcomes = await fetch(targets, with: fetcher)
        return await context.run {
            defer { context.reset() }
            for (id, outcome) in outcomes { store(outcome, for: id, in: context) }
            do { try context.save() } catch {
                context.rollback()
                return FullArticleCount()
            }
            let fetched = outcomes.filter { if case .success = $0.1 { true } else { false } }.count
            return FullArticleCount(fetched: fetched, failed: outcomes.count - fetched)
        }
    }

    /// Stores `outcome` with the item: the article, or why there is none (the feed's content
    /// stays either way). Does not save. Call on `context`'s queue.
    public static func store(
        _ outcome: Result<ArticlePage.Fetched, ArticlePage.Problem>, for id: ObjectID, now: Date = Date(),
        in context: ManagedObjectContext
    ) {
        guard let item = try? context.existingObject(with: id) as? FeedItem, !item.isDeleted else { return }
        let body: FeedItemBody
        if let existing = item.body {
            body = existing
        } else {
            body = context.insert(FeedItemBody.self)
            item.body = body
        }
        body.articleFetched = now
        switch outcome {
        case .success(let page):
            body.article = page.article.html
            body.articleProblem = nil
        case .failure(let problem):
            body.articleProblem = problem.description
        }
    }

    /// Marks the feeds `urls` for full articles (or not), in `context` (unsaved); throws for
    /// a URL that is not subscribed.
    public static func setFullArticle(_ on: Bool, urls: [String], in context: ManagedObjectContext) throws(ZeaderError) {
        do {
            for url in urls {
                guard let server = try Server.findFirst(byAttribute: "url", value: url, in: context) else {
                    throw ZeaderError.notSubscribed(url)
                }
                server.fullArticle = on
            }
        } catch let error as ZeaderError {
            throw error
        } catch {
            throw ZeaderError.wrapping(error)
        }
    }
}
