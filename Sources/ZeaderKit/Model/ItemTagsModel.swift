import Foundation
import ObjectGraph

// v11 (item tags): the tags of one item, set by rules (`tag`, `untag`), by hand in the reader
// and by `zeader tag`. Additive (an optional attribute), so the step from version 10 is inferred.

extension FeedItem {
    /// The item's own tags (model version 11), stored as ``FeedTags`` stores a feed's: sorted,
    /// joined by commas, nil for none. Predicates read them as `tags`.
    ///
    /// ```swift
    /// item.tags = FeedTags.normalized(FeedTags.list(item.tags) + ["later"])
    /// ```
    public var tags: String? {
        get { String(fromValue: self["tags"]) }
        set { self["tags"] = newValue.valueRepresentation }
    }

    /// Adds `tag` to (or, `on` false, takes it from) the item's tags; whether they changed.
    ///
    /// ```swift
    /// item.setTag("later", true)   // true the first time
    /// ```
    @discardableResult
    public func setTag(_ tag: String, _ on: Bool) -> Bool {
        guard let cleaned = FeedTags.clean(tag) else { return false }
        let current = FeedTags.list(tags)
        let kept = on ? current + [cleaned] : current.filter { $0.lowercased() != cleaned.lowercased() }
        let updated = FeedTags.normalized(kept)
        guard updated != tags else { return false }
        tags = updated
        return true
    }
}

extension ZeaderModel {
    /// Version 11's additions for item tags: FeedItem's `tags` (optional).
    static func itemTagsVersion11Additions(to entities: inout [EntityDescription]) {
        guard let item = entities.firstIndex(where: { $0.name == "FeedItem" }) else { return }
        entities[item].attributes.append(.string("tags"))
    }
}
