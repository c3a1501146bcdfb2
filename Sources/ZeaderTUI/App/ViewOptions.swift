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

    /// Parses newsboat's `<field>[-asc|-desc]`.
    public init(newsboat text: String) throws(ReaderConfigError.Message) {
        let parts = text.split(separator: "-", maxSplits: 1).map(String.init)
        guard let first = parts.first, let field = Field(rawValue: first.lowercased()) else {
            throw ReaderConfigError.Message(
                "unknown feed sort order '\(text)' (one of: \(Field.allCases.map(\.rawValue).joined(separator: ", ")), optionally -asc or -desc)"
            )
        }
        self.init(field: field)
        if parts.count == 2 {
            switch parts[1].lowercased() {
            case "asc": ascending = true
            case "desc": ascending = false
            default: throw ReaderConfigError.Message("unknown sort direction '\(parts[1])' in '\(text)' (asc or desc)")
            }
        }
    }

    public var name: String {
        ascending == Self(field: field).ascending ? field.rawValue : field.rawValue + (ascending ? "-asc" : "-desc")
    }

    /// Sorts subscriptions (smart feeds stay after them, in their order); ties keep the user's order.
    func sorted(_ rows: [FeedRow]) -> [FeedRow] {
        guard field != .none || !ascending else { return rows }
        let servers = rows.enumerated().filter { $0.element.serverID != nil }
        let smart = rows.filter { $0.serverID == nil }
        let sorted = servers.sorted { a, b in
            let order = compare(a.element, b.element)
            if order == .orderedSame { return a.offset < b.offset }
            return ascending ? order == .orderedAscending : order == .orderedDescending
        }
        return sorted.map(\.element) + smart
    }

    private func compare(_ a: FeedRow, _ b: FeedRow) -> ComparisonResult {
        func by<T: Comparable>(_ x: T, _ y: T) -> ComparisonResult {
            x < y ? .orderedAscending : x > y ? .orderedDescending : .orderedSame
        }
        switch field {
        case .none: return .orderedSame
        case .title: return a.title.localizedCaseInsensitiveCompare(b.title)
        case .firsttag:
            // Untagged feeds last, as newsboat does.
            switch (a.tags.first, b.tags.first) {
            case (let x?, let y?): return x.localizedCaseInsensitiveCompare(y)
            case (nil, _?): return .orderedDescending
            case (_?, nil): return .orderedAscending
            default: return .orderedSame
            }
        case .articlecount: return by(a.total, b.total)
        case .unreadarticlecount: return by(a.unread, b.unread)
        case .lastupdated: return by(a.lastRefresh ?? .distantPast, b.lastRefresh ?? .distantPast)
        }
    }
}

/// What the lists show: read feeds and items hidden or not, the sort orders, the tag whose
/// feeds the feed list shows, and the feed list's filter. Starts from the config file
/// (`show-read-feeds`, `show-read-articles`, `feed-sort-order`, `article-sort-order`).
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

    /// The feed list as shown: `rows` (the model's, in user order) narrowed and sorted.
    /// `keeping` stays listed even when read (the feed whose items are open).
    ///
    /// ```swift
    /// state.feeds = state.views.arranged(rows, keeping: nil)
    /// ```
    public func arranged(_ rows: [FeedRow], keeping kept: FeedRow.Kind? = nil) -> [FeedRow] {
        let shown = rows.filter { row in
            if row.kind == kept { return true }
            if !showReadFeeds && row.unread == 0 { return false }
            if let tag, row.serverID == nil || !row.tags.contains(where: { $0.caseInsensitiveCompare(tag) == .orderedSame }) {
                return false
            }
            if feedFilter != nil, !(row.serverID.map(feedFilterMatches.contains) ?? false) { return false }
            return true
        }
        return feedOrder.sorted(shown)
    }
}

/// A list to pick from: the tags (`t`) or the article's links (`U`).
public struct PickerState: Equatable, Sendable {
    public enum Kind: Equatable, Sendable { case tags, links, discoveredFeeds, dialogs, filters }
    public var kind: Kind
    public var title: String
    /// The lines shown; `values` holds what each one stands for (a tag, a URL).
    public var entries: [String]
    public var values: [String]
    public var position = ListPosition()

    public init(kind: Kind, title: String, entries: [String], values: [String]) {
        self.kind = kind
        self.title = title
        self.entries = entries
        self.values = values
    }

    public var selectedValue: String? { values.indices.contains(position.cursor) ? values[position.cursor] : nil }
}

extension Prompt {
    /// The field a key picks in a sort prompt, as a newsboat field name.
    static func sortField(for key: Character, feeds: Bool) -> String? {
        let map: [Character: String] =
            feeds
            ? ["n": "none", "t": "title", "f": "firsttag", "a": "articlecount", "u": "unreadarticlecount", "l": "lastupdated"]
            : ["d": "date", "t": "title", "a": "author", "e": "feed", "f": "flags", "l": "link", "g": "guid"]
        return map[key]
    }
}
