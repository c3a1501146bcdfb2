/// How a save resolves conflicts with changes another context or process saved since the
/// conflicting objects were read (optimistic locking on each row's version).
///
/// ```swift
/// viewContext.mergePolicy = .storeTrumps   // background refreshes win, local flags survive
/// ```
public enum MergePolicy: Sendable, Equatable {
    /// The save fails with ``ObjectGraphError/mergeConflict(_:)``; nothing is written.
    case error
    /// Property by property: keys changed in the store keep the store's value; the
    /// context's other changes are saved.
    case storeTrumps
    /// Property by property: the context's changed keys win; other keys take the store's value.
    case objectTrumps
    /// The context's whole object overwrites the stored row.
    case overwrite
    /// The context's changes to conflicting objects are discarded in favour of the store.
    case rollback
}
