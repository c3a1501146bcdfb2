import Feeds
import Foundation

/// A site's rule for its pages' full articles (the config's `article-selector SITE SELECTOR`):
/// where the article algorithm gets a site wrong, the elements a CSS selector names are the
/// article (``ArticleExtractor/extract(html:baseURL:charset:selector:)``). The site is a host
/// name (its subdomains included), a feed URL, `tag:NAME`, or `*`.
///
/// ```swift
/// let rule = try ArticleSelectorRule(site: "example.com", selector: "div.post-body")
/// rule.applies(toPage: URL(string: "https://www.example.com/a")!, feedURL: "https://f/rss", tags: nil)   // true
/// ```
public struct ArticleSelectorRule: Sendable, Hashable {
    /// Whose pages the rule is for.
    public enum Site: Sendable, Hashable {
        /// Pages on this host or its subdomains (lower case, no leading dot).
        case host(String)
        /// Pages linked from the items of these feeds.
        case feeds(FeedScope)
    }

    public var site: Site
    public var selector: CSSSelector

    /// Why a rule could not be read (one line, for the config's error).
    public struct Problem: Error, Sendable, Equatable, CustomStringConvertible {
        public var description: String
    }

    /// The rule for `site` (a host, a feed URL, `tag:NAME` or `*`) and `selector`.
    ///
    /// ```swift
    /// let rule = try ArticleSelectorRule(site: "tag:news", selector: "article")
    /// ```
    public init(site: String, selector: String) throws(Problem) {
        do {
            self.selector = try CSSSelector(selector)
        } catch {
            throw Problem(description: "article-selector: '\(selector)': \(error)")
        }
        let word = site.trimmingCharacters(in: .whitespaces)
        if word == "*" || word.lowercased().hasPrefix("tag:") || word.contains("://") {
            self.site = .feeds(FeedScope(parsing: word))
            return
        }
        var host = word.lowercased()
        if host.hasPrefix(".") { host.removeFirst() }
        let allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyz0123456789.-")
        guard !host.isEmpty, host.unicodeScalars.allSatisfy(allowed.contains), !host.hasPrefix("."), !host.contains("..")
        else {
            throw Problem(
                description: "article-selector: '\(site)' is not a host name, a feed URL, tag:NAME or * (e.g. example.com)")
        }
        self.site = .host(host)
    }

    /// Whether the rule is for the page `page`, linked from an item of the feed `feedURL`
    /// with stored `tags`.
    public func applies(toPage page: URL, feedURL: String?, tags: String?) -> Bool {
        switch site {
        case .host(let host):
            guard let pageHost = page.host?.lowercased() else { return false }
            return pageHost == host || pageHost.hasSuffix("." + host)
        case .feeds(let scope):
            guard let feedURL else { return scope == .all }
            return scope.matches(url: feedURL, tags: tags)
        }
    }

    /// How specific the rule is: a feed beats a tag beats a host (the longer the closer) beats `*`.
    var rank: Int {
        switch site {
        case .feeds(.feed): return 3_000
        case .feeds(.tag): return 2_000
        case .host(let host): return 1_000 + host.count
        case .feeds(.all): return 0
        }
    }

    /// The selector of the most specific of `rules` for the page (of two as specific, the
    /// later), nil when none is for it.
    ///
    /// ```swift
    /// let selector = ArticleSelectorRule.selector(in: rules, forPage: url, feedURL: feed, tags: nil)
    /// ```
    public static func selector(
        in rules: [ArticleSelectorRule], forPage page: URL, feedURL: String?, tags: String?
    ) -> CSSSelector? {
        // Of two rules as specific, the later line.
        var best: ArticleSelectorRule?
        for rule in rules where rule.applies(toPage: page, feedURL: feedURL, tags: tags) {
            if best.map({ rule.rank >= $0.rank }) ?? true { best = rule }
        }
        return best?.selector
    }
}
