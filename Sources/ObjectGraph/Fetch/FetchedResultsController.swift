import Foundation
import GRDB
import Synchronization

/// The results of a fetch request kept live: Core Data's `NSFetchedResultsController`.
///
/// After ``performFetch()`` the controller holds the objects matching the request's
/// predicate in the order of its sort descriptors, optionally grouped into sections by
/// ``sectionNameKeyPath``, and keeps them current from the context's ObjectsDidChange
/// notifications: the context's own inserts, changes and deletions, saves merged from
/// other contexts (announced to this context by ``ManagedObjectContext/mergeChanges(fromDidSave:)``,
/// which the view context does by itself) and other processes' commits
/// (``PersistentContainer/startWatchingOtherProcesses(interval:)``). Each batch of changes
/// is reported, in order, to the ``delegate`` and to every ``changeBatches()`` stream.
///
/// ## Cost
/// A changed object is placed by binary search on the sort keys the controller keeps for
/// each row, its predicate evaluated in memory: O(log n) comparisons per changed object
/// (plus moving the array's tail, a `memmove` of pointers), never a refetch. Only a
/// commit by another process, whose changed rows are unknown, costs a fetch of the
/// matching IDs.
///
/// ## Rules
/// - Use it on its context's queue, like the context's objects.
/// - The section key path must be the key of the first sort descriptor (sections follow
///   the sort order); requests with a fetch limit or offset, or a full-text search, are
///   refused with ``ObjectGraphError/invalidFetchRequest(entity:message:)``.
/// - Predicates and sort keys that go through a to-one relationship are re-evaluated
///   when the object itself changes, not when only the related object does.
/// - After ``ManagedObjectContext/reset()`` it fetches again by itself, and reports the
///   change as every old row deleted and every row found inserted.
///
/// ```swift
/// let controller = try FetchedResultsController(
///     fetchRequest: FetchRequest<Note>(sortDescriptors: [ObjectSortDescriptor(\Note.title)]), context: viewContext)
/// try controller.performFetch()
/// print(controller.numberOfObjects(inSection: 0), controller.object(at: ResultIndexPath(section: 0, item: 0)))
/// ```
// Like its context, the controller's state is touched only on the context's serial queue (the
// bus calls it there; other-process notices hop there with `perform`); only the stream
// continuations, behind a Mutex, are touched elsewhere.
// Safe to share across threads: its state is confined to the context's queue or locked.
public final class FetchedResultsController<Result: ManagedObject>: @unchecked Sendable {
    public let context: ManagedObjectContext
    public let fetchRequest: FetchRequest<Result>
    /// The key path whose value groups objects into sections (nil: one section).
    public let sectionNameKeyPath: String?
    /// Hears each batch of changes (held weakly).
    public weak var delegate: (any FetchedResultsControllerDelegate<Result>)?
    /// The last error met while keeping the results live (a predicate that could not be
    /// evaluated on a changed object is treated as not matching).
    public private(set) var lastError: ObjectGraphError?

    let entity: Entity
    private let descriptors: [ObjectSortDescriptor]
    private var storage: [SectionStorage] = []
    /// Entries by object identity (object IDs change when an inserted object is saved).
    private var entries: [ObjectIdentifier: Entry] = [:]
    private var tokens: [ObservationToken] = []
    private var batch: [FetchedResultsChange] = []
    private let streams = Mutex<[Int: AsyncStream<[FetchedResultsChange]>.Continuation]>([:])
    private let nextStreamID = Atomic<Int>(0)
    /// The open ``snapshots()`` streams.
    let snapshotStreams = SnapshotStreams()

    /// A row: the object and the sort keys it was placed by.
    final class Entry {
        let object: ManagedObject
        var keys: [Value]
        var tiebreak: Int64
        init(object: ManagedObject, keys: [Value], tiebreak: Int64) {
            self.object = object
            self.keys = keys
            self.tiebreak = tiebreak
        }
    }

    final class SectionStorage {
        let value: Value
        var entries: [Entry]
        init(value: Value, entries: [Entry]) {
            self.value = value
            self.entries = entries
        }
    }

