import Foundation
import ObjectGraph
import ZeaderConfig
import ZeaderKit

extension FeedSortOrder {
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

extension ViewOptions {
    /// The feed list as shown: `rows` (the model's, in user order) narrowed and sorted.
    /// `keeping` stays listed even when read (the feed whose items are open).
    ///
    /// ```swift
    /// state.feeds = state.views.arranged(rows, keeping: nil)
    /// ```
    public func arranged(_ rows: [FeedRow], keeping kept: FeedRow.Kind? = nil) -> [FeedRow] {
        let shown = rows.filter { row in
            if row.kind == kept { return true }
            if row.tags.contains(where: { $0.hasPrefix("!") }) { return false }  // newsboat's hidden feed
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
    public enum Kind: Equatable, Sendable { case tags, links, discoveredFeeds, dialogs, filters, podcasts }
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
