import Feeds
import Foundation

/// The article's numbered links: the body's links, images and media as the renderer numbers
/// them (`[N]`), then its enclosures. One numbering for the article's `Links:` list, the link
/// list (`u`, `U`), `#` and the digits typed while reading.
///
/// ```swift
/// let rendered = ArticleLinks.render(article, width: 72)
/// rendered.links.last   // the last enclosure's URL, listed as "[N] URL (enclosure)"
/// ```
enum ArticleLinks {
    /// The article's body rendered at `width`, its enclosures numbered after the body's links.
    static func render(_ article: ArticleState, width: Int) -> RenderedText {
        var rendered = HTMLText.render(article.bodyHTML, width: width, baseURL: article.baseURL)
        var enclosures: [String] = []
        for enclosure in article.enclosures
        where !enclosure.url.isEmpty && !rendered.links.contains(enclosure.url) && !enclosures.contains(enclosure.url) {
            enclosures.append(enclosure.url)
        }
        guard !enclosures.isEmpty else { return rendered }
        if rendered.links.isEmpty {
            if !rendered.lines.isEmpty { rendered.lines.append("") }
            rendered.lines.append(contentsOf: DisplayWidth.lines("Links:", width: width))
        }
        for url in enclosures {
            rendered.links.append(url)
            let line = "[\(rendered.links.count)] \(DisplayWidth.sanitizeForTerminal(url)) (enclosure)"
            rendered.lines.append(contentsOf: DisplayWidth.lines(line, width: width))
        }
        return rendered
    }
}
