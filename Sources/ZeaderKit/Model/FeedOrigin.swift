import Foundation
import ObjectGraph

// v7 (trust): where each subscription came from. Additive (one optional attribute), so the
// step from version 6 is inferred; a store made before it has no origins (nil: unknown).

/// Where a subscription came from: what decides whether a refresh may run its command
/// (`exec:`, `filter:`) or read its file (`file:`). Only the user's own typing and urls file,
/// or an import the user allowed with `--allow-commands`, vouch for one.
///
/// ```swift
/// server.origin = .typed
/// FeedOrigin.typed.vouchesForCommands   // true
/// ```
public enum FeedOrigin: String, Sendable, CaseIterable {
    /// Typed by the user: `zeader add`, the reader's add dialog, its edit-urls, `zeader trust`.
    case typed
    /// A line of the user's newsboat `urls` file.
    case urlsFile = "urls"
    /// An OPML file, JSON backup or newsboat cache imported with `--allow-commands`.
    case allowedImport = "import-allowed"
    /// An OPML file, JSON backup or newsboat cache imported without it.
    case imported = "import"
    /// Listed by a sync server.
    case syncServer = "sync"

    /// Whether a feed of this origin may run a command or read a file.
    ///
    /// ```swift
    /// FeedOrigin.syncServer.vouchesForCommands   // false
    /// ```
    public var vouchesForCommands: Bool {
        switch self {
        case .typed, .urlsFile, .allowedImport: return true
        case .imported, .syncServer: return false
        }
    }
}

extension Server {
    /// Where the feed came from (model version 7); nil in a store made before origins were
    /// recorded. Set when the Server is inserted, changed only by ``FeedTrust/vouch(for:in:)``.
    ///
    /// ```swift
    /// if server.origin == .syncServer { … }
    /// ```
    public var origin: FeedOrigin? {
        get { if case .string(let raw) = self["origin"] { FeedOrigin(rawValue: raw) } else { nil } }
        set { self["origin"] = newValue.map { .string($0.rawValue) } ?? .null }
    }
}

extension ZeaderModel {
    /// Version 7's addition for trust: Server.origin (``FeedOrigin``'s raw value, optional).
    static func trustVersion7Additions(to entities: inout [EntityDescription]) {
        guard let server = entities.firstIndex(where: { $0.name == "Server" }) else { return }
        entities[server].attributes.append(.string("origin"))
    }
}
