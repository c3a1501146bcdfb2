import Foundation

/// Why a feed could not be read, and which feed.
///
/// ```swift
/// do { _ = try FeedParser.parse(data: bytes, url: url) }
/// catch { print(error) }   // "https://example.org/feed: not a feed: the root element is <html>"
/// ```
public struct FeedParseError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Reason: Equatable, Sendable {
        /// No bytes at all, or only white space.
        case empty
        /// The input is larger than ``FeedParser/Limits/maxInputBytes``.
        case inputTooLarge(size: Int, limit: Int)
        /// Well-formed enough, but the root element is not `rss`, `rdf:RDF` or `feed`.
        case notAFeed(rootElement: String)
        /// So broken that no feed element could be read; the first error libxml2 gave.
        case malformedXML(String)
        /// Entities declared in the DOCTYPE would expand past
        /// ``FeedParser/Limits/maxEntityExpansionBytes`` ("billion laughs", quadratic blowup).
        case entityExpansionLimit(entity: String, limit: Int)
        /// An entity that refers to itself.
        case entityLoop(entity: String)
        /// Entities that refer to entities more than `limit` levels deep.
        case entityDepthLimit(entity: String, limit: Int)
        /// A JSON document that is not a usable JSON Feed.
        case invalidJSON(String)
    }

    /// What went wrong.
    public var reason: Reason
    /// The feed's URL, when the caller gave one.
    public var url: URL?

    /// An error about the feed at `url`: `FeedParseError(.empty, url: feedURL)`.
    public init(_ reason: Reason, url: URL? = nil) {
        self.reason = reason
        self.url = url
    }

    /// One line naming the feed and the problem, e.g. `https://x.example/feed: empty document`.
    public var description: String {
        let subject = url.map { $0.isFileURL ? $0.path : $0.absoluteString } ?? "feed"
        switch reason {
        case .empty: return "\(subject): empty document"
        case .inputTooLarge(let size, let limit): return "\(subject): \(size) bytes is over the \(limit)-byte limit"
        case .notAFeed(let root):
            return root.isEmpty
                ? "\(subject): not a feed: no root element" : "\(subject): not a feed: the root element is <\(root)>"
        case .malformedXML(let message): return "\(subject): malformed XML: \(message)"
        case .entityExpansionLimit(let entity, let limit):
            return "\(subject): entity '\(entity)' expands past the \(limit)-byte limit (refused)"
        case .entityLoop(let entity): return "\(subject): entity '\(entity)' refers to itself (refused)"
        case .entityDepthLimit(let entity, let limit):
            return "\(subject): entity '\(entity)' nests entities more than \(limit) levels deep (refused)"
        case .invalidJSON(let message): return "\(subject): \(message)"
        }
    }
}
