import Foundation
import ObjectGraph
import ZeaderKit

/// Flagged (starred) items in the reader (model version 2).
extension ReaderModel {
    /// Whether the item is flagged (false when it is gone).
    ///
    /// ```swift
    /// let flagged = model.isFlagged(id)
    /// ```
    public func isFlagged(_ id: ObjectID) -> Bool { item(id)?.flagged ?? false }

    /// Flags or unflags the item, as one undoable step.
    ///
    /// ```swift
    /// try model.setFlagged(id, true)   // undo (`z`) reverts it
    /// ```
    public func setFlagged(_ id: ObjectID, _ flagged: Bool) throws {
        try ItemMarking.setFlagged([id], flagged, in: context)
    }
}
