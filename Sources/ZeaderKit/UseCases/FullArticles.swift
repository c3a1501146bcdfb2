import Feeds
import Foundation
import ObjectGraph

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
    /// An item whose page is to be fetched: its ID and its link.
    public struct Target: Sendable, Equatable {
        public var item: ObjectID
        public var url: URL
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
    /// ``perFeedLimit`` per feed. Call on `context`'s queue.
    public static func pending(
        of servers: [ObjectID], scopes: [FeedScope] = [], in context: ManagedObjectContext
    ) throws -> [Target] {
        var targets: [Target] = []
        for id in servers {
            guard let server = context.object(with: id) as? Server,
                server.fullArticle || scopes.contains(where: { $0.matches(url: server.url, tags: server.tags) })
            else { continue }
            let request = FetchRequest<FeedItem>(
                predicate: try Predicate(format: "server == %@ AND link != nil AND body.articleFetched == nil", id),
                sortDescriptors: [SortDescriptor("sortDate", ascending: false)], fetchLimit: perFeedLimit)
            for item in try context.fetch(request) {
                if let url = pageURL(item.link) { targets.append(Target(item: item.objectID, url: url)) }
            }
        }
        return targets
    }

    /// Fetches the pages of `targets`, `jobs` at a time (the fetcher keeps its per-host limit).
    public static func fetch(
        _ targets: [Target], with fetcher: FeedFetcher, jobs: Int = 4
    ) async -> [(ObjectID, Result<ArticlePage.Fetched, ArticlePage.Problem>)] {
        await withTaskGroup(of: (ObjectID, Result<ArticlePage.Fetched, ArticlePage.Problem>).self) { group in
            var pending = targets.makeIterator()
            var running = 0
            var results: [(ObjectID, Result<ArticlePage.Fetched, ArticlePage.Problem>)] = []
            while true {
                while running < max(1, jobs), let target = pending.next() {
                    running += 1
                    group.addTask { (target.item, await ArticlePage.fetch(target.url, with: fetcher)) }
                }
                guard running > 0, let result = await group.next() else { break }
                running -= 1
                results.append(result)
            }
            return results
        }
    }

    /// Stores `outcome` with the item: the article, or why there is none (the feed's content
    /// stays either way). Does not save. Call on `context`'s queue.
    public static func store(
        _ outcome: Result<ArticlePage.Fetched, ArticlePage.Problem>, for id: ObjectID, now: Date = Date(),
        in context: ManagedObjectContext
    ) {
        guard let item = context.object(with: id) as? FeedItem, !item.isDeleted else { return }
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
