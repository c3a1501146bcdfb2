import Foundation
import ZeaderKit

/// newsboat's directives that take a filter in its filter language (``NewsboatFilter``, read
/// through the same predicates as Zeader's own): `ignore-article FEED FILTER` and
/// `ignore-mode` (killfile rules, ``Killfile``), `define-filter NAME FILTER` (the filters `f`
/// offers) and `highlight-article FILTER FG BG [ATTR…]` (item rows painted). A filter Zeader
/// cannot translate leaves its line out with a warning naming why, never a stop.
///
/// ```swift
/// let config = try ReaderConfig.parse("define-filter \"today\" \"age < 1\"", file: "config")
/// config.definedFilters[0].predicateFormat   // "age < 1"
/// ```
extension ReaderConfig {
    /// The directives this file reads.
    static let filterDirectives: Set<String> = ["ignore-article", "ignore-mode", "define-filter", "highlight-article"]

    /// One of ``filterDirectives``.
    mutating func applyFilterDirective(_ directive: String, _ arguments: [String], fail: (String) -> ReaderConfigError) {
        // A line Zeader cannot read is a warning: a newsboat config always starts the reader.
        func ignored(_ problem: String) { warnings.append(fail("\(problem) (line ignored)")) }
        func checked(_ filter: String) -> Bool {
            guard let problem = NewsboatFilter.problem(in: filter) else { return true }
            ignored("\(directive): \(problem)")
            return false
        }
        switch directive {
        case "ignore-article":
            guard arguments.count == 2 else { return ignored("ignore-article needs a feed URL (or \"*\") and a filter") }
            guard checked(arguments[1]) else { return }
            ignoreRules.append(Killfile.Rule(scope: FeedScope(parsing: arguments[0]), predicateFormat: arguments[1]))
        case "ignore-mode":
            // Either way an ignored item is kept out of the lists, and comes back when its rule goes
            // if the feed still carries it (Killfile), so both modes are honoured alike.
            guard arguments.count == 1, ["download", "display"].contains(arguments[0].lowercased()) else {
                return ignored("ignore-mode needs download or display")
            }
        case "define-filter":
            guard arguments.count == 2, !arguments[0].isEmpty else { return ignored("define-filter needs a name and a filter") }
            guard checked(arguments[1]) else { return }
            definedFilters.append(SmartFeedDefinition(title: arguments[0], predicateFormat: arguments[1]))
        default:
            guard arguments.count >= 3 else {
                return ignored("highlight-article needs a filter, a foreground and a background colour")
            }
            guard checked(arguments[0]) else { return }
            switch ColorRule.parse(["article"] + arguments.dropFirst()) {
            case .failure(let problem): ignored(problem.message)
            case .success(let colors):
                articleHighlights.append(
                    ArticleHighlight(
                        predicateFormat: arguments[0], foreground: colors.foreground, background: colors.background,
                        attributes: colors.attributes))
            }
        }
    }
}

/// A `highlight-article` line: the items its filter matches are drawn in these colours in the
/// item lists.
///
/// ```swift
/// let rule = ArticleHighlight(predicateFormat: "flags # \"s\"", foreground: 3, background: -1, attributes: ["bold"])
/// ```
public struct ArticleHighlight: Equatable, Sendable {
    /// The filter, in newsboat's language or ObjectGraph's.
    public var predicateFormat: String
    /// Colour numbers; -1 is the terminal's default.
    public var foreground: Int16
    public var background: Int16
    public var attributes: [String]

    public init(predicateFormat: String, foreground: Int16, background: Int16, attributes: [String]) {
        self.predicateFormat = predicateFormat
        self.foreground = foreground
        self.background = background
        self.attributes = attributes
    }
}

extension ReaderConfig {
    /// The colours the screen paints with: the `highlight` lines, then one entry per
    /// `highlight-article` line (which colours whole item rows, never text by a pattern), so
    /// that item `n` of ``articleHighlights`` is painted as highlight `highlightRules.count + n + 1`.
    ///
    /// ```swift
    /// let backend = CursesBackend(useColor: true, colorRules: config.colorRules, highlightRules: config.paintedHighlights)
    /// ```
    public var paintedHighlights: [HighlightRule] {
        highlightRules
            + articleHighlights.map {
                HighlightRule(
                    target: .articlelist, foreground: $0.foreground, background: $0.background, attributes: $0.attributes,
                    matcher: RegexMatcher.never)
            }
    }
}

extension RegexMatcher {
    /// A pattern that matches no text: the colour entry of a highlight-article line.
    static let never = RegexMatcher(pattern: "(?!)", regex: try! NSRegularExpression(pattern: "(?!)"))
}
