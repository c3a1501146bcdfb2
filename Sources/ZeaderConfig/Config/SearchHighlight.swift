import Foundation

/// newsboat's `search-highlight-colors FOREGROUND BACKGROUND [ATTRIBUTE…]`: in an article opened
/// from search results, the words searched for are drawn in these colours. The colours take a
/// highlight rule's place among the config's (``ReaderConfig/highlightRules``, so that the
/// terminal has them from the start), matching nothing until an article from a search is shown.
///
/// ```swift
/// let config = try ReaderConfig.parse("search-highlight-colors white color8 bold", file: "config")
/// config.searchHighlight?.rule(for: "swift linux")?.pattern   // "swift|linux"
/// ```
public struct SearchHighlight: Equatable, Sendable {
    /// The colour words as the config wrote them.
    public let colors: [String]
    /// Its rule's place in ``ReaderConfig/highlightRules``.
    public let ruleIndex: Int

    /// A pattern that matches no text.
    static let nothing = "(?!)"

    /// The rule drawing `search`'s words (each as typed, any case), or matching nothing for nil.
    ///
    /// ```swift
    /// state.highlights[search.ruleIndex] = search.rule(for: nil)!   // an article not from a search
    /// ```
    public func rule(for search: String?) -> HighlightRule? {
        let words = (search ?? "").split(whereSeparator: \.isWhitespace).map {
            NSRegularExpression.escapedPattern(for: String($0))
        }
        let pattern = words.isEmpty ? Self.nothing : words.joined(separator: "|")
        return try? HighlightRule.parse(["article", pattern] + colors).get()
    }
}

extension ReaderConfig {
    /// `search-highlight-colors`: checks the colours and keeps their rule's place.
    mutating func applySearchHighlight(_ arguments: [String], fail: (String) -> ReaderConfigError) throws {
        guard arguments.count >= 2 else { throw fail("search-highlight-colors needs a foreground and a background colour") }
        switch HighlightRule.parse(["article", SearchHighlight.nothing] + arguments) {
        case .failure(let problem): throw fail("search-highlight-colors: \(problem.message)")
        case .success(let rule):
            if let search = searchHighlight {
                highlightRules[search.ruleIndex] = rule
            } else {
                highlightRules.append(rule)
            }
            searchHighlight = SearchHighlight(
                colors: arguments, ruleIndex: searchHighlight?.ruleIndex ?? highlightRules.count - 1)
        }
    }
}
