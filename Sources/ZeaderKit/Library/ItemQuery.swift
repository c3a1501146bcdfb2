import Foundation
import ObjectGraph

/// Which items `zeader items` lists: all filters combine with AND.
///
/// ```swift
/// let query = ItemQuery(feed: "https://example.org/feed", unreadOnly: true, search: "swift linux", limit: 10)
/// let items = try library.items(query)
/// ```
public struct ItemQuery: Sendable, Equatable {
    /// Only items of this feed (its URL).
    public var feed: String?
    public var unreadOnly: Bool
    /// Only flagged (starred) items.
    public var flaggedOnly: Bool
    /// Only items of feeds carrying at least one of these tags (ignoring case); empty: any feed.
    public var tags: [String]
    /// Words that must each appear (as word prefixes) in the title, author, summary or body text,
    /// ignoring case and diacritics: ``ItemSearch``, not part of ``predicate()``.
    public var search: String?
    /// A predicate over FeedItem in the ObjectGraph format language.
    public var wherePredicate: String?
    /// At most this many items (nil: all).
    public var limit: Int?
    /// How long the query may run when it has a ``wherePredicate`` (a query without one
    /// has no limit): past it, ``ZeaderError/predicateTimedOut(seconds:)``.
    public var whereTimeLimit: Duration = UserPredicate.timeLimit

    public init(
        feed: String? = nil, unreadOnly: Bool = false, flaggedOnly: Bool = false, tags: [String] = [],
        search: String? = nil, wherePredicate: String? = nil, limit: Int? = nil
    ) {
        self.feed = feed
        self.unreadOnly = unreadOnly
        self.flaggedOnly = flaggedOnly
        self.tags = tags
        self.search = search
        self.wherePredicate = wherePredicate
        self.limit = limit
    }

    /// The predicate for this query's filters other than ``search`` (`TRUEPREDICATE` when
    /// there is none).
    ///
    /// ```swift
    /// try ItemQuery(unreadOnly: true, wherePredicate: "author == \"Ann\"").predicate()
    /// // read == NO AND author == "Ann"
    /// ```
    public func predicate() throws(ZeaderError) -> ObjectPredicate {
        var parts: [ObjectPredicate] = []
        if let feed {
            parts.append(.comparison(.keyPath("server.url"), .equalTo, .constant(.string(feed))))
        }
        if unreadOnly {
            parts.append(.comparison(.keyPath("read"), .equalTo, .constant(.bool(false))))
        }
        if flaggedOnly {
            parts.append(.comparison(.keyPath("flagged"), .equalTo, .constant(.bool(true))))
        }
        if !tags.isEmpty {
            parts.append(.or(tags.map { Self.tagPredicate($0, keyPath: "server.tags") }))
        }
        if let wherePredicate {
            do {
                parts.append(try ZeaderModel.itemPredicate(format: wherePredicate))
            } catch {
                throw .invalidPredicate(String(describing: error))
            }
        }
        return parts.isEmpty ? .true : parts.count == 1 ? parts[0] : .and(parts)
    }

    /// Whether the tags stored at `keyPath` (``FeedTags``' comma-joined form) include `tag`,
    /// ignoring case: the whole string, or the first, last or an inner element.
    ///
    /// ```swift
    /// let p = ItemQuery.tagPredicate("linux", keyPath: "server.tags")
    /// ```
    public static func tagPredicate(_ tag: String, keyPath: String) -> ObjectPredicate {
        let tag = FeedTags.clean(tag) ?? tag
        let key = PredicateOperand.keyPath(keyPath)
        return .or([
            .comparison(key, .equalTo, .constant(.string(tag)), options: [.caseInsensitive]),
            .comparison(key, .beginsWith, .constant(.string(tag + ",")), options: [.caseInsensitive]),
            .comparison(key, .endsWith, .constant(.string("," + tag)), options: [.caseInsensitive]),
            .comparison(key, .contains, .constant(.string("," + tag + ",")), options: [.caseInsensitive]),
        ])
    }
}
