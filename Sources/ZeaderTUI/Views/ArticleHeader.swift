import Feeds
import ZeaderKit

/// A media file attached to the article, shown in its header with type and size:
/// `ArticleEnclosure(url: "https://x.example/ep1.mp3", type: "audio/mpeg", length: 12_345_678)`.
public struct ArticleEnclosure: Equatable, Sendable {
    public var url: String
    public var type: String?
    /// Size in bytes, when the feed gives it.
    public var length: Int64?

    public init(url: String, type: String? = nil, length: Int64? = nil) {
        self.url = url
        self.type = type
        self.length = length
    }

    /// `https://x.example/ep1.mp3 (audio/mpeg, 12.3 MB)`; the parenthesis lists what is known.
    public var summary: String {
        var details: [String] = []
        if let type, !type.isEmpty { details.append(type) }
        if let length, length > 0 { details.append(ByteCount.text(length)) }
        return details.isEmpty ? url : "\(url) (\(details.joined(separator: ", ")))"
    }
}

/// The article's header lines (feed, title, author, date, link, flags, tags, enclosures) wrapped to the
/// screen: text wraps at spaces, URLs anywhere; continuation lines are indented under the
/// value, after the label. Feed text decides how long a value is, so each field takes at
/// most ``maxFieldLines`` lines (fewer on a short screen, see ``lines(_:width:rows:)``),
/// a longer one ending in `…`, and at most ``maxEnclosures`` enclosures are listed: the
/// body always starts on the article's first screen.
enum ArticleHeader {
    /// The most lines one field takes.
    static let maxFieldLines = 3
    /// The most enclosures listed; the rest are counted on one line.
    static let maxEnclosures = 3

    struct Line: Equatable {
        /// The label (`Link: `), or spaces of its width on a continuation line.
        var label: String
        var text: String
    }

    static func fields(_ article: ArticleState) -> [(label: String, text: String, isURL: Bool)] {
        var fields: [(String, String, Bool)] = [("Feed: ", article.feedTitle, false), ("Title: ", article.title, false)]
        if let author = article.author, !author.isEmpty { fields.append(("Author: ", author, false)) }
        if let date = article.date { fields.append(("Date: ", ReaderView.longDate(date), false)) }
        if let link = article.link, !link.isEmpty { fields.append(("Link: ", link, true)) }
        if let flags = article.flagLetters, !flags.isEmpty { fields.append(("Flags: ", flags, false)) }
        let tags = FeedTags.list(article.tags)
        if !tags.isEmpty { fields.append(("Tags: ", tags.joined(separator: ", "), false)) }
        for enclosure in article.enclosures { fields.append(("Enclosure: ", enclosure.summary, true)) }
        return fields
    }

    /// ``fields(_:)`` as the screen lists them: the first ``maxEnclosures`` enclosures, the
    /// rest counted (a saved article keeps them all).
    static func shownFields(_ article: ArticleState) -> [(label: String, text: String, isURL: Bool)] {
        let all = fields(article)
        guard article.enclosures.count > maxEnclosures else { return all }
        var shown = Array(all.dropLast(article.enclosures.count - maxEnclosures))
        shown.append(("Enclosure: ", "and \(article.enclosures.count - maxEnclosures) more", false))
        return shown
    }

    /// The header at `width` columns for an article shown in `rows` rows (nil: no limit
    /// but ``maxFieldLines``); every line fits (labels are cut on absurdly narrow screens).
    /// When the header would take more than half of `rows`, each field gets fewer lines,
    /// down to one.
    static func lines(_ article: ArticleState, width: Int, rows: Int? = nil) -> [Line] {
        let fields = shownFields(article)
        var perField = maxFieldLines
        while true {
            let lines = lines(fields, width: width, perField: perField)
            guard let rows, perField > 1, lines.count > rows / 2 else { return lines }
            perField -= 1
        }
    }

    /// `fields` at `width` columns, each in at most `perField` lines.
    private static func lines(
        _ fields: [(label: String, text: String, isURL: Bool)], width: Int, perField: Int
    ) -> [Line] {
        var lines: [Line] = []
        for field in fields {
            let text = ReaderView.clean(field.text)
            let labelWidth = DisplayWidth.of(field.label)
            let room = max(width - labelWidth, max(8, width / 2))
            let label = labelWidth + room > width ? DisplayWidth.prefix(field.label, columns: max(0, width - room)) : field.label
            let pieces = capped(
                field.isURL ? cut(text, width: room) : HTMLText.wrap(text, width: room), lines: perField, width: room)
            for (index, piece) in (pieces.isEmpty ? [""] : pieces).enumerated() {
                lines.append(Line(label: index == 0 ? label : String(repeating: " ", count: DisplayWidth.of(label)), text: piece))
            }
        }
        return lines
    }

    /// `pieces` cut to `lines`, the last one ending in `…` within `width` columns when
    /// something was left out.
    static func capped(_ pieces: [String], lines: Int, width: Int) -> [String] {
        guard pieces.count > lines else { return pieces }
        var kept = Array(pieces.prefix(lines))
        let last = kept[lines - 1]
        kept[lines - 1] = DisplayWidth.prefix(last, columns: max(0, width - 1)) + "…"
        return kept
    }

    /// How many rows the header and the blank line under it take at `width`, for an
    /// article shown in `rows` rows.
    static func height(_ article: ArticleState, width: Int, rows: Int? = nil) -> Int {
        lines(article, width: width, rows: rows).count + 1
    }

    /// `text` in lines of `width` columns, cut between any two characters (URLs).
    static func cut(_ text: String, width: Int) -> [String] {
        DisplayWidth.lines(text, width: width)
    }
}
