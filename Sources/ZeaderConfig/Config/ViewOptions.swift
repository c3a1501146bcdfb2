import Foundation
import ObjectGraph
import ZeaderKit

/// How the feed list is sorted: newsboat's `feed-sort-order` fields (`none` is the user's
/// order, `displayOrder`).
///
/// ```swift
/// let order = try FeedSortOrder(newsboat: "unreadarticlecount-desc")
/// ```
public struct FeedSortOrder: Equatable, Sendable {
    public enum Field: String, CaseIterable, Sendable {
        case none, title, firsttag, articlecount, unreadarticlecount, lastupdated
    }

    public var field: Field
    public var ascending: Bool

    public static let userOrder = FeedSortOrder(field: .none, ascending: true)

    public init(field: Field, ascending: Bool) {
        self.field = field
        self.ascending = ascending
    }

    /// The field's usual direction: titles and tags A to Z, counts and dates highest first.
    public init(field: Field) { self.init(field: field, ascending: [.none, .title, .firsttag].contains(field)) }

    /// Parses newsboat's `<field>[-asc|-desc]`; `date` is `lastupdated`, and a direction other
    /// than `asc` is descending, as newsboat reads them (`date-desc`, `title-dec`).
    public init(newsboat text: String) throws(ReaderConfigError.Message) {
        let parts = text.split(separator: "-", maxSplits: 1).map(String.init)
        guard let first = parts.first,
            let field = first.lowercased() == "date" ? .lastupdated : Field(rawValue: first.lowercased())
        else {
            throw ReaderConfigError.Message(
                "unknown feed sort order '\(text)' (one of: \(Field.allCases.map(\.rawValue).joined(separator: ", ")), optionally -asc or -desc)"
            )
        }
        self.init(field: field)
        if parts.count == 2 {
            ascending = parts[1].lowercased() == "asc"
        }
    }

    public var name: String {
        ascending == Self(field: field).ascending ? field.rawValue : field.rawValue + (ascending ? "-asc" : "-desc")
    }
}

/// What the lists show: read feeds and items hidden or not, the sort orders, the tag whose
/// feeds the feed list shows, and the feed list's filter. Starts from the config file
/// (`show-read-feeds`, `show-read-articles`, `feed-sort-order`, `article-sort-order`).
///
/// ```swift
/// let views = try ReaderConfig.parse("show-read-feeds no", file: "test").views   // views.showReadFeeds == false
/// ```
public struct ViewOptions: Equatable, Sendable {
    public var showReadFeeds = true
    public var showReadArticles = true
    public var feedOrder = FeedSortOrder.userOrder
    public var itemOrder = ItemSortOrder.newestFirst
    /// Only the feeds with this tag (`t`), or all.
    public var tag: String?
    /// The feed list's filter (a Server predicate) and the feeds it matched.
    public var feedFilter: String?
    public var feedFilterMatches: Set<ObjectID> = []

    public init() {}
}
