import Foundation
import ObjectGraph

// v12 (several accounts): every subscription belongs to one source, local or a named sync
// account. Additive (optional attributes), so the step from version 11 is inferred; a store
// that had its one account unnamed is given the name when it is opened (``SyncAccounts``).

extension SyncAccount {
    /// The account's name, unique in the store (`rss.example.org`, `work`): what
    /// `zeader sync --account NAME` and the reader's `[NAME]` tag show (model version 12).
    /// Nil only in a store written before version 12, until it is opened.
    ///
    /// ```swift
    /// let account = try SyncAccount.findFirst(byAttribute: "name", value: .string("work"), in: context)
    /// ```
    public var name: String? {
        get { String(fromValue: self["name"]) }
        set { self["name"] = newValue.valueRepresentation }
    }

    /// The protocol the account speaks (``SyncServiceKind``'s raw value; model version 12).
    ///
    /// ```swift
    /// let kind = account.service.flatMap(SyncServiceKind.init(rawValue:))
    /// ```
    public var service: String? {
        get { String(fromValue: self["service"]) }
        set { self["service"] = newValue.valueRepresentation }
    }
}

extension Server {
    /// The name of the sync account the feed belongs to, nil for a local feed, refreshed
    /// here (model version 12).
    ///
    /// ```swift
    /// print(server.account ?? "local")
    /// ```
    public var account: String? {
        get { String(fromValue: self["account"]) }
        set { self["account"] = newValue.valueRepresentation }
    }
}

extension SyncChange {
    /// The name of the account the change goes to (model version 12).
    ///
    /// ```swift
    /// let mine = try SyncChange.findAll(byAttribute: "account", value: .string("work"), in: context)
    /// ```
    public var account: String? {
        get { String(fromValue: self["account"]) }
        set { self["account"] = newValue.valueRepresentation }
    }
}

extension ZeaderModel {
    /// Version 12's additions for several accounts: SyncAccount's `name` and `service`,
    /// Server's `account` (indexed: each account's feeds are fetched by it) and SyncChange's
    /// `account`. Each account's newest item and last sync stay on its SyncAccount row; the
    /// id lists and labels a sync keeps are store metadata under keys ending in the name.
    static func accountsVersion12Additions(to entities: inout [EntityDescription]) {
        for index in entities.indices {
            switch entities[index].name {
            case "SyncAccount": entities[index].attributes += [.string("name", indexed: true), .string("service")]
            case "Server": entities[index].attributes.append(.string("account", indexed: true))
            case "SyncChange": entities[index].attributes.append(.string("account"))
            default: break
            }
        }
    }

    /// Version 12's entities: version 11's and ``accountsVersion12Additions(to:)``.
    static func version12Entities() -> [EntityDescription] {
        var entities = version11Entities()
        accountsVersion12Additions(to: &entities)
        return entities
    }
}
