import Foundation

/// How search text becomes a full-text query, in SQL (FTS5) and in memory (for objects
/// with unsaved changes), with the same rules: the text's words (runs of letters and
/// digits), case and diacritics folded, each a prefix of some word of an indexed attribute.
///
/// ```swift
/// FullTextSearch.matchExpression(for: "Café  swift")   // "\"Café\"* AND \"swift\"*"
/// FullTextSearch.matches("caf swi", in: ["Swift at the Café"])   // true
/// ```
public enum FullTextSearch {
    /// The words of `text`, as a search sees them.
    static func words(_ text: String) -> [Substring] {
        text.split { !($0.isLetter || $0.isNumber) }
    }

    /// The FTS5 query for `text`: each word a prefix term, all required; nil when the text
    /// has no words.
    ///
    /// ```swift
    /// FullTextSearch.matchExpression(for: "linux, swift")   // "\"linux\"* AND \"swift\"*"
    /// ```
    public static func matchExpression(for text: String) -> String? {
        let words = words(text)
        guard !words.isEmpty else { return nil }
        return words.map { "\"\($0.replacingOccurrences(of: "\"", with: "\"\""))\"*" }.joined(separator: " AND ")
    }

    /// Whether every word of `text` starts a word of one of `fields`, ignoring case and
    /// diacritics (what the FTS5 query of ``matchExpression(for:)`` finds in the index).
    ///
    /// ```swift
    /// FullTextSearch.matches("ÉTÉ", in: ["un été chaud", nil])   // true
    /// ```
    public static func matches(_ text: String, in fields: [String?]) -> Bool {
        let wanted = words(fold(text)).map(String.init)
        guard !wanted.isEmpty else { return false }
        var tokens: [Substring] = []
        var folded: [String] = []
        for field in fields {
            guard let field else { continue }
            folded.append(fold(field))
        }
        for field in folded { tokens += words(field) }
        return wanted.allSatisfy { word in tokens.contains { $0.hasPrefix(word) } }
    }

    private static func fold(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
    }
}
