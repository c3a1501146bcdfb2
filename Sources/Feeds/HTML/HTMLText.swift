import Foundation

/// Turning feed HTML into text: one line of plain text for summaries and lists, or a
/// laid-out page for the article view.
///
/// Both accept any input, however broken (unclosed tags, stray `<`, unterminated
/// comments), drop `script` and `style`, decode every HTML entity, and remove control
/// characters and escape sequences, so the result is safe to print to a terminal.
///
/// ```swift
/// HTMLText.plainText("<p>Caf&eacute;</p><p>open</p>")  // "Café open"
/// HTMLText.render("<ul><li>one<li>two</ul>", width: 20).lines  // ["  * one", "  * two"]
/// ```
public enum HTMLText {
    /// Plain text of an HTML fragment on one line: tags removed (block boundaries and
    /// `<br>` become spaces), entities decoded, runs of whitespace collapsed to one space,
    /// `script`, `style` and the like dropped, control characters removed, trimmed.
    ///
    /// ```swift
    /// HTMLText.plainText("<b>Fish</b> &amp;&nbsp;chips<script>x()</script>")  // "Fish & chips"
    /// HTMLText.plainText("a<br>b")                                            // "a b"
    /// ```
    public static func plainText(_ html: String) -> String {
        fastPlainText(html)
    }

    /// ``plainText(_:)`` computed from ``HTMLTokenizer``'s tokens: slower, simpler, and
    /// the oracle the byte-level version is tested against.
    static func plainTextByTokens(_ html: String) -> String {
        var text = CollapsedText()
        var rawElement: String? = nil
        var tokenizer = HTMLTokenizer(html)
        while let token = tokenizer.next() {
            switch token {
            case .text(let raw):
                text.append(HTMLEntities.decode(String(raw)))
            case .rawText(let raw):
                if rawElement == nil || rawElement == "textarea" || rawElement == "xmp" {
                    text.append(String(raw))
                }
            case .startTag(let name, _, let selfClosing):
                if HTMLTokenizer.rawTextElements.contains(name) {
                    if !selfClosing { rawElement = name }
                } else if !inlineElements.contains(name) {
                    text.breakWord()
                }
            case .endTag(let name):
                if name == rawElement {
                    rawElement = nil
                } else if !inlineElements.contains(name) {
                    text.breakWord()
                }
            }
        }
        return text.string
    }

    /// The article view's text: `html` laid out in lines of at most `width` terminal
    /// columns (wide CJK characters and emoji count two and are never split).
    ///
    /// Paragraphs and headings are separated by blank lines (`h1` and `h2` underlined);
    /// `<br>` breaks the line; lists get `*`/`-`/`+` bullets by depth or numbers (from
    /// `start`), nested lists are indented and continuation lines hang under the text;
    /// blockquotes are prefixed with `> `; `<pre>` keeps its lines as written (tabs
    /// expanded), a line too long for the width continuing on lines that start with `↪ `;
    /// tables are laid out in aligned columns separated by ` | ` (a rule under header rows,
    /// numbers right-aligned, cells wrapped when the table is too wide; see `HTMLTable`);
    /// `<sup>16</sup>` shows as `^16` and `<sub>2</sub>` as `[2]`; `<q>` gets “quotation marks”; images show as `[image: alt][n]` (inside a link, with the link's number), and `<audio src>`,
    /// `<video src>` and `<iframe src>` as `[audio][n]`, `[video][n]`, `[embedded][n]`;
    /// links are numbered `text[1]` (one number per distinct URL, resolved against
    /// `baseURL`) and listed after a `Links:` line at the end. `javascript:`, `data:` and
    /// fragment-only links are not numbered. `<strong>`/`<b>` text is bold and `<u>`/`<ins>`
    /// and links' text underlined, as newsboat paints them (``RenderedText/spans``).
    ///
    /// ```swift
    /// let page = HTMLText.render(item.content ?? "", width: 72, baseURL: feedURL)
    /// page.lines.forEach { print($0) }
    /// ```
    ///
    /// Runs on one of the ``GuardedThreads`` (the caller waits): an article is untrusted input.
    public static func render(_ html: String, width: Int, baseURL: URL? = nil) -> RenderedText {
        GuardedThreads.runAndWait { renderOnThisThread(html, width: width, baseURL: baseURL) }
    }

