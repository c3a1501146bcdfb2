import Foundation
import ObjectGraph

/// newsboat's flags: letters A–Z and a–z on an item (`FeedItem.flagLetters`, model
/// version 3), edited with newsboat's `edit-flags` (`^E`). An item with any letter is
/// flagged, as the newsboat import makes it; clearing every letter unflags it.
///
/// ```swift
/// let letters = try ItemFlagLetters.normalized("bA a")   // "Aab"
/// try ItemFlagLetters.set("Aab", on: id, in: viewContext)   // "Edit Flags"; undo restores them
/// ```
public enum ItemFlagLetters {
    /// What is wrong with a typed flag string.
    public struct InvalidFlags: Error, CustomStringConvertible, Equatable {
        public let character: Character
        public var description: String {
            "'\(character)' is not a flag: flags are the letters A-Z and a-z"
        }
    }

    /// The letters of `text`, each once, in order (spaces are ignored); throws on anything
    /// but an ASCII letter.
    public static func normalized(_ text: String) throws(InvalidFlags) -> String {
        var letters = Set<Character>()
        for c in text where !c.isWhitespace {
            guard c.isASCII, c.isLetter else { throw InvalidFlags(character: c) }
            letters.insert(c)
        }
        return String(letters.sorted())
    }

    /// The item's letters ("" when it has none, or is gone).
    public static func letters(of id: ObjectID, in context: ManagedObjectContext) -> String {
        ((try? context.existingObject(with: id)) as? FeedItem)?.flagLetters ?? ""
    }

    /// Sets the item's letters to `text` (normalized); flags the item when any is left and
    /// unflags it when none is. One undo step; returns the letters stored.
    @discardableResult
    public static func set(_ text: String, on id: ObjectID, in context: ManagedObjectContext) throws -> String {
        let letters = try normalized(text)
        guard let item = (try? context.existingObject(with: id)) as? FeedItem else { return letters }
        let stored: String? = letters.isEmpty ? nil : letters
        guard item.flagLetters != stored || item.flagged != !letters.isEmpty else { return letters }
        try ItemMarking.undoable("Edit Flags", in: context) {
            item.flagLetters = stored
            if item.flagged != !letters.isEmpty {
                item.flagged = !letters.isEmpty
                SyncQueue.noteChanged([item], flag: true, in: context)
            }
        }
        return letters
    }
}
