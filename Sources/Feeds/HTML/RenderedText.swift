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
    /// The runs of the lines the HTML marks bold or underlined, in line order.
    public var spans: [TextSpan] = []

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

/// A run of one rendered line drawn as the HTML marks it, as newsboat paints it: `<strong>` and
/// `<b>` bold, `<u>`, `<ins>` and a link's text underlined (`<em>` and `<i>` stay plain).
///
/// ```swift
/// let page = HTMLText.render("<p>A <b>bold</b> word</p>", width: 40)
/// page.spans   // [TextSpan(line: 0, start: 2, count: 4, bold: true, underline: false)]
/// ```
public struct TextSpan: Sendable, Equatable {
    /// The line's index in ``RenderedText/lines``.
    public var line: Int
    /// The run's first character (a `Character` offset from the line's start) and its length.
    public var start: Int
    public var count: Int
    public var bold: Bool
    public var underline: Bool

    /// A run of `count` characters from `start` on line `line`.
    ///
    /// ```swift
    /// let span = TextSpan(line: 0, start: 2, count: 4, bold: true, underline: false)
    /// span.bold   // true
    /// ```
    public init(line: Int, start: Int, count: Int, bold: Bool, underline: Bool) {
        self.line = line
        self.start = start
        self.count = count
        self.bold = bold
        self.underline = underline
    }
}
