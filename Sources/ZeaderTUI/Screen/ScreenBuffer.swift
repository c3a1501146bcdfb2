import Feeds
import ZeaderConfig

/// One terminal cell: the character drawn in it (a grapheme of display width 1 or 2) and
/// its style. The cell to the right of a wide character is a continuation (`text` empty).
///
/// ```swift
/// let cell = Cell(text: "日", width: 2, style: .normal)
/// ```
public struct Cell: Hashable, Sendable {
    /// The grapheme, or "" for the right half of a wide character.
    public var text: String
    /// 1, 2, or 0 for a continuation.
    public var width: Int
    public var style: Style

    public init(text: String, width: Int, style: Style) {
        self.text = text
        self.width = width
        self.style = style
    }

    /// A space.
    public static let blank = Cell(text: " ", width: 1, style: .normal)
}

/// A grid of cells: what views draw into and what backends show. Writing never goes
/// past the buffer's edges and never leaves half a wide character behind.
///
/// ```swift
/// var buffer = ScreenBuffer(width: 80, height: 24)
/// buffer.write("日本語 feed", x: 0, y: 0)
/// print(buffer.line(0))   // "日本語 feed" padded to 80 columns
/// ```
public struct ScreenBuffer: Equatable, Sendable {
    /// Columns.
    public let width: Int
    /// Rows.
    public let height: Int
    /// Row by row, `width` cells each.
    public private(set) var cells: [Cell]

    public init(width: Int, height: Int) {
        self.width = max(0, width)
        self.height = max(0, height)
        cells = Array(repeating: .blank, count: self.width * self.height)
    }

    /// The cell at column `x`, row `y`: `buffer[0, 0].text`.
    public subscript(x: Int, y: Int) -> Cell {
        get { cells[y * width + x] }
        set { cells[y * width + x] = newValue }
    }

    /// Writes `text` at (`x`, `y`), clipped to `maxWidth` columns (default: to the right
    /// edge); control characters are dropped and tabs become a space. Returns the column
    /// after the last character written.
    ///
    /// ```swift
    /// let end = buffer.write("Title", x: 2, y: 0, style: Style(bold: true))
    /// ```
    @discardableResult
    public mutating func write(_ text: String, x: Int, y: Int, style: Style = .normal, maxWidth: Int? = nil) -> Int {
        guard y >= 0, y < height, x < width else { return x }
        let limit = min(width, x + (maxWidth ?? width))
        var column = x
        for character in text {
            if character == "\t" {
                if column >= limit { break }
                if column >= 0 { setCell(column, y, Cell(text: " ", width: 1, style: style)) }
                column += 1
                continue
            }
            let characterWidth = DisplayWidth.of(character)
            if characterWidth == 0 {
                // Combining marks join the previous cell; controls (already sanitized) are dropped.
                if character.unicodeScalars.first.map({ $0.value >= 0x20 && $0.value != 0x7F }) == true, column > 0,
                    column - 1 < width, column - 1 >= 0
                {
                    var previous = self[column - 1, y]
                    if previous.width == 0, column - 2 >= 0 { previous = self[column - 2, y] }
                    if previous.width > 0 && previous.text != " " {
                        let target = self[column - 1, y].width == 0 ? column - 2 : column - 1
                        self[target, y].text += String(character)
                    }
                }
                continue
            }
            if column + characterWidth > limit { break }
            if column >= 0 {
                setCell(column, y, Cell(text: String(character), width: characterWidth, style: style))
                if characterWidth == 2 { setCell(column + 1, y, Cell(text: "", width: 0, style: style)) }
            }
            column += characterWidth
        }
        return column
    }

    /// Sets one cell, repairing any wide character it cuts in half.
    private mutating func setCell(_ x: Int, _ y: Int, _ cell: Cell) {
        let old = self[x, y]
        if old.width == 0, x > 0, self[x - 1, y].width == 2 {
            self[x - 1, y] = Cell(text: " ", width: 1, style: self[x - 1, y].style)
        }
        if old.width == 2, x + 1 < width, cell.width != 2 {
            self[x + 1, y] = Cell(text: " ", width: 1, style: old.style)
        }
        self[x, y] = cell
    }

    /// Fills a row segment with spaces in `style` (highlight bars, status lines).
    ///
    /// ```swift
    /// buffer.fill(y: 23, style: Style(role: .statusBar, reverse: true))
    /// ```
    public mutating func fill(y: Int, from x: Int = 0, to end: Int? = nil, style: Style) {
        guard y >= 0, y < height else { return }
        for column in max(0, x)..<min(width, end ?? width) { setCell(column, y, Cell(text: " ", width: 1, style: style)) }
    }

    /// Re-styles a row segment, keeping its text (the cursor bar over a list row).
    ///
    /// ```swift
    /// buffer.restyle(y: 3, style: Style(role: .selected, reverse: true))
    /// ```
    public mutating func restyle(y: Int, from x: Int = 0, to end: Int? = nil, style: Style) {
        guard y >= 0, y < height else { return }
        for column in max(0, x)..<min(width, end ?? width) { self[column, y].style = style }
    }

    /// The text of row `y` (continuation cells contribute nothing), trailing spaces kept.
    ///
    /// ```swift
    /// #expect(buffer.line(0).hasPrefix("Feeds"))
    /// ```
    public func line(_ y: Int) -> String {
        var text = ""
        for x in 0..<width { text += self[x, y].text }
        return text
    }

    /// Every row, trailing spaces removed, joined by newlines: what a test compares.
    public var text: String {
        (0..<height).map { y in
            var l = line(y)
            while l.hasSuffix(" ") { l.removeLast() }
            return l
        }.joined(separator: "\n")
    }
}
