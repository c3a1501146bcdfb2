import Foundation

/// The layout engine behind ``HTMLText/render(_:width:baseURL:)``: consumes tokens and
/// keeps a stack of the open containers (quotes, lists, list items, definitions) that
/// decide each line's prefix.
struct HTMLRenderer {
    private enum Container {
        case quote
        case list(ordered: Bool, next: Int, depth: Int)
        case item(marker: String, markerShown: Bool)
        case indent
    }

    private struct Frame {
        var element: String
        var container: Container
    }

    private let width: Int
    private let baseURL: URL?
    private var lines: [String] = []
    /// Whether the last line is a blank separator between blocks (which may be ">").
    private var lastLineIsSeparator = false
    private var frames: [Frame] = []
    private var inline = CollapsedText()
    /// A blank line is owed before the next line; its prefix is taken when it was asked for.
    private var pendingBlank: String? = nil
    private var headingLevel = 0
    private var preDepth = 0
    private var preText = ""
    private var rawElement: String? = nil
    private var openLink: String?? = nil
    /// Open `<strong>`/`<b>` and `<u>`/`<ins>` elements: the emphasis of the text inside.
    private var boldDepth = 0
    private var underlineDepth = 0
    private var spans: [TextSpan] = []
    private var links: [String] = []
    private var linkNumbers: [String: Int] = [:]
    /// Only the text: no `[n]` link markers, no `Links:` list, no `[image]` or `[video]`
    /// placeholders.
    var textOnly = false
    private var tableCell = 0
    /// The outermost open `<table>`, collecting its cells; tables inside it are flattened.
    private var table: HTMLTable? = nil
    private var tableDepth = 0
    /// Inside `<audio>`/`<video>`, whose fallback content is not shown.
    private var mediaDepth = 0
    /// An `<audio>`/`<video>` without `src`, waiting for a `<source src>`.
    private var mediaAwaitingSource: String? = nil
    private var images: [RenderedImage] = []
    /// Pictures met since the last paragraph was laid out: they go after its last line.
    private var pendingImages: [RenderedImage] = []

    /// Elements set off by blank lines.
    private static let spacedBlocks: Set<String> = [
        "p", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "blockquote", "ul", "ol", "dl", "table",
        "figure", "hr", "address", "details", "fieldset", "menu",
    ]
    /// Elements that start and end a line.
    private static let lineBlocks: Set<String> = [
        "div", "li", "tr", "dt", "dd", "section", "article", "header", "footer", "nav", "aside",
        "main", "figcaption", "caption", "center", "summary", "body", "html", "option", "legend",
        "form", "noscript", "video", "audio", "picture", "thead", "tbody", "tfoot", "hgroup",
    ]
    private static let droppedRawElements: Set<String> = [
        "script", "style", "iframe", "noembed", "noframes", "title", "template",
    ]

    /// Containers nested deeper than this are not opened (their text still shows), so
    /// that hostile nesting costs neither quadratic time nor a prefix wider than a line.
    static let maximumDepth = 48

    init(width: Int, baseURL: URL?) {
        self.width = max(width, 1)
        self.baseURL = baseURL
    }

    mutating func consume(_ token: HTMLToken) {
        switch token {
        case .text(let raw):
            appendText(HTMLEntities.decode(String(raw)))
        case .rawText(let raw):
            if let rawElement, Self.droppedRawElements.contains(rawElement) { return }
            appendText(String(raw))
        case .startTag(let name, let attributes, let selfClosing):
            start(name, attributes: attributes)
            if selfClosing, !Self.voidElements.contains(name), name != "a" { end(name) }
        case .endTag(let name):
            end(name)
        }
    }

    private static let voidElements: Set<String> = [
        "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr",
    ]

    mutating func finish() -> RenderedText {
        closeLink()
        if headingLevel > 0 { end("h\(headingLevel)") }
        if preDepth > 0 {
            preDepth = 1
            end("pre")
        }
        flushInline()
        while table != nil { end("table") }
        if lastLineIsSeparator { lines.removeLast() }
        while lines.last?.isEmpty == true { lines.removeLast() }
        images += pendingImages
        for index in images.indices { images[index].line = max(0, min(images[index].line, lines.count - 1)) }
        if !links.isEmpty {
            lines.append("")
            lines.append(contentsOf: Self.cut("Links:", width: width))
            for (index, link) in links.enumerated() {
                lines.append(contentsOf: Self.cut("[\(index + 1)] \(link)", width: width))
            }
        }
        var rendered = RenderedText(lines: lines, links: links)
        rendered.spans = spans.filter { $0.line < lines.count }
        rendered.images = images
        return rendered
    }

