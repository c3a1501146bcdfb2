import Foundation

/// Finds the article in a web page, in the manner of Mozilla's Readability: blocks of text
/// are scored (commas, length, class names), their scores flow to their ancestors, the best
/// ancestor is kept with its related siblings, and what is left of navigation, forms, ads
/// and share widgets is cleaned out.
///
/// Any bytes are accepted: the page is parsed by libxml2's HTML parser (recovering, no
/// network), capped in size, element count and depth, and walked without recursion.
///
/// ```swift
/// let article = try ArticleExtractor.extract(html: data, baseURL: URL(string: "https://example.org/a"))
/// print(article.title ?? "", article.excerpt ?? "")
/// ```
public enum ArticleExtractor {
    /// The bounds that keep a hostile page cheap.
    ///
    /// ```swift
    /// ArticleExtractor.Limits.maxInputBytes  // 10 MB
    /// ```
    public enum Limits {
        /// The largest page read, in bytes.
        public static let maxInputBytes = 10 << 20
        /// The most elements a page may have.
        public static let maxElements = 200_000
        /// The most attributes one element may have.
        public static let maxAttributesPerElement = 256
    }

    /// The article of the HTML page `html`; relative links and images are resolved against
    /// `baseURL` (after the page's own `<base href>`). Bytes that are valid UTF-8 are read as
    /// UTF-8; others in `charset` (the server's `Content-Type` charset) when it is given and
    /// known, else in the encoding the page declares.
    ///
    /// ```swift
    /// let article = try ArticleExtractor.extract(html: Data("<p>Hi</p>".utf8), baseURL: nil)
    /// print(article.text)  // "Hi"
    /// ```
    ///
    /// With `selector` (a site's rule for pages the algorithm gets wrong), the article is the
    /// elements it matches, outermost first, in page order, with scripts, styles and forms
    /// taken out (``Article/isSelected``); when it matches no text, the algorithm's article.
    ///
    /// Throws ``ArticleExtractionError``.
    public static func extract(
        html: Data, baseURL: URL?, charset: String? = nil, selector: CSSSelector? = nil
    ) throws(ArticleExtractionError) -> Article {
        if html.count > Limits.maxInputBytes { throw .tooLarge(size: html.count, limit: Limits.maxInputBytes) }
        if html.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 || $0 == 0x0C }) { throw .empty }
        if isBinary(html) { throw .notText }
        if hasCrowdedTag(html) { throw .tooManyAttributes(limit: Limits.maxAttributesPerElement) }
        let parsed = html.withUnsafeBytes { ArticleDOM.parse($0, charset: charset) }
        let elementCount = parsed.dom.nodes.count { !$0.isText }
        if elementCount > Limits.maxElements { throw .tooManyElements(count: elementCount, limit: Limits.maxElements) }
        if let selector {
            var selected = Extraction(dom: parsed.dom, body: parsed.body, head: parsed.head, baseURL: baseURL)
            if let article = selected.runSelected(selector) { return article }
        }
        var extraction = Extraction(dom: parsed.dom, body: parsed.body, head: parsed.head, baseURL: baseURL)
        guard let article = extraction.run() else { throw .noArticle }
        return article
    }

    /// Whether some tag holds more attribute-like words than
    /// ``Limits/maxAttributesPerElement``: counted on the bytes before parsing, since the
    /// parser's own check of repeated names takes time quadratic in their number.
    static func hasCrowdedTag(_ data: Data) -> Bool {
        data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            let rawTextElements: [[UInt8]] = ["script", "style", "textarea", "title", "xmp"].map { Array($0.utf8) }
            func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A }
            func lower(_ byte: UInt8) -> UInt8 { byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte }
            var index = 0
            while index < bytes.count {
                // A start tag: '<' and a letter.
                guard bytes[index] == UInt8(ascii: "<"), index + 1 < bytes.count, isLetter(bytes[index + 1]) else {
                    index += 1
                    continue
                }
                var name: [UInt8] = []
                index += 1
                while index < bytes.count, isLetter(bytes[index]) || (bytes[index] >= 0x30 && bytes[index] <= 0x39) {
                    if name.count < 10 { name.append(lower(bytes[index])) }
                    index += 1
                }
                var quote: UInt8 = 0
                var afterSpace = false
                var lastSignificant: UInt8 = 0
                var words = 0
                scanTag: while index < bytes.count {
                    let byte = bytes[index]
                    index += 1
                    if quote != 0 {
                        if byte == quote { quote = 0 }
                        continue
                    }
                    switch byte {
                    case 0x09, 0x0A, 0x0C, 0x0D, 0x20:
                        afterSpace = true
                        continue
                    case UInt8(ascii: ">"):
                        break scanTag
                    case UInt8(ascii: "\""), UInt8(ascii: "'"):
                        if lastSignificant == UInt8(ascii: "=") { quote = byte }
                    default:
                        if afterSpace && byte != UInt8(ascii: "=") && byte != UInt8(ascii: "/")
                            && lastSignificant != UInt8(ascii: "=")
                        {
                            words += 1
                            if words > Limits.maxAttributesPerElement { return true }
                        }
                    }
                    afterSpace = false
                    lastSignificant = byte
                }
                // The text of <script>, <style> and the like is not markup: skip to its end tag.
                if rawTextElements.contains(name) {
                    let end = [UInt8(ascii: "<"), UInt8(ascii: "/")] + name
                    while index < bytes.count {
                        if bytes[index] == UInt8(ascii: "<"), index + end.count <= bytes.count,
                            (0..<end.count).allSatisfy({ lower(bytes[index + $0]) == end[$0] })
                        {
                            break
                        }
                        index += 1
                    }
                }
            }
            return false
        }
    }

    /// NUL bytes in the first kilobyte, which no page in an 8-bit encoding or UTF-8 has
    /// (UTF-16 pages, which have them, start with a byte order mark).
    static func isBinary(_ data: Data) -> Bool {
        if data.starts(with: [0xFF, 0xFE]) || data.starts(with: [0xFE, 0xFF]) { return false }
        return data.prefix(1024).contains(0)
    }
}

