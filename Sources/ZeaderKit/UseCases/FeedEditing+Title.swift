import Foundation
import ObjectGraph

extension FeedEditing {
    /// Gives a feed the title `title` (on one line), as one undo step ("Rename Feed"), and
    /// queues it for the feed's account (a local feed's stays here). A refresh keeps it
    /// (``ItemImport/updateDetails(of:from:)`` fills only an empty title). An empty `title`
    /// gives the feed back the title it had before its first rename here; when that is not
    /// known, none until the next refresh (a local feed) or sync (an account's) gives it one.
    /// Returns the title afterwards, nil when it has none yet.
    ///
    /// ```swift
    /// try FeedEditing.retitle(serverID, to: "LWN", in: context)   // "Rename Feed"
    /// try FeedEditing.retitle(serverID, to: "", in: context)      // its own title again
    /// ```
    @discardableResult
    public static func retitle(_ id: ObjectID, to title: String, in context: ManagedObjectContext) throws -> String? {
        guard let server = try context.existingObject(with: id) as? Server else {
            throw ObjectGraphError.objectInaccessible("\(id) is not a Server")
        }
        let store = context.container.store
        var own = (try? store.metadata(forKey: ownTitlesKey)).flatMap(decodeTitles) ?? [:]
        let wanted = oneLine(title)
        let renamed: String?
        if wanted.isEmpty {
            renamed = own.removeValue(forKey: server.url)
        } else {
            renamed = wanted
            if own[server.url] == nil, let current = server.title, !current.isEmpty, current != wanted {
                own[server.url] = current
            }
        }
        if renamed != server.title {
            try ItemMarking.undoable("Rename Feed", in: context) {
                server.title = renamed
                if renamed == nil {
                    // The next refresh reads the feed again rather than hearing "not modified".
                    server.etag = nil
                    server.lastModified = nil
                }
                SyncQueue.queue(.title, for: server, in: context)
            }
        }
        try store.setMetadata(own.isEmpty ? nil : encodeTitles(own), forKey: ownTitlesKey)
        return server.title
    }

    /// Store metadata: each renamed feed's title before its first rename here, by URL, so
    /// that an empty title gives it back (a synced feed is no longer refreshed, so its own
    /// title would not come back by itself).
    static let ownTitlesKey = "zeader.feeds.ownTitles"

    /// `text` on one line: line breaks, tabs and other control characters become one space.
    static func oneLine(_ text: String) -> String {
        let scalars = text.unicodeScalars.map { CharacterSet.controlCharacters.contains($0) ? " " : Character($0) }
        return String(scalars).split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    static func encodeTitles(_ titles: [String: String]) -> String? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(titles)).map { String(decoding: $0, as: UTF8.self) }
    }

    static func decodeTitles(_ text: String) -> [String: String]? {
        try? JSONDecoder().decode([String: String].self, from: Data(text.utf8))
    }
}