    // MARK: - Elements

    private mutating func push(_ frame: Frame) {
        if frames.count < Self.maximumDepth { frames.append(frame) }
    }

    private mutating func start(_ name: String, attributes: [(name: String, value: String)]) {
        if headingLevel > 0, Self.spacedBlocks.contains(name) || Self.lineBlocks.contains(name) || name == "li" {
            end("h\(headingLevel)")  // a block inside a heading: the heading was not closed
        }
        func attribute(_ key: String) -> String? { attributes.first(where: { $0.name == key })?.value }
        if HTMLTokenizer.rawTextElements.contains(name) {
            rawElement = name
            if name == "iframe", mediaDepth == 0, let source = attribute("src") {
                appendAtom("[embedded]", link: source)
            }
            return
        }
        switch name {
        case "br":
            lineBreak()
        case "a":
            closeLink()
            openLink = .some(acceptableLink(attribute("href")))
            updateEmphasis()
        case "strong", "b":
            boldDepth += 1
            updateEmphasis()
        case "u", "ins":
            underlineDepth += 1
            updateEmphasis()
        case "img":
            guard mediaDepth == 0 else { return }
            let alt = CollapsedText.collapse(attribute("alt") ?? "")
            // An image inside a link takes the link's number; any other is numbered as newsboat numbers it.
            appendAtom(alt.isEmpty ? "[image]" : "[image: \(alt)]", link: openLink == nil ? attribute("src") : nil)
            notePicture(source: attribute("src"), alt: alt, width: attribute("width"), height: attribute("height"))
        case "hr":
            blockBoundary(spaced: true)
            emit(String(repeating: "-", count: max(1, min(available(), 40))))
            requestBlank()
        case "pre":
            blockBoundary(spaced: true)
            if preDepth == 0 { preText = "" }
            preDepth += 1
        case "h1", "h2", "h3", "h4", "h5", "h6":
            blockBoundary(spaced: true)
            headingLevel = Int(String(name.last!)) ?? 1
        case "blockquote":
            blockBoundary(spaced: true)
            push(Frame(element: name, container: .quote))
        case "ul", "ol", "menu", "dir":
            let nested = frames.contains(where: { if case .item = $0.container { true } else { false } })
            blockBoundary(spaced: !nested)
            let start = name == "ol" ? Self.listNumber(attribute("start")) ?? 1 : 1
            let depth = frames.filter { if case .list = $0.container { true } else { false } }.count + 1
            push(Frame(element: name, container: .list(ordered: name == "ol", next: start, depth: depth)))
        case "li":
            blockBoundary(spaced: false)
            startListItem(value: Self.listNumber(attribute("value")))
        case "dd":
            blockBoundary(spaced: false)
            push(Frame(element: name, container: .indent))
        case "table":
            blockBoundary(spaced: true)
            if table == nil { table = HTMLTable() }
            tableDepth += 1
        case "tr":
            blockBoundary(spaced: false)
            tableCell = 0
            if tableDepth == 1 { table?.startRow() }
        case "td", "th":
            if table != nil {
                flushInline()
                if tableDepth == 1 { table?.startCell(header: name == "th") }
            } else {
                if tableCell > 0 { inline.attach(" | ") }
                tableCell += 1
            }
        case "sup":
            appendText("^")
        case "sub":
            appendText("[")
        case "q":
            appendText("\u{201C}")
        case "audio", "video":
            // Their content is a fallback for browsers without media support: not shown.
            blockBoundary(spaced: false)
            if let source = attribute("src") {
                appendAtom("[\(name)]", link: source)
                mediaAwaitingSource = nil
            } else {
                mediaAwaitingSource = name
            }
            mediaDepth += 1
        case "source":
            if let media = mediaAwaitingSource, let source = attribute("src") {
                appendAtom("[\(media)]", link: source)
                mediaAwaitingSource = nil
            }
        default:
            if Self.spacedBlocks.contains(name) {
                blockBoundary(spaced: true)
            } else if Self.lineBlocks.contains(name) {
                blockBoundary(spaced: false)
            }
        }
    }