/// One page's extraction: the state Readability keeps between its steps.
struct Extraction {
    var dom: ArticleDOM
    let body: Int
    let head: PageHead
    let baseURL: URL?
    var metadata = PageMetadata()
    var byline: String?
    var direction: String?
    var flags: Flags = [.stripUnlikely, .weightClasses, .cleanConditionally]
    var scores: [Int: Double] = [:]
    var dataTables: Set<Int> = []

    struct Flags: OptionSet {
        let rawValue: Int
        static let stripUnlikely = Flags(rawValue: 1)
        static let weightClasses = Flags(rawValue: 2)
        static let cleanConditionally = Flags(rawValue: 4)
    }

    /// Fewer characters than this and the rules are loosened and the page read again.
    static let characterThreshold = 500
    static let topCandidateCount = 5

    init(dom: ArticleDOM, body: Int, head: PageHead, baseURL: URL?) {
        self.dom = dom
        self.body = body
        self.head = head
        self.baseURL = baseURL
    }

    mutating func run() -> Article? {
        prepareDocument()
        metadata = PageMetadata.read(head: head, dom: dom, body: body)
        guard let (articleDOM, content) = grabArticle() else { return nil }
        dom = articleDOM
        postProcess(content)
        return article(of: content)
    }

    /// The article made of what `selector` matches in the page, nil when that has no text.
    mutating func runSelected(_ selector: CSSSelector) -> Article? {
        prepareDocument()
        metadata = PageMetadata.read(head: head, dom: dom, body: body)
        let matches = selector.outermostMatches(in: dom, under: body)
        guard !matches.isEmpty else { return nil }
        let content = dom.createElement("div")
        for node in matches {
            dom.detach(node)
            dom.append(node, to: content)
        }
        // What is never an article's text, whatever the rule chose.
        for tag in ["script", "style", "noscript", "template", "link", "meta", "form", "input", "button", "select", "textarea"] {
            clean(content, tag: tag)
        }
        fixLazyImages(content)
        postProcess(content)
        var article = article(of: content)
        article?.isSelected = true
        return article
    }

