import Foundation

/// How search text becomes a full-text query, in SQL (FTS5) and in memory (for objects
/// with unsaved changes), with the same rules: the text's words (runs of letters and
/// digits), case and diacritics folded, each a prefix of some word of an indexed attribute;
/// words between double quotes form a phrase, whose words must follow one another, whole,
/// in one attribute. All terms are required; nothing else in the text is FTS5 syntax.
///
/// ```swift
/// let words = FullTextSearch.matchExpression(for: "Café  swift")   // "\"Café\"* AND \"swift\"*"
/// let phrase = FullTextSearch.matchExpression(for: "\"new release\" swift")   // "\"new release\" AND \"swift\"*"
/// let found = FullTextSearch.matches("caf swi", in: ["Swift at the Café"])   // true
/// ```
public enum FullTextSearch {
    /// A term of a search: one word (a prefix) or a quoted phrase (whole words in a row).
    enum Term: Equatable {
        case word(Substring)
        case phrase([Substring])
    }

    /// The words of `text`, as a search sees them.
    static func words(_ text: String) -> [Substring] {
        text.split { !($0.isLetter || $0.isNumber) }
    }

    /// The terms of `text`: quoted runs are phrases (an unclosed quote runs to the end), a
    /// phrase of one word is that word matched whole, an empty phrase is nothing.
    static func terms(_ text: String) -> [Term] {
        var terms: [Term] = []
        for (index, part) in text.split(separator: "\"", omittingEmptySubsequences: false).enumerated() {
            let partWords = part.split { !($0.isLetter || $0.isNumber) }
            if index % 2 == 0 {
                terms += partWords.map { .word($0) }
            } else if !partWords.isEmpty {
                terms.append(.phrase(partWords))
            }
        }
        return terms
    }

    /// The FTS5 query for `text`: each word a prefix term, each phrase a phrase, all
    /// required; nil when the text has no words.
    ///
    /// ```swift
    /// let expression = FullTextSearch.matchExpression(for: "linux, swift")   // "\"linux\"* AND \"swift\"*"
    /// ```
    public static func matchExpression(for text: String) -> String? {
        let terms = terms(text)
        guard !terms.isEmpty else { return nil }
        return terms.map { term in
            switch term {
            case .word(let word): return "\"\(word)\"*"
            case .phrase(let words): return "\"" + words.joined(separator: " ") + "\""
            }
        }.joined(separator: " AND ")
    }

    /// Whether every term of `text` matches one of `fields`, ignoring case and diacritics:
    /// a word starts a word of a field, a phrase's words follow one another in a field (what
    /// the FTS5 query of ``matchExpression(for:)`` finds in the index).
    ///
    /// ```swift
    /// let word = FullTextSearch.matches("ÉTÉ", in: ["un été chaud", nil])   // true
    /// let phrase = FullTextSearch.matches("\"ete chaud\"", in: ["un été chaud"])   // true
    /// ```
    public static func matches(_ text: String, in fields: [String?]) -> Bool {
        let wanted = terms(fold(text))
        guard !wanted.isEmpty else { return false }
        let fieldWords = fields.compactMap { $0 }.map { words(fold($0)) }
        return wanted.allSatisfy { term in
            switch term {
            case .word(let word):
                return fieldWords.contains { $0.contains { $0.hasPrefix(word) } }
            case .phrase(let phrase):
                return fieldWords.contains { tokens in
                    guard tokens.count >= phrase.count else { return false }
                    return (0...(tokens.count - phrase.count)).contains { start in
                        phrase.indices.allSatisfy { tokens[start + $0] == phrase[$0] }
                    }
                }
            }
        }
    }

    private static func fold(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
    }
}
