import Foundation
import GRDB

/// Pinned read generations (Core Data's query generations): while a context's generation is
/// pinned, everything it reads from the store — fetches, counts, faults, relationships —
/// sees the store as it was when the generation was pinned, however many saves other
/// contexts and processes make meanwhile. The context's own saves and merges advance it.
/// File stores only (SQLite WAL snapshots); an open generation keeps the WAL from being
/// reset, so pin for a screenful of reads, not for hours.
///
/// ```swift
/// try context.pinReadGeneration()
/// let before = try context.count(for: FetchRequest<Note>())   // stays the same …
/// try context.advanceReadGeneration()                           // … until advanced
/// ```
extension ManagedObjectContext {
    /// Pins this context's reads to the store as it is now.
    ///
    /// ```swift
    /// try context.pinReadGeneration()
    /// ```
    public func pinReadGeneration() throws(ObjectGraphError) {
        assertOnQueue()
        guard let pool = store.writer as? DatabasePool else {
            throw .generationsUnavailable(path: store.location.path)
        }
        do {
            pinnedGeneration = try pool.makeSnapshot()
        } catch {
            throw ObjectGraphError.wrapping(error, path: store.location.path)
        }
    }

    /// Moves a pinned generation to the store as it is now (no effect when not pinned).
    ///
    /// ```swift
    /// try context.advanceReadGeneration()
    /// ```
    public func advanceReadGeneration() throws(ObjectGraphError) {
        guard pinnedGeneration != nil else { return }
        try pinReadGeneration()
    }

    /// Reads the store's latest state again.
    ///
    /// ```swift
    /// context.unpinReadGeneration()
    /// ```
    public func unpinReadGeneration() {
        assertOnQueue()
        pinnedGeneration = nil
    }

    /// Whether reads are pinned to a generation.
    public var isReadGenerationPinned: Bool { pinnedGeneration != nil }

    /// Reads from the pinned generation, or from the store's latest state.
    func readStore<T>(_ block: (Database) throws -> T) throws(ObjectGraphError) -> T {
        guard let pinnedGeneration else { return try store.read(block) }
        do {
            return try pinnedGeneration.read(block)
        } catch {
            throw ObjectGraphError.wrapping(error, path: store.location.path)
        }
    }
}
