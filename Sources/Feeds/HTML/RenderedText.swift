/// HTML from a feed rendered as terminal text: lines that fit a width, and the links
/// those lines refer to by number.
///
/// ```swift
/// let page = HTMLText.render("<p>See <a href=\"/x\">this</a></p>", width: 40,
///                            baseURL: URL(string: "https://example.org/"))
/// page.lines  // ["See this[1]", "", "Links:", "[1] https://example.org/x"]
/// ```
public struct RenderedText: Sendable, Equatable {
    /// The lines to show, the list of links included, none wider than the width asked
    /// for except the lines of `<pre>` blocks, which are kept as written.
    public var lines: [String]
    /// Absolute URLs of the numbered links: `links[0]` is `[1]`.
    public var links: [String]

    /// The lines joined with newlines.
    ///
    /// ```swift
    /// print(HTMLText.render(html, width: 72).text)
    /// ```
    public var text: String { lines.joined(separator: "\n") }

    /// A rendering made of these lines and links (tests and previews build their own).
    ///
    /// ```swift
    /// let empty = RenderedText(lines: [], links: [])
    /// ```
    public init(lines: [String], links: [String]) {
        self.lines = lines
        self.links = links
    }
}