    /// A controller for `fetchRequest` in `context`, grouped by `sectionNameKeyPath` (which
    /// must be the first sort key). Call ``performFetch()`` to load it.
    ///
    /// ```swift
    /// let byFolder = try FetchedResultsController(
    ///     fetchRequest: FetchRequest<Note>(sortDescriptors: [ObjectSortDescriptor("folder.name"), ObjectSortDescriptor("title")]),
    ///     context: viewContext, sectionNameKeyPath: "folder.name")
    /// ```
    public init(
        fetchRequest: FetchRequest<Result>, context: ManagedObjectContext, sectionNameKeyPath: String? = nil
    ) throws(ObjectGraphError) {
        let model = context.model
        let entity: Entity
        if let name = fetchRequest.entityName {
            entity = try model.entity(named: name)
        } else {
            entity = try model.entity(for: Result.self)
        }
        func refuse(_ message: String) -> ObjectGraphError { .invalidFetchRequest(entity: entity.name, message: message) }
        if fetchRequest.fetchLimit > 0 || fetchRequest.fetchOffset > 0 {
            throw refuse("a fetched results controller keeps every match live: remove the fetch limit and offset")
        }
        if fetchRequest.searchText != nil {
            throw refuse("a full-text search cannot be kept live; fetch it with context.fetch instead")
        }
        for d in fetchRequest.sortDescriptors {
            if d.key == ObjectSortDescriptor.relevanceKey { throw refuse("sorting by relevance needs a full-text search") }
            _ = try ObjectPredicate.sqlKeyPathExpression(d.key, for: entity, in: model, alias: "t0")
        }
        if let key = sectionNameKeyPath, fetchRequest.sortDescriptors.first?.key != key {
            throw refuse("the section key path '\(key)' must be the key of the first sort descriptor")
        }
        if let predicate = fetchRequest.predicate {
            _ = try predicate.sqlExpression(for: entity, in: model, alias: "t0")  // validates it
        }
        self.context = context
        self.fetchRequest = fetchRequest
        self.sectionNameKeyPath = sectionNameKeyPath
        self.entity = entity
        self.descriptors = fetchRequest.sortDescriptors
    }

    /// A controller grouped by the property `sectionNameKeyPath` names, as the string form with
    /// that key path's name (through to-one relationships too); it must be the first sort key.
    ///
    /// ```swift
    /// let byFolder = try FetchedResultsController(
    ///     fetchRequest: FetchRequest<Note>(sortDescriptors: [ObjectSortDescriptor(\Note.folder?.name), ObjectSortDescriptor(\Note.title)]),
    ///     context: viewContext, sectionNameKeyPath: \Note.folder?.name)
    /// ```
    public convenience init<V>(
        fetchRequest: FetchRequest<Result>, context: ManagedObjectContext, sectionNameKeyPath: KeyPath<Result, V>
    ) throws(ObjectGraphError) {
        try self.init(
            fetchRequest: fetchRequest, context: context,
            sectionNameKeyPath: KeyPathRecorder.keyPath(sectionNameKeyPath as PartialKeyPath<Result>))
    }

    deinit {
        for token in tokens { token.cancel() }
        streams.withLock { streams in
            for continuation in streams.values { continuation.finish() }
        }
    }

    // MARK: - Fetching

    /// Fetches the matching objects and starts keeping them live (again, after a reset).
    ///
    /// ```swift
    /// try controller.performFetch()
    /// ```
    public func performFetch() throws(ObjectGraphError) {
        context.assertOnQueue()
        var request = fetchRequest
        request.includesPendingChanges = true
        let objects: [ManagedObject] = try context.fetch(request)
        var rows: [Entry] = []
        rows.reserveCapacity(objects.count)
        for object in objects { rows.append(Entry(object: object, keys: try sortKeys(of: object), tiebreak: tiebreak(object))) }
        // The store's order and ours agree, but check: a disagreement would break the binary searches.
        if !zip(rows, rows.dropFirst()).allSatisfy({ compare($0.keys, $0.tiebreak, $1) <= 0 }) {
            rows.sort { compare($0.keys, $0.tiebreak, $1) < 0 }
        }
        entries = [:]
        entries.reserveCapacity(rows.count)
        for row in rows { entries[ObjectIdentifier(row.object)] = row }
        storage = []
        if sectionNameKeyPath == nil {
            storage = [SectionStorage(value: .null, entries: rows)]
        } else {
            for row in rows {
                if let last = storage.last, Value.sortOrder(last.value, row.keys[0]) == 0 {
                    last.entries.append(row)
                } else {
                    storage.append(SectionStorage(value: row.keys[0], entries: [row]))
                }
            }
        }
        observe()
        yieldSnapshots()
    }

    private func observe() {
        for token in tokens { token.cancel() }
        guard let bus = context.bus else { return }
        tokens = [
            bus.observeObjectsDidChange(in: context) { [weak self] note in self?.contextDidChange(note) },
            bus.observeDidSave { [weak self] note in self?.storeDidSave(note) },
        ]
    }