    /// The article whose content is `content`, with the page's metadata; nil without text.
    func article(of content: Int) -> Article? {
        let html = dom.outerHTML(of: content)
        let text = dom.textContent(of: content)
        guard !ArticleDOM.isBlank(text) else { return nil }
        var excerpt = metadata.excerpt
        if excerpt == nil, let paragraph = dom.elements(in: content, named: ["p"]).first {
            excerpt = dom.textContent(of: paragraph).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        // Page text reaches terminals: no control characters or escape sequences.
        func clean(_ value: String?) -> String? { value.map(FeedText.sanitized) }
        return Article(
            title: clean(metadata.title), byline: clean(metadata.byline ?? byline), excerpt: clean(excerpt),
            siteName: clean(metadata.siteName), publishedTime: clean(metadata.publishedTime), lang: clean(head.lang),
            direction: clean(direction), html: FeedText.sanitized(html), text: FeedText.sanitized(text))
    }

    // MARK: - Preparing the page

    /// `<font>` becomes `<span>`, and runs of `<br>` become paragraphs.
    mutating func prepareDocument() {
        for node in dom.descendants(of: body) where dom.nodes[node].name == "font" {
            dom.nodes[node].name = "span"
        }
        replaceBreaks()
    }

    /// The next node from `node` on that is not white-space text.
    func skippingWhitespace(from node: Int) -> Int {
        var current = node
        while current >= 0 && dom.nodes[current].isText && ArticleDOM.isBlank(dom.nodes[current].text) {
            current = dom.nodes[current].next
        }
        return current
    }

    /// Two or more `<br>` in a row end a paragraph: what follows them (phrasing content up to
    /// the next such run) goes into a new `<p>`.
    mutating func replaceBreaks() {
        for br in dom.elements(in: body, named: ["br"]) where dom.nodes[br].parent >= 0 {
            var next = dom.nodes[br].next
            var replaced = false
            while true {
                next = skippingWhitespace(from: next)
                guard next >= 0, dom.nodes[next].name == "br" else { break }
                replaced = true
                let following = dom.nodes[next].next
                dom.detach(next)
                next = following
            }
            guard replaced else { continue }
            let paragraph = dom.createElement("p")
            dom.replace(br, with: paragraph)
            next = dom.nodes[paragraph].next
            while next >= 0 {
                if dom.nodes[next].name == "br" {
                    let after = skippingWhitespace(from: dom.nodes[next].next)
                    if after >= 0 && dom.nodes[after].name == "br" { break }
                }
                if !isPhrasingContent(next) { break }
                let sibling = dom.nodes[next].next
                dom.append(next, to: paragraph)
                next = sibling
            }
            while dom.nodes[paragraph].lastChild >= 0 && isWhitespace(dom.nodes[paragraph].lastChild) {
                dom.detach(dom.nodes[paragraph].lastChild)
            }
            let parent = dom.nodes[paragraph].parent
            if parent >= 0 && dom.nodes[parent].name == "p" { dom.nodes[parent].name = "div" }
        }
    }

    // MARK: - Classifying nodes

    static let phrasingElements: Set<String> = [
        "abbr", "audio", "b", "bdo", "br", "button", "cite", "code", "data", "datalist", "dfn", "em", "embed", "i",
        "img", "input", "kbd", "label", "mark", "math", "meter", "noscript", "object", "output", "progress", "q",
        "ruby", "samp", "script", "select", "small", "span", "strong", "sub", "sup", "textarea", "time", "var",
    ]
    static let blockElements: Set<String> = ["blockquote", "dl", "div", "img", "ol", "p", "pre", "table", "ul"]
    static let tagsToScore: Set<String> = ["section", "h2", "h3", "h4", "h5", "h6", "p", "td", "pre"]
    static let unlikelyRoles: Set<String> = ["menu", "menubar", "complementary", "navigation", "alert", "alertdialog", "dialog"]

    /// Text, inline elements, and links (or `del`, `ins`) holding only such content.
    func isPhrasingContent(_ node: Int) -> Bool {
        var stack = [node]
        while let current = stack.popLast() {
            let item = dom.nodes[current]
            if item.isText || Self.phrasingElements.contains(item.name) { continue }
            guard item.name == "a" || item.name == "del" || item.name == "ins" else { return false }
            stack.append(contentsOf: dom.childNodes(of: current))
        }
        return true
    }

    func isWhitespace(_ node: Int) -> Bool {
        let item = dom.nodes[node]
        return item.isText ? ArticleDOM.isBlank(item.text) : item.name == "br"
    }

    func hasChildBlockElement(_ node: Int) -> Bool {
        dom.descendants(of: node).contains { Self.blockElements.contains(dom.nodes[$0].name) }
    }

    /// Exactly one element child, named `name`, and no text beside it.
    func hasSingleElement(_ node: Int, named name: String) -> Bool {
        let children = dom.elementChildren(of: node)
        guard children.count == 1, dom.nodes[children[0]].name == name else { return false }
        return !dom.childNodes(of: node).contains { dom.nodes[$0].isText && !ArticleDOM.isBlank(dom.nodes[$0].text) }
    }

    func isElementWithoutContent(_ node: Int) -> Bool {
        guard !dom.nodes[node].isText, ArticleDOM.isBlank(dom.textContent(of: node)) else { return false }
        let children = dom.elementChildren(of: node)
        if children.isEmpty { return true }
        let breaks = dom.elements(in: node, named: ["br", "hr"]).count
        return children.count == breaks
    }

    /// Hidden by `style`, `hidden` or `aria-hidden` (an image marked as a fallback stays).
    func isProbablyVisible(_ node: Int) -> Bool {
        if let style = dom.attribute("style", of: node) {
            let compact = style.lowercased().filter { !$0.isWhitespace }
            if compact.contains("display:none") || compact.contains("visibility:hidden") { return false }
        }
        if dom.attribute("hidden", of: node) != nil { return false }
        if dom.attribute("aria-hidden", of: node) == "true" {
            return (dom.attribute("class", of: node) ?? "").contains("fallback-image")
        }
        return true
    }

    func hasAncestor(_ node: Int, named name: String, maxDepth: Int = 3, where condition: ((Int) -> Bool)? = nil) -> Bool {
        var depth = 0
        var current = node
        while dom.nodes[current].parent >= 0 {
            if maxDepth > 0 && depth > maxDepth { return false }
            let parent = dom.nodes[current].parent
            if dom.nodes[parent].name == name && (condition?(parent) ?? true) { return true }
            current = parent
            depth += 1
        }
        return false
    }

    /// The share of `node`'s text that sits in links (in-page links count less).
    func linkDensity(_ node: Int) -> Double {
        let length = dom.innerTextLength(of: node)
        guard length > 0 else { return 0 }
        var linkLength = 0.0
        for link in dom.elements(in: node, named: ["a"]) {
            let href = dom.attribute("href", of: link) ?? ""
            let coefficient = href.count > 1 && href.hasPrefix("#") ? 0.3 : 1
            linkLength += Double(dom.innerTextLength(of: link)) * coefficient
        }
        return linkLength / Double(length)
    }

    func classWeight(_ node: Int) -> Double {
        guard flags.contains(.weightClasses) else { return 0 }
        var weight = 0.0
        for value in [dom.attribute("class", of: node), dom.attribute("id", of: node)] {
            guard let value, !value.isEmpty else { continue }
            if ClassPatterns.isNegative(value) { weight -= 25 }
            if ClassPatterns.isPositive(value) { weight += 25 }
        }
        return weight
    }

    /// A node's starting score: its tag, then its class and id.
    mutating func initializeScore(_ node: Int) {
        var score: Double
        switch dom.nodes[node].name {
        case "div": score = 5
        case "pre", "td", "blockquote": score = 3
        case "address", "ol", "ul", "dl", "dd", "dt", "li", "form": score = -3
        case "h1", "h2", "h3", "h4", "h5", "h6", "th": score = -5
        default: score = 0
        }
        scores[node] = score + classWeight(node)
    }

    /// A byline: `rel=author`, an `author` itemprop or a byline-like class, and short.
    func isValidByline(_ node: Int, matchString: String) -> Bool {
        let isAuthor =
            dom.attribute("rel", of: node) == "author" || (dom.attribute("itemprop", of: node)?.contains("author") ?? false)
            || ClassPatterns.isByline(matchString)
        guard isAuthor else { return false }
        let length = dom.textContent(of: node).trimmingCharacters(in: .whitespacesAndNewlines).utf16.count
        return length > 0 && length < 100
    }

    func headerDuplicatesTitle(_ node: Int) -> Bool {
        let name = dom.nodes[node].name
        guard name == "h1" || name == "h2", let title = metadata.title else { return false }
        return TitleRules.similarity(title, dom.innerText(of: node, normalizingSpaces: false)) > 0.75
    }

    /// Removes `node` and returns the next element in document order.
    mutating func removeAndGetNext(_ node: Int) -> Int {
        let next = dom.nextElement(after: node, skippingChildren: true)
        dom.detach(node)
        return next
    }
}
