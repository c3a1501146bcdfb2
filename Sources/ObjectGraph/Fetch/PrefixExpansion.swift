import Foundation
import GRDB

// A search word is a prefix: "linux" finds "linux" and "linuxes". FTS5 (SQLite 3.40) answers
// a prefix term by first merging the entries of every word that starts with it, over the
// whole index, into one list — however few matches a page needs (docs/PERFORMANCE.md,
// "Tuning in the code"). A word
// itself is read lazily, newest first, and stops at the page. So a word whose prefix starts
// few other words of the index is asked as those words, OR-ed: the same matches, read lazily.
// The words come from the index's vocabulary, an `fts5vocab` table of type `instance`: one
// look-up per word, `term >= ? LIMIT 1`, is one seek into the index, whatever the store's
// size. (A vocabulary of type `row` or `col` counts every entry of each word it returns
// before returning it: listing the words after "kern" reads all of "kernel"'s entries, and
// those of the next word; type `instance` returns a word's first
// entry and goes no further when the statement stops.)

extension FullTextSearch {
    /// At most this many longer words make a prefix a list of words; past it the prefix
    /// stays a prefix (reading the longer words' entries would cost what the prefix does).
    static let maximumPrefixExpansion = 16

    /// ``matchExpression(for:)`` with each word that is ASCII letters and digits (the words
    /// the index's tokenizer folds by lowercasing alone) and begins at most
    /// ``maximumPrefixExpansion`` longer words of the index written as the word OR those
    /// words, read from `vocabulary` (an `fts5vocab` table over the index, best of type
    /// `instance`: see the notes above). The same rows match; nil when the text has no words.
    static func expandedMatchExpression(for text: String, vocabulary: String, in db: Database) throws -> String? {
        let terms = terms(text)
        guard !terms.isEmpty else { return nil }
        // The first word of the index at or after `?`: one seek (the LIMIT stops the scan).
        let statement = try db.cachedStatement(
            sql: "SELECT term FROM \(SchemaGenerator.quote(vocabulary)) WHERE term >= ? LIMIT 1")
        return try terms.map { term throws -> String in
            switch term {
            case .phrase(let words):
                return "\"" + words.joined(separator: " ") + "\""
            case .word(let word):
                guard word.utf8.allSatisfy({ $0 < 0x80 }) else { return "\"\(word)\"*" }
                let folded = word.lowercased()
                var words = [folded]
                // Each time the smallest word after the last one listed (no word holds U+0001),
                // while it starts with `folded`.
                while let longer = try String.fetchOne(statement, arguments: [words[words.count - 1] + "\u{1}"]),
                    longer.utf8.starts(with: folded.utf8)
                {
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