    // MARK: - Reading

    /// The sections, with their objects (builds arrays: for large results prefer
    /// ``numberOfObjects(inSection:)`` and ``object(at:)``).
    ///
    /// ```swift
    /// for section in controller.sections { print(section.name, section.numberOfObjects) }
    /// ```
    public var sections: [FetchedResultsSection<Result>] {
        storage.map { s in
            FetchedResultsSection(name: sectionName(s.value), value: s.value, objects: s.entries.map { $0.object as! Result })
        }
    }

    /// Every object, in order.
    ///
    /// ```swift
    /// let titles = controller.fetchedObjects.map(\.title)
    /// ```
    public var fetchedObjects: [Result] { storage.flatMap { $0.entries.map { $0.object as! Result } } }

    /// How many sections there are (one without a section key path).
    public var numberOfSections: Int { storage.count }

    /// How many objects section `section` holds.
    ///
    /// ```swift
    /// let rows = controller.numberOfObjects(inSection: 0)
    /// ```
    public func numberOfObjects(inSection section: Int) -> Int { storage[section].entries.count }

    /// The name of section `section` ("" without a section key path).
    public func nameOfSection(_ section: Int) -> String { sectionName(storage[section].value) }

    /// The object at `indexPath`.
    ///
    /// ```swift
    /// let note = controller.object(at: ResultIndexPath(section: 0, item: 3))
    /// ```
    public func object(at indexPath: ResultIndexPath) -> Result {
        storage[indexPath.section].entries[indexPath.item].object as! Result
    }

    /// Where `object` is, or nil when it is not among the results (O(log n)).
    ///
    /// ```swift
    /// if let path = controller.indexPath(for: note) { print(path) }
    /// ```
    public func indexPath(for object: Result) -> ResultIndexPath? {
        guard let entry = entries[ObjectIdentifier(object)] else { return nil }
        return locate(entry)
    }

    /// A new stream of change batches (each batch the changes of one ObjectsDidChange, in
    /// order). Read the objects on the context's queue: the changes carry IDs and positions.
    ///
    /// ```swift
    /// for await batch in controller.changeBatches() { print(batch.count, "changes") }
    /// ```
    public func changeBatches() -> AsyncStream<[FetchedResultsChange]> {
        let (stream, continuation) = AsyncStream<[FetchedResultsChange]>.makeStream()
        let id = nextStreamID.add(1, ordering: .relaxed).newValue
        streams.withLock { $0[id] = continuation }
        continuation.onTermination = { [weak self] _ in _ = self?.streams.withLock { $0.removeValue(forKey: id) } }
        return stream
    }

    // MARK: - Following changes

    private func contextDidChange(_ note: ObjectsDidChangeNotification) {
        if note.invalidatedAll { return refetchAfterReset() }
        var seen = Set<ObjectIdentifier>()
        var changed: [ManagedObject] = []
        func consider(_ object: ManagedObject) {
            guard fetchRequest.includes(object.entity, of: entity), seen.insert(ObjectIdentifier(object)).inserted else { return }
            changed.append(object)
        }
        for object in note.deleted { consider(object) }
        for object in note.updated { consider(object) }
        for object in note.inserted { consider(object) }
        let merged = note.insertedIDsFromMerges.union(note.updatedObjectIDsFromMerges).filter {
            fetchRequest.includes($0.entity, of: entity)
        }
        for object in context.loadObjects(merged) { consider(object) }
        guard !changed.isEmpty else { return }
        for object in changed { reconcile(object, reportUpdate: true) }
        finishBatch()
    }

    /// After the context's reset every row's object has left it: all rows go, and the
    /// request's matches, fetched again, come in, as one batch.
    private func refetchAfterReset() {
        var request = fetchRequest
        request.includesPendingChanges = true
        let objects: [ManagedObject]
        do {
            objects = try context.fetch(request)
        } catch {
            lastError = error
            return
        }
        // From the end, so that each deletion's path is the row's place when it goes.
        for section in storage.reversed() {
            for entry in section.entries.reversed() { remove(entry) }
        }
        entries = [:]
        for object in objects { reconcile(object, reportUpdate: false) }
        finishBatch()
    }

