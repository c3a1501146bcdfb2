import Foundation
import ObjectGraph

extension ItemRules {
    /// The undo step's name of the rules' changes.
    public static let undoName = "Rules"

    /// Makes the `mark-read`, `flag`, `tag` and `untag` of `firings` (with their feeds' IDs) that a refresh
    /// left to the reader (``acting(_:changingItems:)``) on `context`, as one undo step
    /// (``undoName``) and one save; an item gone meanwhile is skipped. With a sync account
    /// the marks are queued for the server, as the reader's own are. Returns how many items
    /// changed.
    ///
    /// ```swift
    /// try ItemRules.applyChanges(summary.results.flatMap { r in r.firings.map { (r.serverID, $0) } }, in: viewContext)
    /// ```
    /// `firings` of a sync (which name their feeds by URL) with their feeds' IDs, for
    /// ``applyChanges(_:in:)``; a feed gone meanwhile is left out. Call on `context`'s queue.
    ///
    /// ```swift
    /// try ItemRules.applyChanges(ItemRules.withServers(report.firings, in: viewContext), in: viewContext)
    /// ```
    public static func withServers(_ firings: [Firing], in context: ManagedObjectContext) -> [(server: ObjectID, firing: Firing)]
    {
        var servers: [String: ObjectID?] = [:]
        var result: [(server: ObjectID, firing: Firing)] = []
        for firing in firings {
            let feed = firing.item.feed
            if servers[feed] == nil {
                let server = try? Server.findFirst(byAttribute: "url", value: .string(feed), in: context)
                servers[feed] = .some(server?.objectID)
            }
            if case .some(.some(let id)) = servers[feed] { result.append((server: id, firing: firing)) }
        }
        return result
    }

    @discardableResult
    public static func applyChanges(
        _ firings: [(server: ObjectID, firing: Firing)], in context: ManagedObjectContext
    ) throws -> Int {
        let changing = firings.filter { $0.firing.rule.changesItem }
        guard !changing.isEmpty else { return 0 }
        return try ItemMarking.undoable(undoName, in: context) {
            var changed = Set<ObjectID>()
            for (serverID, firing) in changing {
                let request = FetchRequest<FeedItem>(
                    predicate: .comparison(.keyPath("server"), .equalTo, .object(serverID))
                        && .comparison(.keyPath("guid"), .equalTo, .constant(.string(firing.item.id))),
                    fetchLimit: 1)
                guard let item = try context.fetch(request).first else { continue }
                if firing.rule.actions.contains(.markRead), !item.read {
                    item.read = true
                    SyncQueue.noteChanged([item], flag: false, in: context)
                    changed.insert(item.objectID)
                }
                if firing.rule.actions.contains(.flag), !item.flagged {
                    item.flagged = true
                    SyncQueue.noteChanged([item], flag: true, in: context)
                    changed.insert(item.objectID)
                }
                for action in firing.rule.actions {
                    switch action {
                    case .tag(let tag) where item.setTag(tag, true): changed.insert(item.objectID)
                    case .untag(let tag) where item.setTag(tag, false): changed.insert(item.objectID)
                    default: break
                    }
                }
            }
            return changed.count
        }
    }
}
