import Feeds

/// Where a picture goes in the article's lines: the blank rows that hold its place (so the text
/// does not move when it arrives) and the box of cells it is drawn in.
///
/// ```swift
/// let placement = PicturePlacement(url: "https://a.example/p.png", alt: "A chart", line: 4, columns: 40, rows: 10)
/// ```
public struct PicturePlacement: Sendable, Equatable, Hashable {
    public var url: String
    public var alt: String
    /// The first of its `rows` blank lines in ``ArticleState/lines``.
    public var line: Int
    public var columns: Int
    public var rows: Int

    public init(url: String, alt: String, line: Int, columns: Int, rows: Int) {
        self.url = url
        self.alt = alt
        self.line = line
        self.columns = columns
        self.rows = rows
    }
}

/// Lays out an article's pictures: a box per picture, from the size its tag gives (or the
/// whole width and the height cap), and blank lines inserted after the line it stands at.
///
/// ```swift
/// let laid = PictureLayout.insertingPlaceholders(rendered, width: 72, maximumRows: 12)
/// article.lines = laid.lines
/// ```
public enum PictureLayout {
    /// Pictures shown per article; the rest keep their `[image: alt]` line.
    public static let maximumPictures = 64
    /// The pixels a cell stands for when a tag's size is turned into cells.
    static let cellPixels = (width: 8, height: 16)

    /// The box of a picture whose tag says `width` × `height` pixels (either may be missing).
    ///
    /// ```swift
    /// PictureLayout.box(width: 160, height: 160, maximumColumns: 72, maximumRows: 12)  // (20, 10)
    /// ```
    public static func box(width: Int?, height: Int?, maximumColumns: Int, maximumRows: Int) -> (columns: Int, rows: Int) {
        let columnCap = max(1, maximumColumns)
        let rowCap = max(1, maximumRows)
        guard let width, let height, width > 0, height > 0 else { return (columnCap, rowCap) }
        var columns = min(columnCap, max(1, (width + cellPixels.width - 1) / cellPixels.width))
        var rows = max(1, (columns * cellPixels.width * height / width + cellPixels.height - 1) / cellPixels.height)
        if rows > rowCap {
            rows = rowCap
            columns = max(1, min(columns, rowCap * cellPixels.height * width / height / cellPixels.width))
        }
        return (columns, rows)
    }

    /// `rendered`'s lines with each picture's blank rows after its line (the first
    /// ``maximumPictures`` of them), its bold and underlined runs on their moved lines, and
    /// where each picture went.
    public static func insertingPlaceholders(_ rendered: RenderedText, width: Int, maximumRows: Int) -> (
        lines: [String], spans: [TextSpan], placements: [PicturePlacement]
    ) {
        let images = rendered.images.prefix(maximumPictures)
        guard !images.isEmpty else { return (rendered.lines, rendered.spans, []) }
        var lines: [String] = []
        var placements: [PicturePlacement] = []
        // Where each rendered line lands once the placeholder rows are in: the bold and
        // underlined runs move with their lines.
        var newIndex: [Int] = []
        newIndex.reserveCapacity(rendered.lines.count)
        lines.reserveCapacity(rendered.lines.count + images.count * maximumRows)
        var next = images.startIndex
        for (index, line) in rendered.lines.enumerated() {
            newIndex.append(lines.count)
            lines.append(line)
            while next < images.endIndex, images[next].line <= index {
                let image = images[next]
                let box = box(width: image.width, height: image.height, maximumColumns: width, maximumRows: maximumRows)
                placements.append(
                    PicturePlacement(url: image.url, alt: image.alt, line: lines.count, columns: box.columns, rows: box.rows))
                lines.append(contentsOf: repeatElement("", count: box.rows))
                next += 1
            }
        }
        let spans = rendered.spans.compactMap { span -> TextSpan? in
            guard span.line < newIndex.count else { return nil }
            var moved = span
            moved.line = newIndex[span.line]
            return moved
        }
        return (lines, spans, placements)
    }
}
