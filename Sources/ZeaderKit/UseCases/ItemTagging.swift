import Foundation
import ObjectGraph

/// An item's own tags set by hand (the reader's `edit-tags`): typed as one line, tags
/// separated by commas, stored as ``FeedItem/tags`` stores them.
///
/// ```swift
/// try ItemTagging.set("later, work", on: id, in: viewContext)   // "Edit Tags"; undo restores them
/// ItemTagging.text(of: id, in: viewContext)                     // "later, work"
/// ```
public enum ItemTagging {
    /// The undo step's name.
    public static let undoName = "Edit Tags"

    /// The item's tags as the prompt shows them, `a, b` ("" when it has none, or is gone).
    ///
    /// ```swift
    /// state.prompt = .editTags(text: ItemTagging.text(of: id, in: context), id: id)
    /// ```
    public static func text(of id: ObjectID, in context: ManagedObjectContext) -> String {
        FeedTags.list(((try? context.existingObject(with: id)) as? FeedItem)?.tags).joined(separator: ", ")
    }

    /// Sets the item's tags to those of `text` (separated by commas), as one undo step
    /// (``undoName``) and one save; returns the tags stored, in order.
    ///
    /// ```swift
    /// try ItemTagging.set("", on: id, in: context)   // [] — every tag removed
    /// ```
    @discardableResult
    public static func set(_ text: String, on id: ObjectID, in context: ManagedObjectContext) throws -> [String] {
        let tags = FeedTags.normalized(text.split(separator: ",").map(String.init))
        guard let item = (try? context.existingObject(with: id)) as? FeedItem else { return FeedTags.list(tags) }
        if item.tags != tags { try ItemMarking.undoable(undoName, in: context) { item.tags = tags } }
        return FeedTags.list(tags)
    }
}
