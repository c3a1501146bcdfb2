import Foundation
import ObjectGraph

extension ItemRules {
    /// The undo step's name of the rules' changes.
    public static let undoName = "Rules"

    /// Makes the `mark-read` and `flag` of `firings` (with their feeds' IDs) that a refresh
    /// left to the reader (``acting(_:changingItems:)``) on `context`, as one undo step
    /// (``undoName``) and one save; an item gone meanwhile is skipped. With a sync account
    /// the marks are queued for the server, as the reader's own are. Returns how many items
    /// changed.
    ///
    /// ```swift
    /// try ItemRules.applyChanges(summary.results.flatMap { r in r.firings.map { (r.serverID, $0) } }, in: viewContext)
    /// ```
    @discardableResult
    public static func applyChanges(
        _ firings: [(server: ObjectID, firing: Firing)], in context: ManagedObjectContext
    ) throws -> Int {
        let changing = firings.filter { $0.firing.rule.actions.contains(.markRead) || $0.firing.rule.actions.contains(.flag) }
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
            }
            return changed.count
        }
    }
}
