import Foundation
import ObjectGraph

/// Changes to the feed list: the feeds in the user's order, delete, reorder and tag. One
/// implementation for the reader and the command line; each change is one save and, when
/// the context has an undo manager (the reader's), one named undo step. Call on
/// `context`'s queue.
///
/// ```swift
/// for server in try FeedEditing.servers(in: context) { print(server.displayTitle) }
/// try FeedEditing.move(serverID, by: -1, in: context)   // "Move Feed"
/// ```
public enum FeedEditing {
    /// The feed list's order: `displayOrder`, then title.
    public static let order = [ObjectSortDescriptor("displayOrder"), ObjectSortDescriptor("title")]

    /// Every feed in the user's order.
    ///
    /// ```swift
    /// let servers = try FeedEditing.servers(in: context)
    /// ```
    public static func servers(in context: ManagedObjectContext) throws -> [Server] {
        try context.fetch(FetchRequest<Server>(sortDescriptors: order))
    }

    /// The feed with this URL, or ``ZeaderError/notSubscribed(_:)`` (``ZeaderError/invalidURL(_:reason:)``
    /// for text that could not be a feed URL).
    ///
    /// ```swift
    /// let server = try FeedEditing.server(url: "https://example.org/feed", in: context)
    /// ```
    public static func server(url: String, in context: ManagedObjectContext) throws -> Server {
        guard let server = try Server.findFirst(byAttribute: "url", value: .string(url), in: context) else {
            throw ZeaderError.missingFeed(url)
        }
        return server
    }

    /// Deletes a feed and (cascade) its items, as one undo step ("Delete Feed"); returns
    /// how many items went with it.
    ///
    /// ```swift
    /// let items = try FeedEditing.delete(serverID, in: context)
    /// ```
    @discardableResult
    public static func delete(_ id: ObjectID, in context: ManagedObjectContext) throws -> Int {
        guard let server = try context.existingObject(with: id) as? Server else {
            throw ObjectGraphError.objectInaccessible("\(id) is not a Server")
        }
        let items = Int(server.totalCount)
        try ItemMarking.undoable("Delete Feed", in: context) {
            SyncQueue.queue(.unsubscribe, for: server, in: context)
            context.delete(server)
        }
        return items
    }

    /// Moves a feed one place up (`-1`) or down (`+1`) in the user's order, as one undo
    /// step ("Move Feed"); a feed already first (or last) stays. Returns whether it moved.
    ///
    /// ```swift
    /// try FeedEditing.move(serverID, by: 1, in: context)
    /// ```
    @discardableResult
    public static func move(_ id: ObjectID, by offset: Int, in context: ManagedObjectContext) throws -> Bool {
        let servers = try servers(in: context)
        guard let index = servers.firstIndex(where: { $0.objectID == id }) else { return false }
        let target = index + offset
        guard servers.indices.contains(target) else { return false }
        try ItemMarking.undoable("Move Feed", in: context) {
            var ordered = servers
            ordered.swapAt(index, target)
            for (position, server) in ordered.enumerated() where server.displayOrder != Int64(position) {
                server.displayOrder = Int64(position)
            }
        }
        return true
    }

    /// Adds `add` to a feed's tags and takes `remove` away (ignoring case), as one undo
    /// step ("Tag Feed"); returns the tags afterwards, sorted.
    ///
    /// ```swift
    /// try FeedEditing.tag(serverID, add: ["linux"], remove: ["news"], in: context)
    /// ```
    @discardableResult
    public static func tag(_ id: ObjectID, add: [String] = [], remove: [String] = [], in context: ManagedObjectContext)
        throws -> [String]
    {
        guard let server = try context.existingObject(with: id) as? Server else {
            throw ObjectGraphError.objectInaccessible("\(id) is not a Server")
        }
        let removed = Set(remove.compactMap { FeedTags.clean($0)?.lowercased() })
        let kept = FeedTags.list(server.tags).filter { !removed.contains($0.lowercased()) }
        let tags = FeedTags.normalized(kept + add)
        if tags != server.tags {
            try ItemMarking.undoable("Tag Feed", in: context) {
                server.tags = tags
                SyncQueue.queue(.tags, for: server, in: context)
            }
        }
        return FeedTags.list(tags)
    }
}
