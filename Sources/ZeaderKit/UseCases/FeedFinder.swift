import Feeds
import Foundation

/// What a URL given to "add feed" turned out to be: the one check `zeader add` and the
/// reader's add-feed preview share.
///
/// - A feed: subscribe to it as given.
/// - A web page (HTML): the feeds it names with `<link rel="alternate">`, else those found
///   at the common paths (``FeedDiscovery/commonPaths``, each fetched and parsed, so only
///   real feeds are offered); zero, one or several.
/// - Not reachable (a network error, an HTTP error): the caller decides (the command line
///   subscribes anyway and says so, as before; the next refresh retries).
///
/// ```swift
/// switch await FeedFinder.find("https://blog.example/", with: fetcher) {
/// case .feed: subscribe(url)
/// case .page(let feeds) where feeds.count == 1: subscribe(feeds[0].url)
/// case .page(let feeds): ask(feeds)
/// case .unreachable(let failure): warn(failure)
/// }
/// ```
public enum FeedFinder {
    /// The answer for one URL.
    public enum Finding: Sendable, Equatable {
        /// The URL is a feed, as parsed.
        case feed(ParsedFeed, FetchMetadata)
        /// The URL is a web page naming these feeds (maybe none).
        case page([DiscoveredFeed])
        /// The URL gave a body that is neither a feed nor a web page.
        case notAFeed(RefreshFailure)
        /// The URL could not be fetched.
        case unreachable(RefreshFailure)
    }

    /// Fetches `url` and says what it is; for a page without feed links, tries the common
    /// paths of its site (at most ``FeedDiscovery/commonPaths``.count more fetches, at once).
    public static func find(_ url: String, with fetcher: FeedFetcher) async -> Finding {
        guard let address = CommandFeed.requestURL(url) else { return .unreachable(.invalidURL(url)) }
        if CommandFeed.isCommand(url) {
            // A program's feed: run it for the preview, never searched for pages.
            switch await FeedRefresher.fetchAndParse(FeedRequest(url: address), with: fetcher) {
            case .parsed(let feed, let metadata): return .feed(feed, metadata)
            case .failed(let failure): return .notAFeed(failure)
            case .outcome(.failed(let error)): return .unreachable(.fetch(error))
            case .outcome: return .unreachable(.invalidURL(url))
            }
        }
        let outcome = await fetcher.fetch(FeedRequest(url: address))
        guard case .fetched(let body, let metadata) = outcome else {
            switch outcome {
            case .failed(let error): return .unreachable(.fetch(error))
            case .gone(let metadata), .notModified(let metadata):
                return .unreachable(.fetch(.httpStatus(metadata.status, url: metadata.finalURL)))
            case .deferred(_, let metadata):
                return .unreachable(.fetch(.httpStatus(metadata?.status ?? 503, url: metadata?.finalURL ?? address)))
            case .fetched: preconditionFailure("handled above")
            }
        }
        if FeedDiscovery.looksLikeHTML(body, contentType: metadata.contentType) {
            let linked = FeedDiscovery.alternateLinks(inHTML: body, base: metadata.finalURL)
            if !linked.isEmpty { return .page(linked) }
            return .page(await feedsAtCommonPaths(of: metadata.finalURL, with: fetcher))
        }
        let parsed = await GuardedThreads.run {
            Result { () throws(FeedParseError) in
                try FeedParser.parse(data: body, url: metadata.finalURL, contentTypeCharset: metadata.charset)
            }
        }
        switch parsed {
        case .success(let feed): return .feed(feed, metadata)
        case .failure(let error): return .notAFeed(.parse(error))
        }
    }

    /// The common paths of `page`'s site that answer with a feed, in ``FeedDiscovery/commonPaths`` order.
    static func feedsAtCommonPaths(of page: URL, with fetcher: FeedFetcher) async -> [DiscoveredFeed] {
        let candidates = FeedDiscovery.commonURLs(for: page).filter { $0.absoluteString != page.absoluteString }
        let found = await withTaskGroup(of: (Int, DiscoveredFeed?).self) { group in
            for (index, candidate) in candidates.enumerated() {
                group.addTask {
                    let input = await FeedRefresher.fetchAndParse(FeedRequest(url: candidate), with: fetcher)
                    guard case .parsed(let feed, _) = input else { return (index, nil) }
                    return (index, DiscoveredFeed(url: candidate.absoluteString, title: feed.title))
                }
            }
            var results: [(Int, DiscoveredFeed?)] = []
            for await result in group { results.append(result) }
            return results
        }
        return found.sorted { $0.0 < $1.0 }.compactMap(\.1)
    }
}

extension FeedPreview {
    /// What the reader's add-feed does with a URL: a feed, or a page's one feed, fetched for
    /// the preview; a page's several feeds, to choose from.
    public enum Discovery: Sendable {
        /// Preview `url` (the URL typed, or the one feed its page names).
        case fetched(url: String, FeedImporter.Input)
        /// The page names several feeds: ask which.
        case choose([DiscoveredFeed])
    }

    /// Checks `url` with ``FeedFinder`` and fetches what is to be previewed; call from any task.
    ///
    /// ```swift
    /// if case .fetched(let url, let input) = await FeedPreview.discover(text, with: fetcher) { … }
    /// ```
    public static func discover(_ url: String, with fetcher: FeedFetcher) async -> Discovery {
        switch await FeedFinder.find(url, with: fetcher) {
        case .feed(let feed, let metadata):
            return .fetched(url: url, .parsed(feed, metadata))
        case .page(let feeds) where feeds.count == 1:
            return .fetched(url: feeds[0].url, await fetch(feeds[0].url, with: fetcher))
        case .page(let feeds) where feeds.count > 1:
            return .choose(feeds)
        case .unreachable(let failure), .notAFeed(let failure):
            return .fetched(url: url, .failed(failure))
        case .page:
            // A page that names no feed: what a refresh of it would say.
            return .fetched(url: url, .failed(.parse(FeedParseError(.notAFeed(rootElement: "html"), url: URL(string: url)))))
        }
    }
}
