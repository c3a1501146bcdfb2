import Foundation
import ObjectGraph

/// The tags of a feed, as ``Server/tags`` stores them: one string, the tags sorted
/// (ignoring case) and joined by commas, each trimmed, inner white space collapsed to one
/// space, commas and control characters removed, duplicates (ignoring case) dropped. No
/// tags is nil. Tags compare ignoring case: `Linux` and `linux` are one tag.
///
/// ```swift
/// FeedTags.normalized(["news", " Linux ", "NEWS"])   // "Linux,news"
/// FeedTags.list("Linux,news")                          // ["Linux", "news"]
/// ```
public enum FeedTags {
    /// One tag cleaned up, or nil when nothing is left of it.
    ///
    /// ```swift
    /// FeedTags.clean("  tech,\tnews ")   // "tech news"
    /// ```
    public static func clean(_ tag: String) -> String? {
        // Most tags are printable ASCII with single inner spaces: already clean, kept as they
        // are (a sync cleans the labels of every item it pulls).
        if isClean(tag.utf8) { return tag }
        let words = tag.unicodeScalars.map { scalar -> Character in
            scalar == "," || CharacterSet.controlCharacters.contains(scalar)
                || CharacterSet.whitespacesAndNewlines.contains(scalar)
                ? " " : Character(scalar)
        }
        let cleaned = String(words).split(separator: " ").joined(separator: " ")
        return cleaned.isEmpty ? nil : cleaned
    }

    /// Whether `bytes` are a non-empty tag `clean(_:)` keeps as it is: printable ASCII other
    /// than a comma, no space at either end nor two in a row.
    private static func isClean(_ bytes: String.UTF8View) -> Bool {
        var previous = UInt8(ascii: " ")
        for byte in bytes {
            guard byte > 0x20 && byte < 0x7F && byte != UInt8(ascii: ",") || byte == 0x20 && previous != 0x20 else {
                return false
            }
            previous = byte
        }
        return previous != 0x20
    }

    /// The stored form of `tags`: cleaned, without duplicates, sorted; nil for none.
    ///
    /// ```swift
    /// server.tags = FeedTags.normalized(["b", "a"])   // "a,b"
    /// ```
    public static func normalized<Tags: Sequence<String>>(_ tags: Tags) -> String? {
        var seen = Set<String>()
        var kept: [String] = []
        for tag in tags {
            guard let tag = clean(tag), seen.insert(tag.lowercased()).inserted else { continue }
            kept.append(tag)
        }
        kept.sort { ($0.lowercased(), $0) < ($1.lowercased(), $1) }
        return kept.isEmpty ? nil : kept.joined(separator: ",")
    }

    /// The tags of a stored string, in order (empty for nil).
    ///
    /// ```swift
    /// for tag in FeedTags.list(server.tags) { print(tag) }
    /// ```
    public static func list(_ stored: String?) -> [String] {
        guard let stored, !stored.isEmpty else { return [] }
        return stored.split(separator: ",").map(String.init)
    }

    /// Whether the stored tags include `tag` (ignoring case).
    ///
    /// ```swift
    /// FeedTags.contains("Linux,news", "linux")   // true
    /// ```
    public static func contains(_ stored: String?, _ tag: String) -> Bool {
        guard let wanted = clean(tag)?.lowercased() else { return false }
        return list(stored).contains { $0.lowercased() == wanted }
    }

    /// Whether the stored tags hide the feed: newsboat hides a feed from the feed list when
    /// one of its tags starts with `!`; its items still reach tags and smart feeds.
    ///
    /// ```swift
    /// FeedTags.isHidden("!,news")   // true
    /// FeedTags.isHidden("news")     // false
    /// ```
    public static func isHidden(_ stored: String?) -> Bool {
        list(stored).contains { $0.hasPrefix("!") }
    }

    /// The feeds the feed list shows, as a predicate on Server: those without a tag starting
    /// with `!` (``isHidden(_:)``).
    ///
    /// ```swift
    /// let visible = try context.count(for: FetchRequest<Server>(predicate: FeedTags.visiblePredicate))
    /// ```
    public static var visiblePredicate: ObjectPredicate {
        // Tags are stored joined by commas, so a hidden tag starts the string or follows a comma.
        .comparison(.keyPath("tags"), .equalTo, .constant(.null))
            || !(.comparison(.keyPath("tags"), .beginsWith, .constant(.string("!")))
                || .comparison(.keyPath("tags"), .contains, .constant(.string(",!"))))
    }
}
