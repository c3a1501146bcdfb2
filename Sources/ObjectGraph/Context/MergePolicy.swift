/// How a save resolves conflicts with changes another context or process saved since the
/// conflicting objects were read (optimistic locking on each row's version), and conflicts
/// with uniqueness constraints (Core Data's constraint-conflict resolution: upserts).
///
/// ## Uniqueness conflicts
/// Under every policy but ``error``, an inserted object whose constrained keys (an
/// ``EntityDescription/uniquenessConstraints`` entry, no key nil) match a stored row, or
/// an object inserted before it in the same save, does not fail the save: it is merged
/// into that object, which keeps its identity, its row and its related objects. The
/// inserted object's related objects move to the kept one, and the inserted object leaves
/// the context (as a deleted insert does); ``ManagedObjectContext/registeredObject(for:)``
/// finds the kept object by the inserted object's ID. What the kept object takes:
/// - ``objectTrumps``: every value the inserted object was given (a value other than the
///   attribute's default, a to-one set, or any key set after the batch that inserted it);
/// - ``overwrite``: every stored value of the inserted object;
/// - ``storeTrumps``, ``rollback``: nothing; the stored values win.
///
/// An update that moves an object onto keys another object holds still fails the save
/// with ``ObjectGraphError/uniquenessViolation(entity:keys:values:)``.
///
/// ```swift
/// viewContext.mergePolicy = .storeTrumps   // background refreshes win, local flags survive
/// importContext.mergePolicy = .objectTrumps   // a folder inserted by name updates the stored one
/// ```
public enum MergePolicy: Sendable, Equatable {
    /// The save fails with ``ObjectGraphError/mergeConflict(_:)`` (or, for a uniqueness
    /// conflict, ``ObjectGraphError/uniquenessViolation(entity:keys:values:)``); nothing is written.
    case error
    /// Property by property: keys changed in the store keep the store's value; the
    /// context's other changes are saved. An inserted object conflicting on a uniqueness
    /// constraint is merged into the stored object, whose values stay as stored.
    case storeTrumps
    /// Property by property: the context's changed keys win; other keys take the store's
    /// value. An inserted object conflicting on a uniqueness constraint is merged into the
    /// stored object, which takes the values the inserted object was given.
    case objectTrumps
    /// The context's whole object overwrites the stored row. An inserted object conflicting
    /// on a uniqueness constraint is merged into the stored object, which takes all its values.
    case overwrite
    /// The context's changes to conflicting objects are discarded in favour of the store;
    /// an inserted object conflicting on a uniqueness constraint is merged into the stored
    /// object, whose values stay as stored.
    case rollback
}
