import Foundation
import GRDB

/// Imports a long sequence of records into a background context in batches: saves every
/// ``batchSize`` records, resets the context after each save so memory stays bounded, and
/// records how many records are saved as a resume marker in the store's metadata — written
/// in the same transaction as the batch, so the marker and the data can never disagree.
///
/// An import that is killed (or throws) resumes on the next ``run(_:insert:)`` with the same
/// name: the records already saved are skipped, the rest imported, so every record ends up
/// in the store exactly once. The sequence must yield the same records in the same order
/// each time (a file, a sorted query). A finished import is remembered; running it again
/// does nothing until ``discardMarker()``.
///
/// ```swift
/// let importer = BatchImporter(container: container, name: "restore-2024-05-01", batchSize: 5_000)
/// let result = try importer.run(records) { record, context in
///     try context.insertObject(entityName: "FeedItem").importValues(from: record)
/// }
/// print(result.importedNow, result.total)
/// ```
///
/// Call ``run(_:progress:insert:)`` off the view context's queue: it blocks until the import
/// ends, and the view context merges each batch's DidSave on its own queue.
public final class BatchImporter: Sendable {
    /// The stack imported into (each run uses a new background context of it).
    public let container: PersistentContainer
    /// Identifies the import in the store's metadata.
    public let name: String
    /// Records per save (at least 1).
    public let batchSize: Int

    /// Where the marker lives in the store's metadata: `objectgraph.import.<name>`.
    public var markerKey: String { "objectgraph.import.\(name)" }

    /// An importer for the import called `name`.
    ///
    /// ```swift
    /// let importer = BatchImporter(container: container, name: "backup.json")
    /// ```
    public init(container: PersistentContainer, name: String, batchSize: Int = 1_000) {
        self.container = container
        self.name = name
        self.batchSize = max(1, batchSize)
    }

    /// Where an import stands, as its marker records it.
    ///
    /// ```swift
    /// if let marker = try importer.marker(), !marker.isFinished { print("resuming at", marker.savedRecords) }
    /// ```
    public struct Marker: Sendable, Equatable {
        /// How many records (from the start of the sequence) are saved.
        public var savedRecords: Int
        /// True once the whole sequence was imported.
        public var isFinished: Bool

        var metadataValue: String { isFinished ? "finished \(savedRecords)" : "\(savedRecords)" }

        init(savedRecords: Int, isFinished: Bool) {
            self.savedRecords = savedRecords
            self.isFinished = isFinished
        }

        init?(metadataValue value: String) {
            let parts = value.split(separator: " ")
            if parts.count == 2, parts[0] == "finished", let n = Int(parts[1]) {
                self.init(savedRecords: n, isFinished: true)
            } else if parts.count == 1, let n = Int(parts[0]) {
                self.init(savedRecords: n, isFinished: false)
            } else {
                return nil
            }
        }
    }

    /// What a run did.
    public struct Result: Sendable, Equatable {
        /// Records skipped because an earlier run had saved them.
        public var resumedAfter: Int
        /// Records imported by this run.
        public var importedNow: Int
        /// Records saved in all, after this run.
        public var total: Int
        /// Saves made by this run.
        public var batches: Int
    }

    /// The stored marker, nil when the import never saved anything.
    ///
    /// ```swift
    /// let saved = try importer.marker()?.savedRecords ?? 0
    /// ```
    public func marker() throws -> Marker? {
        guard let value = try container.store.metadata(forKey: markerKey) else { return nil }
        guard let marker = Marker(metadataValue: value) else {
            throw ObjectGraphError.incompatibleStore(
                path: "\(container.store.location)", reason: "import marker '\(markerKey)' has an unreadable value '\(value)'")
        }
        return marker
    }

    /// Forgets the marker, so that the next run starts from the first record.
    ///
    /// ```swift
    /// try importer.discardMarker()   // import the same file again from the top
    /// ```
    public func discardMarker() throws {
        try container.store.setMetadata(nil, forKey: markerKey)
    }

    /// Runs (or resumes) the import: calls `insert` with each record not yet saved and a
    /// background context to insert into, on that context's queue; saves and resets every
    /// ``batchSize`` records. `progress`, if given, is called after each save with the
    /// number of records saved so far. An error thrown by `insert` or by a save stops the
    /// run; the unsaved part of the current batch is dropped and a later run resumes after
    /// the last saved batch.
    ///
    /// ```swift
    /// let result = try importer.run(lines) { line, context in
    ///     try context.insertObject(entityName: "FeedItem").importValues(from: try parse(line))
    /// }
    /// ```
    @discardableResult
    public func run<Records: Sequence>(
        _ records: Records, progress: ((Int) -> Void)? = nil,
        insert: (Records.Element, ManagedObjectContext) throws -> Void
    ) throws -> Result {
        let start = try marker()
        if let start, start.isFinished {
            return Result(resumedAfter: start.savedRecords, importedNow: 0, total: start.savedRecords, batches: 0)
        }
        let skip = start?.savedRecords ?? 0
        let context = container.newBackgroundContext(name: "import.\(name)")
        // Many small statements in large transactions: statement journals in memory.
        return try container.store.withBulkWrites {
            try run(records, skipping: skip, in: context, progress: progress, insert: insert)
        }
    }

    private func run<Records: Sequence>(
        _ records: Records, skipping skip: Int, in context: ManagedObjectContext, progress: ((Int) -> Void)?,
        insert: (Records.Element, ManagedObjectContext) throws -> Void
    ) throws -> Result {
        try context.performAndWait { () throws -> Result in
            var position = 0
            var inBatch = 0
            var batches = 0
            do {
                for record in records {
                    position += 1
                    if position <= skip { continue }
                    try insert(record, context)
                    inBatch += 1
                    if inBatch == batchSize {
                        try commit(context, Marker(savedRecords: position, isFinished: false))
                        batches += 1
                        inBatch = 0
                        progress?(position)
                    }
                }
                try commit(context, Marker(savedRecords: max(position, skip), isFinished: true))
                if inBatch > 0 {
                    batches += 1
                    progress?(position)
                }
            } catch {
                context.reset()
                throw error
            }
            return Result(resumedAfter: skip, importedNow: max(0, position - skip), total: max(position, skip), batches: batches)
        }
    }

    /// Saves the context with `marker` written in the same transaction, then resets it.
    private func commit(_ context: ManagedObjectContext, _ marker: Marker) throws {
        let key = markerKey
        let value = marker.metadataValue
        context.processPendingChanges()
        if context.hasChanges {
            try PersistentStore.withTransactionExtras({ db in try PersistentStore.setMetadata(value, forKey: key, in: db) }) {
                try context.save()
            }
        } else {
            try container.store.setMetadata(value, forKey: key)
        }
        context.reset(cause: .importerBatch(name: name, batchSize: batchSize))
    }
}
