import Foundation
import ObjectGraph

/// A stored killfile rule (`zeader ignore add`): items matching its predicate, in the feeds
/// of its scope, are never stored (model version 3). Rules of the config file (`ignore`)
/// are not stored; ``Killfile`` applies both.
///
/// ```swift
/// let rule = context.insert(IgnoreRule.self)
/// rule.predicateFormat = "title CONTAINS[cd] \"sponsored\""
/// ```
public final class IgnoreRule: ManagedObject {
    /// A predicate over FeedItem in the smart-feed language.
    @Managed("predicateFormat") public var predicateFormat: String
    /// The feeds it applies to: `*`, a feed URL, or `tag:NAME` (``FeedScope``).
    @Managed("scope") public var scope: String
    @Managed("created") public var created: Date?
    /// Its place in `zeader ignore list`.
    @Managed("displayOrder") public var displayOrder: Int64
}

extension ZeaderModel {
    /// v3 (newsboat): the IgnoreRule entity.
    static func ignoreRuleEntity() -> EntityDescription {
        EntityDescription(
            "IgnoreRule", managedClass: IgnoreRule.self,
            attributes: [
                .string("predicateFormat", optional: false), .string("scope", optional: false, defaultValue: "*"),
                .date("created"), .integer("displayOrder", defaultValue: 0),
            ])
    }
}
