import Foundation

/// A feed a web page points to.
///
/// ```swift
/// let found = FeedDiscovery.alternateLinks(inHTML: body, base: pageURL)
/// print(found.first?.url ?? "none", found.first?.title ?? "")
/// ```
public struct DiscoveredFeed: Sendable, Equatable {
    /// The feed's absolute URL.
    public var url: String
    /// The link's `title` (or, for a feed found at a common path, the feed's own title).
    public var title: String?
    /// The link's media type (`application/rss+xml` …), nil for a feed found at a common path.
    public var type: String?

    /// A discovered feed; `DiscoveredFeed(url: "https://x.example/feed.xml", title: "X")`.
    public init(url: String, title: String? = nil, type: String? = nil) {
        self.url = url
        self.title = title
        self.type = type
    }
}

/// Finding a site's feeds from its home page, as browsers and feed readers do: the page's
/// `<link rel="alternate">` elements with a feed type (RSS, Atom, JSON Feed), resolved
/// against the page's URL (or its `<base href>`); when there are none, the paths sites
/// commonly use (``commonPaths``) are worth a try.
///
/// ```swift
/// let feeds = FeedDiscovery.alternateLinks(inHTML: Data(html.utf8), base: URL(string: "https://blog.example/")!)
/// ```
public enum FeedDiscovery {
    /// Paths tried on the page's site when it names no feed.
    public static let commonPaths = ["/feed", "/rss.xml", "/atom.xml", "/index.xml", "/feed.json"]

    /// The media types of feeds in `<link type>`.
    static let feedTypes: Set<String> = [
        "application/rss+xml", "application/atom+xml", "application/feed+json", "application/json",
        "application/rdf+xml", "application/xml", "text/xml",
    ]

    /// Whether a body is a web page rather than a feed: its type says HTML, or (no type, or
    /// a generic one) it starts like an HTML document.
    ///
    /// ```swift
    /// FeedDiscovery.looksLikeHTML(Data("<!DOCTYPE html><html>".utf8), contentType: nil)   // true
    /// ```
    public static func looksLikeHTML(_ body: Data, contentType: String?) -> Bool {
        if let type = contentType?.lowercased(), type == "text/html" || type == "application/xhtml+xml" { return true }
        let head = String(decoding: body.prefix(1024), as: UTF8.self).lowercased()
        let trimmed = head.drop { $0.isWhitespace || $0 == "\u{FEFF}" }
        return trimmed.hasPrefix("<!doctype html") || trimmed.hasPrefix("<html") || head.contains("<head")
    }

    /// The feeds a page links to with `<link rel="alternate" type="…feed type…" href>`, in
    /// document order, each once; http(s) URLs only (a `javascript:` or `data:` href is
    /// hostile input, never a feed). Links in comments and scripts are not links.
    public static func alternateLinks(inHTML body: Data, base: URL) -> [DiscoveredFeed] {
        let html = String(decoding: body, as: UTF8.self)
        var base = base
        var found: [DiscoveredFeed] = []
        var seen = Set<String>()
        var tokenizer = HTMLTokenizer(html)
        while let token = tokenizer.next() {
            guard case .startTag(let name, let attributes, _) = token else { continue }
            func attribute(_ key: String) -> String? { attributes.first { $0.name == key }?.value }
            if name == "base", let href = attribute("href"), let url = URL(string: href, relativeTo: base)?.absoluteURL {
                base = url
                continue
            }
            if name == "body" { break }  // feed links belong in the head
            guard name == "link", let href = attribute("href")?.trimmingCharacters(in: .whitespacesAndNewlines),
                !href.isEmpty,
                let rel = attribute("rel")?.lowercased().split(whereSeparator: \.isWhitespace), rel.contains("alternate"),
                let type = attribute("type")?.lowercased().split(separator: ";").first?.trimmingCharacters(in: .whitespaces),
                feedTypes.contains(type),
                let url = URL(string: href, relativeTo: base)?.absoluteURL,
                let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host != nil
            else { continue }
            let absolute = url.absoluteString
            guard seen.insert(absolute).inserted else { continue }
            let title = attribute("title")?.trimmingCharacters(in: .whitespacesAndNewlines)
            found.append(DiscoveredFeed(url: absolute, title: title?.isEmpty == false ? title : nil, type: type))
        }
        return found
    }

    /// The common feed URLs of `page`'s site (scheme, host and port kept, path replaced).
    ///
    /// ```swift
    /// FeedDiscovery.commonURLs(for: URL(string: "https://blog.example/about")!).first   // https://blog.example/feed
    /// ```
    public static func commonURLs(for page: URL) -> [URL] {
        guard var components = URLComponents(url: page, resolvingAgainstBaseURL: true) else { return [] }
        components.query = nil
        components.fragment = nil
        return commonPaths.compactMap { path in
            components.path = path
            return components.url
        }
    }
}
