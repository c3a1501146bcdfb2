import Foundation
import ObjectGraph

/// The tombstone of an item that was removed on purpose — by `zeader cleanup` (retention),
/// by an `ignore` rule, or deleted in newsboat before `zeader import cache.db` — so that
/// the next refresh does not store it again while its feed still carries it (model
/// version 3). Only its guid is kept; ``ItemImport`` looks tombstones up by (server, guid),
/// which the uniqueness constraint indexes.
///
/// ```swift
/// let removed = context.insert(RemovedItem.self)
/// removed.guid = item.guid; removed.reason = RemovedItem.Reason.cleanup.rawValue; removed.server = item.server
/// ```
public final class RemovedItem: ManagedObject {
    /// The removed item's guid (unique within its server).
    @Managed("guid") public var guid: String
    /// Why it was removed: a ``Reason`` raw value.
    @Managed("reason") public var reason: String
    /// When it was removed.
    @Managed("removed") public var removed: Date?
    /// When a refresh last found the guid in the feed (set at most once a day): tombstones
    /// not seen for ``RetentionPolicy/tombstoneDays`` are dropped by `zeader cleanup`.
    @Managed("lastSeen") public var lastSeen: Date?
    @ToOne("server") public var server: Server?

    /// Why an item was removed.
    public enum Reason: String, Sendable, CaseIterable {
        /// Removed by `zeader cleanup` (max-items, keep-days).
        case cleanup
        /// Matched an `ignore` rule (dropped when the rules change, so a removed rule un-hides).
        case ignored
        /// Deleted in newsboat (`deleted = 1` in its cache), imported as such.
        case deleted
    }
}

extension ZeaderModel {
    // v3 (newsboat): tombstones of removed items, newsboat's flag letters on items, ignore rules.

    /// What version 3 adds for retention, killfiles and the newsboat import: the
    /// `RemovedItem` entity (tombstones; to-one `server`, whose inverse `removedItems`
    /// cascades), and `FeedItem.flagLetters` (newsboat's flag letters, A–Z and a–z, of an
    /// imported item; nil otherwise), and the `IgnoreRule` entity (stored killfile rules).
    /// All additive.
    static func newsboatVersion3Additions(to entities: inout [EntityDescription]) {
        if let server = entities.firstIndex(where: { $0.name == "Server" }) {
            entities[server].relationships.append(
                .toMany("removedItems", destination: "RemovedItem", inverse: "server", deleteRule: .cascade))
        }
        if let item = entities.firstIndex(where: { $0.name == "FeedItem" }) {
            entities[item].attributes.append(.string("flagLetters"))
        }
        entities.append(
            EntityDescription(
                "RemovedItem", managedClass: RemovedItem.self,
                attributes: [
                    .string("guid", optional: false), .string("reason", optional: false, defaultValue: "cleanup"),
                    .date("removed"), .date("lastSeen"),
                ],
                relationships: [.toOne("server", destination: "Server", inverse: "removedItems")],
                uniquenessConstraints: [["server", "guid"]]))
        entities.append(ignoreRuleEntity())
    }
}
