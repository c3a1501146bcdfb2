import Foundation
import Testing

@testable import Feeds

/// Loads a file from `Tests/FeedsTests/Fixtures`.
func fixture(_ name: String) throws -> Data {
    let url = try #require(Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Fixtures"))
    return try Data(contentsOf: url)
}

/// Parses a fixture, with an optional base URL.
func parseFixture(_ name: String, base: String? = nil) throws -> ParsedFeed {
    try FeedParser.parse(data: fixture(name), url: base.flatMap { URL(string: $0) })
}

/// Parses an in-memory document.
func parse(_ xml: String, base: String? = nil) throws -> ParsedFeed {
    try FeedParser.parse(data: Data(xml.utf8), url: base.flatMap { URL(string: $0) })
}

/// A UTC date from its ISO 8601 text, for expectations.
func utc(_ text: String) -> Date? { FeedDateParser.date(from: text) }