    /// ``render(_:width:baseURL:)`` with the text alone: no link numbers, no `Links:` list,
    /// no `[image]`, `[video]` or `[embedded]` placeholders (they stay in the HTML), for a
    /// file or a pipe.
    ///
    /// ```swift
    /// HTMLText.renderTextOnly("<p>See <a href=\"/a\">this</a>.<img alt=x></p>", width: 72).text  // "See this."
    /// ```
    public static func renderTextOnly(_ html: String, width: Int) -> RenderedText {
        GuardedThreads.runAndWait { renderOnThisThread(html, width: width, baseURL: nil, textOnly: true) }
    }

    /// ``render(_:width:baseURL:)`` on the calling thread (its tests check it needs no deep stack).
    static func renderOnThisThread(_ html: String, width: Int, baseURL: URL?, textOnly: Bool = false) -> RenderedText {
        var renderer = HTMLRenderer(width: width, baseURL: baseURL)
        renderer.textOnly = textOnly
        var tokenizer = HTMLTokenizer(html)
        while let token = tokenizer.next() { renderer.consume(token) }
        return renderer.finish()
    }

    /// Wraps one paragraph of text (whitespace between words is collapsed) into lines of
    /// at most `width` terminal columns. Lines break at spaces, and also between CJK
    /// characters (not before closing punctuation such as `。` or `」`); a word longer than
    /// a line is cut between characters. A character wider than `width` gets a line of
    /// its own.
    ///
    /// ```swift
    /// HTMLText.wrap("the quick brown fox", width: 10)  // ["the quick", "brown fox"]
    /// HTMLText.wrap("日本語の文章です", width: 6)         // ["日本語", "の文章", "です"]
    /// ```
    public static func wrap(_ text: String, width: Int) -> [String] {
        let width = max(width, 1)
        var lines: [String] = []
        var line = ""
        var lineWidth = 0
        func newLine() {
            lines.append(line)
            line = ""
            lineWidth = 0
        }
        func place(_ piece: Substring, width pieceWidth: Int, gap: Int) {
            if gap > 0 { line += " " }
            line += piece
            lineWidth += gap + pieceWidth
        }
        let words = text.utf8.split(whereSeparator: { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D })
        for wordBytes in words {
            let word = Substring(wordBytes)
            let wordWidth = DisplayWidth.of(word)
            let gap = lineWidth > 0 ? 1 : 0
            if lineWidth + gap + wordWidth <= width {
                place(word, width: wordWidth, gap: gap)
                continue
            }
            let pieces = breakablePieces(of: word)
            if pieces.count == 1, wordWidth <= width {
                newLine()
                place(word, width: wordWidth, gap: 0)
                continue
            }
            for (index, piece) in pieces.enumerated() {
                let gap = index == 0 && lineWidth > 0 ? 1 : 0
                if lineWidth + gap + piece.width <= width {
                    place(piece.text, width: piece.width, gap: gap)
                } else if piece.width <= width {
                    newLine()
                    place(piece.text, width: piece.width, gap: 0)
                } else {
                    // Longer than a line (a long URL): cut it between characters.
                    if lineWidth > 0 { newLine() }
                    for character in piece.text {
                        let characterWidth = DisplayWidth.of(character)
                        if lineWidth > 0, lineWidth + characterWidth > width { newLine() }
                        line.append(character)
                        lineWidth += characterWidth
                    }
                }
            }
        }
        if lineWidth > 0 || !line.isEmpty { lines.append(line) }
        return lines
    }

    /// A word cut where lines may break inside it: before and after each wide (CJK)
    /// character, but not before closing punctuation nor after opening punctuation.
    private static func breakablePieces(of word: Substring) -> [(text: Substring, width: Int)] {
        var pieces: [(text: Substring, width: Int)] = []
        var runStart = word.startIndex
        var runWidth = 0
        var index = word.startIndex
        var previousWasWide = false
        while index < word.endIndex {
            let character = word[index]
            let characterWidth = DisplayWidth.of(character)
            let isWide = characterWidth == 2
            let canBreakBefore =
                (isWide || previousWasWide) && index > runStart
                && !noBreakBefore.contains(character)
                && !(index > word.startIndex && noBreakAfter.contains(word[word.index(before: index)]))
            if canBreakBefore {
                pieces.append((word[runStart..<index], runWidth))
                runStart = index
                runWidth = 0
            }
            runWidth += characterWidth
            previousWasWide = isWide
            index = word.index(after: index)
        }
        if runStart < word.endIndex { pieces.append((word[runStart...], runWidth)) }
        return pieces
    }

