import Foundation

/// The labels a sync saw on the server for each feed (by URL), kept in store metadata as
/// JSON, and the rule that merges them into a feed's tags.
///
/// ```swift
/// let text = SyncLabels.encode(["https://a.example/feed": ["apple"]])
/// SyncLabels.merge(local: ["apple", "tech"], labels: [], kept: ["apple"])   // "tech"
/// ```
public enum SyncLabels {
    /// The labels as JSON text, keys sorted (the same labels give the same text).
    ///
    /// ```swift
    /// SyncLabels.encode(["u": ["a"]])   // {"u":["a"]}
    /// ```
    public static func encode(_ labels: [String: [String]]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(labels) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    /// The labels, or nil when `text` is not such a map.
    ///
    /// ```swift
    /// SyncLabels.decode(#"{"u":["a"]}"#)   // ["u": ["a"]]
    /// ```
    public static func decode(_ text: String) -> [String: [String]]? {
        try? JSONDecoder().decode([String: [String]].self, from: Data(text.utf8))
    }

    /// A feed's tags after a pull (``FeedTags/normalized(_:)``): the local ones and every
    /// label the server lists, less the tags the server held at the last sync (`kept`) and
    /// dropped since (removed on another device). A tag the server never held (one that
    /// keeps one folder per feed holds only one) is never removed by a pull.
    ///
    /// ```swift
    /// SyncLabels.merge(local: ["apple", "tech"], labels: ["apple"], kept: ["apple"])   // "apple,tech"
    /// ```
    public static func merge(local: [String], labels: [String], kept: [String]?) -> String? {
        let now = Set(labels.map { $0.lowercased() })
        let dropped = Set((kept ?? []).map { $0.lowercased() }).subtracting(now)
        return FeedTags.normalized(local.filter { !dropped.contains($0.lowercased()) } + labels)
    }

    /// `tags` in the order ``GReaderClient/editLabels(_:title:add:remove:)`` takes them, the
    /// one a server keeping one folder per feed should file the feed under first: a label
    /// the feed has there already (`held`) that is still a tag here, so that adding a tag
    /// does not move the feed out of its folder; else the first tag.
    ///
    /// ```swift
    /// SyncLabels.ordered(["aaa", "apple"], held: ["apple"])   // ["apple", "aaa"]
    /// ```
    public static func ordered(_ tags: [String], held: [String]) -> [String] {
        let heldLowercased = Set(held.map { $0.lowercased() })
        guard let index = tags.firstIndex(where: { heldLowercased.contains($0.lowercased()) }) else { return tags }
        var ordered = tags
        ordered.insert(ordered.remove(at: index), at: 0)
        return ordered
    }
}
