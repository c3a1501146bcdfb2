import ObjectGraph

/// The steps that the randomized two-context tests (derived counts, many-to-many counts,
/// inheritance) share: each test draws its own mix of steps and calls these for the common
/// ones. Each returns the words the step adds to the test's trace.
enum TwoContextSteps {
    /// Saves `context`, rolled back when the save fails (a conflict is a legal outcome).
    static func save(_ context: ManagedObjectContext) -> String {
        do {
            try context.save()
            return " save"
        } catch {
            context.rollback()
            return " save failed (\(error)), rolled back"
        }
    }

    /// Undoes on `context` when it is `undoing`, the context with the undo manager.
    static func undo(_ context: ManagedObjectContext, undoing: ManagedObjectContext) -> String {
        guard context === undoing else { return "" }
        undoing.undo()
        return " undo"
    }

    /// Redoes on `context` when it is `undoing`, the context with the undo manager.
    static func redo(_ context: ManagedObjectContext, undoing: ManagedObjectContext) -> String {
        guard context === undoing else { return "" }
        undoing.redo()
        return " redo"
    }

    /// Now and then (one time in three), merges the saves recorded since `delivered` into the
    /// contexts that did not make them: merges arrive late, as in life.
    static func deliverLate(
        _ saves: Recorder<DidSaveNotification>, delivered: inout Int, to contexts: [ManagedObjectContext],
        using rng: inout some RandomNumberGenerator
    ) {
        guard Int.random(in: 0..<3, using: &rng) == 0 else { return }
        let pending = saves.all.dropFirst(delivered)
        delivered = saves.all.count
        for note in pending {
            for target in contexts where ObjectIdentifier(target) != note.contextID {
                target.performAndWait { target.mergeChanges(fromDidSave: note) }
            }
        }
    }
}
