/// A table collected by ``HTMLRenderer`` and laid out in aligned columns.
///
/// Cells hold paragraphs of collapsed text (block elements and `<br>` inside a cell start a
/// new one). Columns get their natural width when the table fits; otherwise each column keeps
/// at least its longest word and the rest of the room goes to the columns with the most text,
/// whose cells wrap. A table with too many columns for even that is written one row per
/// line with cells separated by ` | `.
///
/// ```swift
/// var table = HTMLTable()
/// table.startRow(); table.startCell(header: true); table.add("k"); table.startCell(header: true); table.add("v")
/// table.startRow(); table.startCell(header: false); table.add("1"); table.startCell(header: false); table.add("2")
/// table.lines(width: 20)  // ["k | v", "--+--", "1 | 2"]
/// ```
struct HTMLTable {
    struct Cell {
        var paragraphs: [String] = []
        var header: Bool
    }

    /// Rows of cells; a row may have fewer cells than the table has columns.
    private(set) var rows: [[Cell]] = []
    /// Lines met inside the table but outside any cell (a caption, stray text), shown first.
    private(set) var before: [String] = []

    /// Columns beyond this are not laid out as a grid (hostile input: thousands of `<td>`).
    static let maximumColumns = 64
    static let separator = " | "

    var hasOpenCell: Bool { rows.last?.isEmpty == false }

    mutating func startRow() {
        rows.append([])
    }

    mutating func startCell(header: Bool) {
        if rows.isEmpty { rows.append([]) }
        rows[rows.count - 1].append(Cell(header: header))
    }

    /// Adds a paragraph to the open cell, or to the lines before the table when no cell is open.
    mutating func add(_ paragraph: String) {
        guard !paragraph.isEmpty else { return }
        if hasOpenCell {
            rows[rows.count - 1][rows[rows.count - 1].count - 1].paragraphs.append(paragraph)
        } else {
            before.append(paragraph)
        }
    }

    /// The table laid out in lines of at most `width` columns (when `width` leaves each
    /// column at least one column of room; otherwise as rows of ` | `-separated cells).
    func lines(width: Int) -> [String] {
        let rows = self.rows.filter { row in row.contains { !$0.paragraphs.isEmpty } }
        var out = before.flatMap { HTMLText.wrap($0, width: width) }
        let columnCount = rows.map(\.count).max() ?? 0
        guard columnCount > 0 else { return out }
        let gaps = DisplayWidth.of(Self.separator) * (columnCount - 1)
        guard columnCount <= Self.maximumColumns, width - gaps >= columnCount * 3 else {
            for row in rows {
                let text = row.map { $0.paragraphs.joined(separator: " ") }.joined(separator: Self.separator)
                out += HTMLText.wrap(text, width: width)
            }
            return out
        }
        var natural = Array(repeating: 0, count: columnCount)
        var longestWord = Array(repeating: 0, count: columnCount)
        var numeric = Array(repeating: true, count: columnCount)
        for row in rows {
            for (column, cell) in row.enumerated() {
                for paragraph in cell.paragraphs {
                    natural[column] = max(natural[column], DisplayWidth.of(paragraph))
                    for word in paragraph.split(separator: " ") {
                        longestWord[column] = max(longestWord[column], DisplayWidth.of(word))
                    }
                }
                if !cell.header, !cell.paragraphs.isEmpty, !Self.isNumeric(cell.paragraphs.joined()) {
                    numeric[column] = false
                }
            }
        }
        let widths = Self.columnWidths(natural: natural, longestWord: longestWord, room: width - gaps)
        for (rowIndex, row) in rows.enumerated() {
            var cellLines: [[String]] = []
            for column in 0..<columnCount {
                let paragraphs = column < row.count ? row[column].paragraphs : []
                cellLines.append(paragraphs.flatMap { HTMLText.wrap($0, width: widths[column]) })
            }
            let height = cellLines.map(\.count).max() ?? 0
            for lineIndex in 0..<height {
                var pieces: [String] = []
                // Cells after the last one with text on this line are left out, separators too.
                let used = (0..<columnCount).last { lineIndex < cellLines[$0].count && !cellLines[$0][lineIndex].isEmpty } ?? 0
                for column in 0...used {
                    let text = lineIndex < cellLines[column].count ? cellLines[column][lineIndex] : ""
                    let header = column < row.count && row[column].header
                    pieces.append(Self.pad(text, to: widths[column], right: numeric[column] && !header))
                }
                out.append(Self.trimmed(pieces.joined(separator: Self.separator)))
            }
            // A rule under a row of headers that has rows after it.
            if rowIndex + 1 < rows.count, row.allSatisfy(\.header), !rows[rowIndex + 1].allSatisfy(\.header) {
                out.append(widths.map { String(repeating: "-", count: $0) }.joined(separator: "-+-"))
            }
        }
        return out
    }

    /// Widths that sum to at most `room`: natural widths when they fit; else each column
    /// its longest word plus a share of what is left in proportion to its remaining text;
    /// else an even share, no column wider than its text.
    static func columnWidths(natural: [Int], longestWord: [Int], room: Int) -> [Int] {
        if natural.reduce(0, +) <= room { return natural }
        let minimum = zip(natural, longestWord).map { min($0, $1) }
        var widths: [Int]
        if minimum.reduce(0, +) <= room {
            widths = minimum
            let extra = room - minimum.reduce(0, +)
            let wanted = zip(natural, minimum).map { $0 - $1 }
            let totalWanted = max(1, wanted.reduce(0, +))
            for column in widths.indices { widths[column] += extra * wanted[column] / totalWanted }
        } else {
            // Water-filling: raise every column together, each capped at its text.
            widths = Array(repeating: 0, count: natural.count)
            var left = room
            while left > 0 {
                let growing = widths.indices.filter { widths[$0] < natural[$0] }
                if growing.isEmpty { break }
                let step = max(1, left / growing.count)
                for column in growing where left > 0 {
                    let add = min(step, natural[column] - widths[column], left)
                    widths[column] += add
                    left -= add
                }
            }
        }
        return widths
    }

    static func isNumeric(_ text: String) -> Bool {
        var digits = 0
        for scalar in text.unicodeScalars {
            if ("0"..."9").contains(scalar) {
                digits += 1
            } else if !",.%+-−$€£ sx×".unicodeScalars.contains(scalar) {
                return false
            }
        }
        return digits > 0
    }

    private static func pad(_ text: String, to columns: Int, right: Bool) -> String {
        let fill = String(repeating: " ", count: max(0, columns - DisplayWidth.of(text)))
        return right ? fill + text : text + fill
    }

    private static func trimmed(_ line: String) -> String {
        var line = Substring(line)
        while line.last == " " { line.removeLast() }
        return String(line)
    }
}