    private func storeDidSave(_ note: DidSaveNotification) {
        if note.isFromOtherProcess {
            // Which rows changed is unknown: the merge refreshes the objects already here;
            // rows that newly match are found by fetching the matching IDs.
            context.perform { [weak self] in self?.catchUpWithStore() }
            return
        }
        guard note.contextID == ObjectIdentifier(context) else { return }
        // This context's own save: inserted objects have their permanent IDs (the tiebreak
        // between equal sort keys), and a merge policy may have changed saved values.
        var changed: [ManagedObject] = []
        for id in note.inserted where fetchRequest.includes(id.entity, of: entity) {
            if let object = context.registeredObject(for: id), entries[ObjectIdentifier(object)] != nil {
                changed.append(object)
            }
        }
        for id in note.updated.keys where fetchRequest.includes(id.entity, of: entity) {
            if let object = context.registeredObject(for: id), entries[ObjectIdentifier(object)] != nil {
                changed.append(object)
            }
        }
        for object in changed { reconcile(object, reportUpdate: false) }
        finishBatch()
    }

    private func catchUpWithStore() {
        var request = fetchRequest
        request.includesPendingChanges = true
        let ids: [ObjectID]
        do {
            ids = try context.fetchObjectIDs(request)
        } catch {
            lastError = error
            return
        }
        var missing: [ObjectID] = []
        for id in ids {
            if let object = context.registeredObject(for: id), entries[ObjectIdentifier(object)] != nil { continue }
            missing.append(id)
        }
        for object in context.loadObjects(Set(missing)) { reconcile(object, reportUpdate: true) }
        let current = Set(ids)
        for entry in Array(entries.values) where !current.contains(entry.object.objectID) {
            reconcile(entry.object, reportUpdate: true)
        }
        finishBatch()
    }

    /// Brings `object`'s membership and place up to date, recording the changes.
    func reconcile(_ object: ManagedObject, reportUpdate: Bool) {
        let key = ObjectIdentifier(object)
        let old = entries[key]
        var newKeys: [Value]?
        if isLive(object) {
            do {
                if try fetchRequest.predicate?.evaluate(with: object) ?? true { newKeys = try sortKeys(of: object) }
            } catch {
                lastError = ObjectGraphError.wrapping(error)
            }
        }
        switch (old, newKeys) {
        case (nil, nil):
            return
        case (let entry?, nil):
            remove(entry)
            entries.removeValue(forKey: key)
        case (nil, let keys?):
            let entry = Entry(object: object, keys: keys, tiebreak: tiebreak(object))
            entries[key] = entry
            let path = insert(entry)
            batch.append(.insert(object.objectID, at: path))
        case (let entry?, let keys?):
            let newTiebreak = tiebreak(object)
            if keys == entry.keys && newTiebreak == entry.tiebreak {
                if reportUpdate, let path = locate(entry) { batch.append(.update(object.objectID, at: path)) }
                return
            }
            move(entry, keys: keys, tiebreak: newTiebreak, reportUpdate: reportUpdate)
        }
    }

    /// Whether `object` belongs in results of this context at all (registered here, not deleted).
    private func isLive(_ object: ManagedObject) -> Bool {
        guard object.managedObjectContext === context, context.registeredObject(for: object.objectID) === object else {
            return false
        }
        return context.deletedByID.isEmpty || context.deletedByID[object.objectID] == nil
    }

    private func finishBatch() {
        guard !batch.isEmpty else { return }
        let changes = batch
        batch = []
        if let delegate {
            delegate.controllerWillChangeContent(self)
            for change in changes { delegate.controller(self, didChange: change) }
            delegate.controllerDidChangeContent(self)
        }
        let continuations = streams.withLock { Array($0.values) }
        for continuation in continuations { continuation.yield(changes) }
        yieldSnapshots()
    }

    // MARK: - Ordered storage

    private func sortKeys(of object: ManagedObject) throws(ObjectGraphError) -> [Value] {
        var keys: [Value] = []
        keys.reserveCapacity(descriptors.count)
        for d in descriptors { keys.append(try object.value(forKeyPath: d.key)) }
        return keys
    }

    /// The order between equal sort keys: the primary key, as the store's `ORDER BY … Z_PK`,
    /// with unsaved objects after saved ones (as in a fetch that includes pending changes).
    private func tiebreak(_ object: ManagedObject) -> Int64 {
        let raw = object.objectID.rawValue
        return raw < 0 ? Int64.max + raw : raw
    }

    /// -1, 0 or 1 as (keys, tiebreak) sorts before, with or after `entry`.
    private func compare(_ keys: [Value], _ tiebreak: Int64, _ entry: Entry) -> Int {
        for (i, d) in descriptors.enumerated() {
            let c = Value.sortOrder(keys[i], entry.keys[i])
            if c != 0 { return d.ascending ? c : -c }
        }
        return tiebreak == entry.tiebreak ? 0 : (tiebreak < entry.tiebreak ? -1 : 1)
    }