    private mutating func end(_ name: String) {
        if name == rawElement {
            rawElement = nil
            return
        }
        switch name {
        case "a":
            closeLink()
        case "strong", "b":
            boldDepth = max(0, boldDepth - 1)
            updateEmphasis()
        case "u", "ins":
            underlineDepth = max(0, underlineDepth - 1)
            updateEmphasis()
        case "q":
            appendText("\u{201D}")
        case "sub":
            if preDepth > 0 {
                preText += "]"
            } else if mediaDepth == 0 {
                inline.attach("]")
            }
        case "td", "th":
            flushInline()
        case "table":
            guard table != nil else { return blockBoundary(spaced: true) }
            flushInline()
            tableDepth -= 1
            if tableDepth == 0, let finished = table {
                table = nil
                for line in finished.lines(width: available()) { emit(line) }
                requestBlank()
            }
        case "audio", "video":
            guard mediaDepth > 0 else { return }
            mediaDepth -= 1
            mediaAwaitingSource = nil
            blockBoundary(spaced: false)
        case "pre":
            guard preDepth > 0 else { return }
            preDepth -= 1
            if preDepth == 0 { emitPre() }
        case "h1", "h2", "h3", "h4", "h5", "h6":
            guard headingLevel > 0 else { return }
            let level = headingLevel
            headingLevel = 0
            let text = inline.take()
            for line in HTMLText.wrap(text, width: available()) { emit(line) }
            if level <= 2, !text.isEmpty, table == nil {
                let underline = min(DisplayWidth.of(text), available())
                emit(String(repeating: level == 1 ? "=" : "-", count: underline))
            }
            requestBlank()
        case "blockquote", "ul", "ol", "menu", "dir", "li", "dd":
            guard let index = frames.lastIndex(where: { $0.element == name }) else { return }
            flushInline()
            let spaced = name == "blockquote" || (name != "li" && name != "dd" && !isInsideItem(below: index))
            frames.removeSubrange(index...)
            if spaced { requestBlank() }
        default:
            if Self.spacedBlocks.contains(name) {
                blockBoundary(spaced: true)
            } else if Self.lineBlocks.contains(name) {
                blockBoundary(spaced: false)
            }
        }
    }

    private func isInsideItem(below index: Int) -> Bool {
        frames[..<index].contains(where: { if case .item = $0.container { true } else { false } })
    }

    /// A list's `start` or an item's `value`, clamped so that counting on from it can
    /// never overflow (`<ol start="9223372036854775807">`).
    static func listNumber(_ text: String?) -> Int? {
        guard let text, let number = Int(text.trimmingCharacters(in: .whitespaces)) else { return nil }
        return min(max(number, -listNumberLimit), listNumberLimit)
    }

    static let listNumberLimit = 999_999_999

    private mutating func startListItem(value: Int?) {
        // An open item of the same list ends where the next one starts.
        if let listIndex = frames.lastIndex(where: { if case .list = $0.container { true } else { false } }) {
            frames.removeSubrange((listIndex + 1)...)
        } else {
            push(Frame(element: "ul", container: .list(ordered: false, next: 1, depth: 1)))
        }
        guard let listIndex = frames.indices.last,
            case .list(let ordered, let next, let depth) = frames[listIndex].container
        else { return }  // nested too deep to open a list
        let number = value ?? next
        let marker: String
        if ordered {
            marker = "\(number). "
        } else {
            marker = ["* ", "- ", "+ "][(depth - 1) % 3]
        }
        frames[listIndex].container = .list(ordered: ordered, next: min(number, Self.listNumberLimit) + 1, depth: depth)
        push(Frame(element: "li", container: .item(marker: marker, markerShown: false)))
    }

    // MARK: - Inline content

    private mutating func appendText(_ text: String) {
        if mediaDepth > 0 { return }
        if preDepth > 0 {
            preText += text
        } else {
            inline.append(text)
        }
    }

    private mutating func appendAtom(_ atom: String, link: String?) {
        if textOnly { return }
        var text = atom
        if let link, let url = acceptableLink(link) { text += "[\(number(for: url))]" }
        if preDepth > 0 {
            preText += text
        } else {
            inline.append(text)
        }
    }

