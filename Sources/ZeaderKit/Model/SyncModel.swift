import Foundation
import ObjectGraph

// v3 (sync): what two-way sync through a Google Reader API server stores. Additive only
// (new entities, optional or defaulted attributes), so the step from version 2 is inferred.

/// The sync account of a store (at most one row): the server, the user, and how far the
/// last sync got. The login token is not here but in a file readable by the user alone
/// (``SyncAccountFile``). A store with no row pays nothing for sync.
///
/// ```swift
/// let account = try SyncAccount.findFirst(where: .true, in: context)
/// print(account?.apiURL ?? "no account")
/// ```
public final class SyncAccount: ManagedObject {
    /// The Google Reader API's base URL (`https://example.org/api/greader.php`).
    @Managed("apiURL") public var apiURL: String
    @Managed("user") public var user: String
    /// When the last sync that went through ended.
    @Managed("lastSync") public var lastSync: Date?
    /// The newest server item id pulled (a decimal number), where the next pull starts.
    @Managed("newestItemID") public var newestItemID: String?
}

/// A local change to the subscriptions not yet accepted by the server: queued in the same
/// save as the change itself, deleted once the server has it.
///
/// ```swift
/// let pending = try SyncChange.count(where: .true, in: context)
/// ```
public final class SyncChange: ManagedObject {
    /// ``Kind`` as its raw value.
    @Managed("kind") public var kind: String
    /// The feed's URL.
    @Managed("feedURL") public var feedURL: String
    /// The server's id of the feed (`feed/12`), when it had one.
    @Managed("feedSyncID") public var feedSyncID: String?
    /// When the change was made (the queue is pushed oldest first).
    @Managed("created") public var created: Date?

    /// What changed: `title` is a rename, pushed as the feed's title at the time of the push
    /// (an empty one is the title the account gives it).
    public enum Kind: String, Sendable {
        case subscribe, unsubscribe, tags, title
    }
}

extension Server {
    /// The sync server's id of the feed (`feed/12`), nil when not synced (model version 3).
    public var syncID: String? {
        get { if case .string(let id) = self["syncID"] { id } else { nil } }
        set { self["syncID"] = newValue.map(Value.string) ?? .null }
    }
}

extension FeedItem {
    /// The sync server's id of the item (a decimal number), nil when not synced (model
    /// version 3). The feed's own guid stays in ``guid``.
    public var syncID: String? {
        get { if case .string(let id) = self["syncID"] { id } else { nil } }
        set { self["syncID"] = newValue.map(Value.string) ?? .null }
    }

    /// The item's read state changed here and the server does not have it yet.
    public var syncReadPending: Bool {
        get { self["syncReadPending"] == .bool(true) }
        set { self["syncReadPending"] = .bool(newValue) }
    }

    /// The item's flag changed here and the server does not have it yet.
    public var syncFlagPending: Bool {
        get { self["syncFlagPending"] == .bool(true) }
        set { self["syncFlagPending"] = .bool(newValue) }
    }
}

extension ZeaderModel {
    /// Version 3's additions for sync: Server.syncID, FeedItem.syncID
    /// (indexed), FeedItem.syncReadPending and syncFlagPending, and the entities
    /// SyncAccount and SyncChange.
    static func syncAdditions(to entities: inout [EntityDescription]) {
        for index in entities.indices {
            switch entities[index].name {
            case "Server":
                entities[index].attributes.append(.string("syncID"))
            case "FeedItem":
                entities[index].attributes += [
                    .string("syncID", indexed: true), .bool("syncReadPending", defaultValue: false),
                    .bool("syncFlagPending", defaultValue: false),
                ]
            default: break
            }
        }
        entities += [
            EntityDescription(
                "SyncAccount", managedClass: SyncAccount.self,
                attributes: [
                    .string("apiURL", optional: false), .string("user", optional: false), .date("lastSync"),
                    .string("newestItemID"),
                ]),
            EntityDescription(
                "SyncChange", managedClass: SyncChange.self,
                attributes: [
                    .string("kind", optional: false), .string("feedURL", optional: false), .string("feedSyncID"),
                    .date("created"),
                ]),
        ]
    }
}
