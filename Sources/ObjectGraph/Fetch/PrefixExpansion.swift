import Foundation
import GRDB

// A search word is a prefix: "linux" finds "linux" and "linuxes". FTS5 (SQLite 3.40) answers
// a prefix term by first merging the entries of every word that starts with it, over the
// whole index, into one list — however few matches a page needs: at a million items, the
// two words "linux release" read some 600,000 entries, four times a search (0.14 s). A word
// itself is read lazily, newest first, and stops at the page. So a word whose prefix starts
// few other words of the index is asked as those words, OR-ed: the same matches, read lazily.
// The words come from the index's vocabulary (an `fts5vocab` table), which reads only the
// entries of the longer words (it counts them), not those of the word itself.

extension FullTextSearch {
    /// At most this many longer words make a prefix a list of words; past it the prefix
    /// stays a prefix (reading the longer words' entries would cost what the prefix does).
    static let maximumPrefixExpansion = 16

    /// ``matchExpression(for:)`` with each word that is ASCII letters and digits (the words
    /// the index's tokenizer folds by lowercasing alone) and begins at most
    /// ``maximumPrefixExpansion`` longer words of the index written as the word OR those
    /// words, read from `vocabulary` (an `fts5vocab` table of type `row` over the index).
    /// The same rows match; nil when the text has no words.
    static func expandedMatchExpression(for text: String, vocabulary: String, in db: Database) throws -> String? {
        let terms = terms(text)
        guard !terms.isEmpty else { return nil }
        let statement = try db.cachedStatement(
            sql: "SELECT term FROM \(SchemaGenerator.quote(vocabulary)) WHERE term >= ?")
        return try terms.map { term throws -> String in
            switch term {
            case .phrase(let words):
                return "\"" + words.joined(separator: " ") + "\""
            case .word(let word):
                guard word.utf8.allSatisfy({ $0 < 0x80 }) else { return "\"\(word)\"*" }
                let folded = word.lowercased()
                // The smallest word longer than `folded` that starts with it (no word holds U+0001).
                let cursor = try String.fetchCursor(statement, arguments: [folded + "\u{1}"])
                var words = [folded]
                while let longer = try cursor.next(), longer.utf8.starts(with: folded.utf8) {
                    guard words.count <= maximumPrefixExpansion else { return "\"\(word)\"*" }
                    words.append(longer)
                }
                guard words.count > 1 else { return "\"\(folded)\"" }
                return "(" + words.map { "\"\($0.replacingOccurrences(of: "\"", with: "\"\""))\"" }.joined(separator: " OR ")
                    + ")"
            }
        }.joined(separator: " AND ")
    }
}
