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
    /// The pictures (`<img>` with an http or https `src`), each after the line it stands at.
    public var images: [RenderedImage] = []

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

/// A picture of a rendered page: its absolute URL, its alt text, the line it stands at (its
/// `[image: alt]` line, or the last line of its paragraph) and the size its tag gives.
///
/// ```swift
/// let page = HTMLText.render("<p><img src=\"/a.png\" alt=\"A\" width=\"64\"></p>", width: 40,
///                            baseURL: URL(string: "https://example.org/"))
/// page.images.first?.url  // "https://example.org/a.png"
/// ```
public struct RenderedImage: Sendable, Equatable {
    public var url: String
    public var alt: String
    /// The index in ``RenderedText/lines`` the picture goes after.
    public var line: Int
    /// `width` and `height` of the tag in CSS pixels, when given as plain numbers.
    public var width: Int?
    public var height: Int?

    public init(url: String, alt: String, line: Int, width: Int? = nil, height: Int? = nil) {
        self.url = url
        self.alt = alt
        self.line = line
        self.width = width
        self.height = height
    }
}