    /// The section for a first sort key: its index and whether it exists (else where it would go).
    private func sectionIndex(for keys: [Value]) -> (index: Int, found: Bool) {
        guard sectionNameKeyPath != nil else { return (0, true) }
        let ascending = descriptors[0].ascending
        var low = 0
        var high = storage.count
        while low < high {
            let mid = (low + high) / 2
            var c = Value.sortOrder(keys[0], storage[mid].value)
            if !ascending { c = -c }
            if c == 0 { return (mid, true) }
            if c < 0 { high = mid } else { low = mid + 1 }
        }
        return (low, false)
    }

    /// The first place in `entries` whose entry does not sort before (keys, tiebreak).
    private func lowerBound(_ keys: [Value], _ tiebreak: Int64, in entries: [Entry]) -> Int {
        var low = 0
        var high = entries.count
        while low < high {
            let mid = (low + high) / 2
            if compare(keys, tiebreak, entries[mid]) > 0 { low = mid + 1 } else { high = mid }
        }
        return low
    }

    private func locate(_ entry: Entry) -> ResultIndexPath? {
        let (s, found) = sectionIndex(for: entry.keys)
        guard found else { return nil }
        let entries = storage[s].entries
        let i = lowerBound(entry.keys, entry.tiebreak, in: entries)
        guard i < entries.count, entries[i] === entry else { return nil }
        return ResultIndexPath(section: s, item: i)
    }

    /// Inserts `entry` at its place (adding its section first if needed), recording a new section.
    private func insert(_ entry: Entry) -> ResultIndexPath {
        let (s, found) = sectionIndex(for: entry.keys)
        if !found {
            storage.insert(SectionStorage(value: entry.keys[0], entries: []), at: s)
            batch.append(.insertSection(name: sectionName(entry.keys[0]), at: s))
        }
        let section = storage[s]
        let i = lowerBound(entry.keys, entry.tiebreak, in: section.entries)
        section.entries.insert(entry, at: i)
        return ResultIndexPath(section: s, item: i)
    }

    /// Removes `entry`, recording its deletion (and its section's, when that empties).
    private func remove(_ entry: Entry) {
        guard let path = locate(entry) else { return }
        storage[path.section].entries.remove(at: path.item)
        batch.append(.delete(entry.object.objectID, at: path))
        if sectionNameKeyPath != nil, storage[path.section].entries.isEmpty {
            let value = storage.remove(at: path.section).value
            batch.append(.deleteSection(name: sectionName(value), at: path.section))
        }
    }

    /// Re-places `entry` under new sort keys: a move when no section comes or goes, else a
    /// deletion and an insertion.
    private func move(_ entry: Entry, keys: [Value], tiebreak: Int64, reportUpdate: Bool) {
        guard let from = locate(entry) else { return }
        let target = sectionIndex(for: keys)
        let keepsSections =
            target.found && (target.index == from.section || storage[from.section].entries.count > 1)
        guard keepsSections else {
            remove(entry)
            entry.keys = keys
            entry.tiebreak = tiebreak
            let path = insert(entry)
            batch.append(.insert(entry.object.objectID, at: path))
            return
        }
        storage[from.section].entries.remove(at: from.item)
        entry.keys = keys
        entry.tiebreak = tiebreak
        let to = insert(entry)
        if to == from {
            if reportUpdate { batch.append(.update(entry.object.objectID, at: to)) }
        } else {
            batch.append(.move(entry.object.objectID, from: from, to: to))
        }
    }

    private func sectionName(_ value: Value) -> String {
        switch value {
        case .null: return ""
        case .string(let s): return s
        default: return value.description
        }
    }
}

extension ManagedObjectContext {
    /// The objects for `ids` (registered ones as they are, others read in one query per
    /// entity); rows that no longer exist are left out.
    func loadObjects(_ ids: Set<ObjectID>) -> [ManagedObject] {
        guard !ids.isEmpty else { return [] }
        var objects: [ManagedObject] = []
        var toRead: [ObjectIdentifier: (Entity, [Int64])] = [:]
        for id in ids {
            if let object = registeredObject(for: id), !object.isFault {
                objects.append(object)
            } else if let pk = id.primaryKey {
                toRead[ObjectIdentifier(id.entity), default: (id.entity, [])].1.append(pk)
            }
        }
        for (_, (entity, pks)) in toRead {
            for decoded in storedRows(of: entity, primaryKeys: pks) {
                objects.append(materialize(entity: entity, pk: decoded.pk, snapshot: decoded.snapshot))
            }
        }
        return objects
    }
}