    /// The emphasis of the text appended from here on: bold inside `<strong>`/`<b>`, underlined
    /// inside `<u>`/`<ins>` and a link's text.
    private mutating func updateEmphasis() {
        let linked = openLink.map { $0 != nil } ?? false
        inline.emphasis =
            (boldDepth > 0 ? InlineEmphasis.bold : 0) | (underlineDepth > 0 || linked ? InlineEmphasis.underline : 0)
    }

    private mutating func closeLink() {
        guard let link = openLink else { return }
        openLink = nil
        updateEmphasis()
        guard let url = link, mediaDepth == 0, !textOnly else { return }
        let marker = "[\(number(for: url))]"
        if preDepth > 0 {
            preText += marker
        } else {
            inline.attach(marker)
        }
    }

    private mutating func number(for url: String) -> Int {
        if let existing = linkNumbers[url] { return existing }
        links.append(url)
        linkNumbers[url] = links.count
        return links.count
    }

    /// The absolute URL of a link worth listing, or nil for script, data and in-page links.
    private func acceptableLink(_ href: String?) -> String? {
        guard let href = href.map(RelativeLink.trimmed), !href.isEmpty,
            !href.hasPrefix("#")
        else { return nil }
        let lowered = href.lowercased()
        for scheme in ["javascript:", "data:", "vbscript:"] where lowered.hasPrefix(scheme) { return nil }
        guard let resolved = RelativeLink.resolve(href, against: baseURL) else { return nil }
        return DisplayWidth.sanitizeForTerminal(resolved)
    }

    // MARK: - Lines

    private mutating func lineBreak() {
        if preDepth > 0 {
            preText += "\n"
        } else if inline.isEmpty {
            emit("")
        } else {
            flushInline()
        }
    }

    private mutating func blockBoundary(spaced: Bool) {
        flushInline()
        if spaced { requestBlank() }
    }

    /// Owes a blank line; of two requests before the next line, the one outside more
    /// quotes wins (the blank between a quote and what follows belongs to neither).
    private mutating func requestBlank() {
        let prefix = quotePrefix()
        if let pending = pendingBlank, pending.count <= prefix.count { return }
        pendingBlank = prefix
    }

    /// `text` cut into lines of `width` columns between any two characters (for URLs,
    /// which have no good place to break).
    static func cut(_ text: String, width: Int) -> [String] {
        DisplayWidth.lines(text, width: width)
    }

    private mutating func flushInline() {
        guard preDepth == 0, headingLevel == 0 else { return }
        let (text, emphases) = inline.takeEmphasized()
        guard !text.isEmpty else { return }
        if table != nil { return emit(text) }  // a cell's paragraph, wrapped when the table is laid out
        var next = 0
        for line in HTMLText.wrap(text, width: available()) {
            guard !emphases.isEmpty else {
                emit(line)
                continue
            }
            // Wrapping keeps the non-whitespace characters in order: each takes its emphasis back.
            var lineEmphases: [UInt8?] = []
            for character in line {
                if character.isWhitespace {
                    lineEmphases.append(nil)
                } else {
                    lineEmphases.append(next < emphases.count ? emphases[next] : 0)
                    next += 1
                }
            }
            // A space between two characters of a run (a link's words) takes the run's emphasis.
            let resolved = lineEmphases.indices.map { index -> UInt8 in
                if let own = lineEmphases[index] { return own }
                let before = lineEmphases[..<index].last { $0 != nil } ?? nil
                let after = lineEmphases[(index + 1)...].first { $0 != nil } ?? nil
                return (before ?? 0) & (after ?? 0)
            }
            emit(line, emphases: resolved)
        }
        for var image in pendingImages {
            image.line = lines.count - 1
            images.append(image)
        }
        pendingImages = []
    }