    private static let noBreakBefore: Set<Character> = [
        "、", "。", "，", "．", "・", "：", "；", "？", "！", "ー", "）", "」", "』", "】", "〕", "〉", "》",
        "〙", "〗", "］", "｝", "”", "’", "ぁ", "ぃ", "ぅ", "ぇ", "ぉ", "っ", "ゃ", "ゅ", "ょ", "ァ", "ィ",
        "ゥ", "ェ", "ォ", "ッ", "ャ", "ュ", "ョ", "々", ".", ",", "!", "?", ":", ";", ")", "]", "}",
    ]
    private static let noBreakAfter: Set<Character> = [
        "（", "「", "『", "【", "〔", "〈", "《", "〘", "〖", "［", "｛", "“", "‘", "(", "[", "{",
    ]

    /// Elements that do not separate words in ``plainText(_:)``.
    static let inlineElements: Set<String> = [
        "a", "abbr", "b", "bdi", "bdo", "cite", "code", "data", "del", "dfn", "em", "font", "i",
        "ins", "kbd", "mark", "q", "s", "samp", "small", "span", "strike", "strong", "sub", "sup",
        "time", "tt", "u", "var", "wbr",
    ]
}

/// Text accumulated with HTML's whitespace rule: runs of ASCII whitespace become one
/// space, none at the start or the end. Control characters and escape sequences are
/// dropped, as are soft hyphens. Kept as UTF-8 bytes until the text is taken.
struct CollapsedText {
    private var bytes: [UInt8] = []
    private var pendingSpace = false
    /// The emphasis the next appended text takes (``InlineEmphasis`` bits); attached text takes none.
    var emphasis: UInt8 = 0
    /// Each byte's emphasis, kept only once some text had one.
    private var emphases: [UInt8] = []

    var isEmpty: Bool { bytes.isEmpty }

    var string: String { String(decoding: bytes, as: UTF8.self) }

    mutating func append(_ text: String) {
        // A carriage return is whitespace here, not a control to drop.
        let clean = DisplayWidth.sanitizeForTerminal(
            text.utf8.contains(0x0D)
                ? String(String.UnicodeScalarView(text.unicodeScalars.map { $0 == "\r" ? " " : $0 })) : text)
        var previousWasC2 = false
        for byte in clean.utf8 {
            if previousWasC2 {
                previousWasC2 = false
                if byte == 0xAD { continue }  // U+00AD soft hyphen
                emit(0xC2)
            }
            switch byte {
            case 0x20, 0x09, 0x0A, 0x0D, 0x0C:
                pendingSpace = true
            case 0xC2:
                previousWasC2 = true
            default:
                emit(byte)
            }
        }
    }

    private mutating func emit(_ byte: UInt8) {
        if emphasis != 0, emphases.count < bytes.count {
            emphases.append(contentsOf: repeatElement(0, count: bytes.count - emphases.count))
        }
        if pendingSpace, !bytes.isEmpty {
            // A space inside a run (between two words of a link) takes the run's emphasis.
            record(emphases.last.map { $0 & emphasis } ?? 0)
            bytes.append(0x20)
        }
        pendingSpace = false
        record(emphasis)
        bytes.append(byte)
    }

    private mutating func record(_ value: UInt8) {
        if !emphases.isEmpty || value != 0 { emphases.append(value) }
    }

    /// Text that sticks to what precedes it, before any pending space (`text[1]`).
    mutating func attach(_ text: String) {
        if !emphases.isEmpty { emphases.append(contentsOf: repeatElement(0, count: text.utf8.count)) }
        bytes.append(contentsOf: text.utf8)
    }

    /// A word boundary: a space if more text follows.
    mutating func breakWord() {
        pendingSpace = true
    }

    /// Takes the text out, leaving this empty.
    mutating func take() -> String {
        defer {
            bytes.removeAll(keepingCapacity: true)
            emphases.removeAll(keepingCapacity: true)
            pendingSpace = false
        }
        return string
    }

    /// Takes the text out with the emphasis of each of its non-whitespace characters, in order
    /// (empty when none had any), leaving this empty.
    mutating func takeEmphasized() -> (text: String, emphases: [UInt8]) {
        guard !emphases.isEmpty else { return (take(), []) }
        let padded = emphases + repeatElement(0, count: max(0, bytes.count - emphases.count))
        let text = string
        var perCharacter: [UInt8] = []
        var offset = 0
        for character in text {
            if !character.isWhitespace { perCharacter.append(padded[offset]) }
            offset += character.utf8.count
        }
        _ = take()
        return (text, perCharacter)
    }
}

/// The emphasis bits of inline text (``TextSpan``).
enum InlineEmphasis {
    static let bold: UInt8 = 1
    static let underline: UInt8 = 2
}
