import Foundation

// PLACEHOLDER (branch feeds-xml): the real JSON Feed parser is written on branch
// feeds-text and replaces this file when that branch is merged. Until then FeedParser
// dispatches JSON documents here and reports that they are not supported yet.

/// JSON Feed 1.x parser (placeholder until the feeds-text branch lands).
///
/// ```swift
/// let feed = try JSONFeedParser.parse(data: bytes, baseURL: nil)
/// ```
enum JSONFeedParser {
    struct NotSupported: Error, CustomStringConvertible {
        var description: String { "JSON Feed not supported yet" }
    }

    static func parse(data: Data, baseURL: URL?) throws -> ParsedFeed {
        throw NotSupported()
    }
}