    /// Keeps an `<img>` outside tables and `<pre>` whose source is http or https, to be shown
    /// after its paragraph; the rest keep only their `[image: alt]` line.
    private mutating func notePicture(source: String?, alt: String, width: String?, height: String?) {
        guard !textOnly, table == nil, preDepth == 0, let source, let url = acceptableLink(source),
            url.lowercased().hasPrefix("http://") || url.lowercased().hasPrefix("https://")
        else { return }
        func pixels(_ text: String?) -> Int? {
            text.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }.map { min(max($0, 1), 100_000) }
        }
        pendingImages.append(RenderedImage(url: url, alt: alt, line: 0, width: pixels(width), height: pixels(height)))
    }

    /// The spans of line `line` from `emphases` (one per character of its text, which starts at
    /// character `offset`), cut at the line's `length`.
    private mutating func addSpans(_ emphases: [UInt8], line: Int, offset: Int, length: Int) {
        var index = 0
        while index < emphases.count {
            let value = emphases[index]
            var end = index + 1
            while end < emphases.count, emphases[end] == value { end += 1 }
            let start = offset + index
            let count = min(end, emphases.count) - index
            if value != 0, start < length {
                spans.append(
                    TextSpan(
                        line: line, start: start, count: min(count, length - start), bold: value & InlineEmphasis.bold != 0,
                        underline: value & InlineEmphasis.underline != 0))
            }
            index = end
        }
    }

    private mutating func emitPre() {
        var text = DisplayWidth.sanitizeForTerminal(preText.replacingOccurrences(of: "\r\n", with: "\n"))
        preText = ""
        if text.hasPrefix("\n") { text.removeFirst() }
        while text.hasSuffix("\n") { text.removeLast() }
        let room = available()
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            for piece in Self.wrapCode(expandTabs(line), width: room) { emit(piece, verbatim: true) }
        }
        requestBlank()
    }

    private func expandTabs(_ line: Substring) -> String {
        guard line.contains("\t") else { return String(line) }
        var out = ""
        var column = 0
        for character in line {
            if character == "\t" {
                let spaces = 8 - column % 8
                out += String(repeating: " ", count: spaces)
                column += spaces
            } else {
                out.append(character)
                column += DisplayWidth.of(character)
            }
        }
        return out
    }

    /// Columns left for text once the prefixes of the open containers are drawn; at
    /// least a quarter of the width (deep nesting in a narrow window) and at least 2.
    private func available() -> Int {
        let prefixWidth = DisplayWidth.of(prefix(showMarkers: false))
        return max(width - prefixWidth, min(width, max(2, width / 4)))
    }

    private func quotePrefix() -> String {
        var prefix = ""
        for frame in frames {
            if case .quote = frame.container { prefix += ">" }
        }
        return prefix
    }

    private func prefix(showMarkers: Bool) -> String {
        var prefix = ""
        for frame in frames {
            switch frame.container {
            case .quote: prefix += "> "
            case .list(_, _, let depth): if depth == 1 { prefix += "  " }
            case .item(let marker, let shown):
                prefix += showMarkers && !shown ? marker : String(repeating: " ", count: DisplayWidth.of(marker))
            case .indent: prefix += "    "
            }
        }
        return prefix
    }

    /// Appends a line of `content` under the prefixes of the open containers. Lines of
    /// text always fit the width: when deep nesting leaves too little room, the prefix
    /// is cut, not the text. `verbatim` lines (from `<pre>`) keep empty lines. Inside a
    /// table, the line goes to the open cell instead.
    private mutating func emit(_ content: String, verbatim: Bool = false, emphases: [UInt8] = []) {
        if table != nil {
            table?.add(content)
            return
        }
        if let blank = pendingBlank {
            pendingBlank = nil
            if !lines.isEmpty, !lastLineIsSeparator {
                lines.append(blank)
                lastLineIsSeparator = true
            }
        }
        var linePrefix = prefix(showMarkers: true)
        for index in frames.indices {
            if case .item(let marker, _) = frames[index].container {
                frames[index].container = .item(marker: marker, markerShown: true)
            }
        }
        var text = content
        if text.unicodeScalars.contains("\u{A0}") {
            text = String(String.UnicodeScalarView(text.unicodeScalars.map { $0 == "\u{A0}" ? " " : $0 }))
        }
        let room = max(0, width - DisplayWidth.of(text))
        if DisplayWidth.of(linePrefix) > room { linePrefix = DisplayWidth.prefix(linePrefix, columns: room) }
        var trimmed = Substring(linePrefix + text)
        while trimmed.last == " " { trimmed.removeLast() }
        if trimmed.isEmpty, !verbatim, lines.isEmpty { return }
        lines.append(String(trimmed))
        lastLineIsSeparator = false
        if !emphases.isEmpty {
            addSpans(emphases, line: lines.count - 1, offset: linePrefix.count, length: trimmed.count)
        }
    }
}

extension CollapsedText {
    /// `text` with its whitespace collapsed and control characters removed.
    static func collapse(_ text: String) -> String {
        var collapsed = CollapsedText()
        collapsed.append(text)
        return collapsed.string
    }
}
