import Foundation

/// One recorded change, enough to reverse it.
public struct UndoRecord {
    enum Change {
        case attribute(index: Int, oldValue: Value)
        case relationship(index: Int, oldValue: ObjectID?)
        /// A many-to-many pair: `member` was (or was not) in relationship `index`.
        case membership(index: Int, member: ObjectID, wasMember: Bool)
        /// An ordered relationship's members were in `oldOrder`.
        case order(index: Int, oldOrder: [ObjectID])
    }

    enum Kind {
        case insert(ObjectID)
        case delete(ObjectID, [Value], [ObjectID?], Snapshot?, Set<String>)
        case change(ObjectID, Change)
        /// A batch request's effect, reverted in the store with set-based SQL.
        case batch(BatchStep)
    }

    /// What reverting a batch step does.
    enum BatchStep {
        /// Puts back the values a batch update replaced.
        case revertBatchUpdate(BatchUpdateChange)
        /// Inserts again what a batch delete removed.
        case restoreBatchDelete(BatchDeleteChange)
        /// Deletes again (redo) the rows an undone batch delete had removed.
        case repeatBatchDelete(Entity, [Int64])
    }

    let kind: Kind
}

/// An undo manager for one context: groups, named actions, undo and redo of inserts,
/// deletes, attribute and relationship changes — before or after they were saved (undoing
/// after a save makes new unsaved changes, as in Core Data).
///
/// Without explicit groups, each batch of changes (a `perform` block or a
/// ``ManagedObjectContext/processPendingChanges()``) is one undo step.
///
/// ```swift
/// context.undoManager = ContextUndoManager()
/// context.undoManager?.beginUndoGrouping(named: "Mark All Read")
/// for item in items { item.read = true }
/// context.undoManager?.endUndoGrouping()
/// context.undo()   // every item unread again
/// ```
public final class ContextUndoManager {
    struct Group {
        var name: String?
        var records: [UndoRecord] = []
    }

    private var undoStack: [Group] = []
    private var redoStack: [Group] = []
    private var openGroup: Group?
    private var explicitDepth = 0
    private enum Mode { case normal, undoing, redoing }
    private var mode = Mode.normal
    /// At most this many undo steps are kept (0: no limit).
    public var levelsOfUndo: Int = 100
    /// While false, changes are not recorded.
    public var isEnabled = true
    /// Why the last undo or redo of a batch step (``BatchUpdateRequest``,
    /// ``BatchDeleteRequest``) could not be applied, e.g. a uniqueness violation when the
    /// deleted rows came back; nil after a step that succeeded.
    ///
    /// ```swift
    /// context.undo()
    /// if let error = context.undoManager?.lastError { print(error) }
    /// ```
    public internal(set) var lastError: ObjectGraphError?

    public init() {}

    public var canUndo: Bool { !undoStack.isEmpty || !(openGroup?.records.isEmpty ?? true) }
    public var canRedo: Bool { !redoStack.isEmpty }
    /// The name of the step ``undo()`` would reverse.
    public var undoActionName: String? { (openGroup?.records.isEmpty == false ? openGroup : undoStack.last)?.name }
    /// The name of the step ``redo()`` would repeat.
    public var redoActionName: String? { redoStack.last?.name }

    /// Starts a group of changes undone together; groups nest (the outermost counts).
    public func beginUndoGrouping(named name: String? = nil) {
        if explicitDepth == 0 {
            closeImplicitGroup()
            openGroup = Group(name: name)
        }
        explicitDepth += 1
    }

    /// Ends the group begun by ``beginUndoGrouping(named:)``.
    public func endUndoGrouping() {
        guard explicitDepth > 0 else { return }
        explicitDepth -= 1
        if explicitDepth == 0 { commitOpenGroup() }
    }

    /// Names the current (or last) step, e.g. "Mark Read".
    public func setActionName(_ name: String) {
        if openGroup != nil { openGroup?.name = name } else if !undoStack.isEmpty { undoStack[undoStack.count - 1].name = name }
    }

    /// Forgets all undo and redo steps.
    public func removeAllActions() {
        undoStack = []
        redoStack = []
        openGroup = nil
        explicitDepth = 0
    }

    func registerUndo(_ kind: UndoRecord.Kind, in context: ManagedObjectContext) {
        guard isEnabled else { return }
        let record = UndoRecord(kind: kind)
        switch mode {
        case .normal, .redoing:
            if openGroup == nil { openGroup = Group() }
            openGroup!.records.append(record)
        case .undoing:
            if openGroup == nil { openGroup = Group() }
            openGroup!.records.append(record)
        }
    }

    /// Ends the implicit per-batch group (called when pending changes are processed).
    func closeImplicitGroup() {
        if explicitDepth == 0 && mode == .normal { commitOpenGroup() }
    }

    /// How many steps can be undone (the open group, if any, not counted).
    var groupCount: Int { undoStack.count }

    /// Makes the steps recorded after the first `count` part of step `count` (the last one
    /// then): `willSave`'s changes belong to the user's step that is being saved.
    func foldGroups(after count: Int) {
        closeImplicitGroup()
        guard count > 0, undoStack.count > count else { return }
        let extra = undoStack[count...].flatMap(\.records)
        undoStack.removeSubrange(count...)
        undoStack[count - 1].records += extra
    }

    private func commitOpenGroup() {
        guard let group = openGroup else { return }
        openGroup = nil
        guard !group.records.isEmpty else { return }
        undoStack.append(group)
        redoStack = []
        if levelsOfUndo > 0 && undoStack.count > levelsOfUndo { undoStack.removeFirst(undoStack.count - levelsOfUndo) }
    }

    /// Reverses the last step in `context`. Returns false when there was nothing to undo.
    @discardableResult
    public func undo(in context: ManagedObjectContext) -> Bool {
        closeImplicitGroup()
        if explicitDepth > 0 {
            explicitDepth = 0
            commitOpenGroup()
        }
        guard let group = undoStack.popLast() else { return false }
        lastError = nil
        redoStack.append(replay(group, as: .undoing, in: context))
        return true
    }

    /// Repeats the last undone step in `context`. Returns false when there was nothing to redo.
    @discardableResult
    public func redo(in context: ManagedObjectContext) -> Bool {
        guard let group = redoStack.popLast() else { return false }
        lastError = nil
        undoStack.append(replay(group, as: .redoing, in: context))
        return true
    }

    /// Reverts `group`'s records, newest first, and returns the group that reverses that.
    private func replay(_ group: Group, as replayMode: Mode, in context: ManagedObjectContext) -> Group {
        mode = replayMode
        openGroup = Group(name: group.name)
        for record in group.records.reversed() { context.revert(record) }
        context.remapAliasedReferences()
        context.processPendingChanges()
        let inverse = openGroup ?? Group(name: group.name)
        openGroup = nil
        mode = .normal
        return Group(name: group.name, records: inverse.records)
    }
}

extension ManagedObjectContext {
    /// Undoes the last step of this context's undo manager.
    ///
    /// ```swift
    /// context.undo()
    /// ```
    @discardableResult
    public func undo() -> Bool {
        assertOnQueue()
        return undoManager?.undo(in: self) ?? false
    }

    /// Redoes the last undone step.
    @discardableResult
    public func redo() -> Bool {
        assertOnQueue()
        return undoManager?.redo(in: self) ?? false
    }

    /// Objects brought back by undo get new IDs; references to their old IDs (restored in
    /// the same step, in any order) are pointed at the new objects.
    func remapAliasedReferences() {
        for object in Array(newObjects) + Array(updatedByID.values) {
            for (r, target) in object.toOne.enumerated() {
                guard let target, let alias = permanentIDForTemporary[target], alias != target else { continue }
                setForeignKey(object, relationshipIndex: r, to: alias)
            }
        }
    }

    /// Applies the reverse of `record`, recording its own reverse for redo.
    func revert(_ record: UndoRecord) {
        switch record.kind {
        case .insert(let id):
            // An object whose row another context or process deleted meanwhile stays deleted
            // (deleting it again would record a redo that inserts an empty row).
            guard let object = try? existingObject(with: id) else { return }
            if object.managedObjectContext === self, deletedByID[object.objectID] == nil { delete(object) }
        case .delete(let id, let values, let toOne, let recorded, let changedKeys):
            let permanent = permanentIDForTemporary[id] ?? id
            if let object = deletedByID[permanent] {
                // Deletion not saved yet: bring the object back as it was.
                deletedByID.removeValue(forKey: permanent)
                object.values = values
                object.toOne = toOne
                object.changedKeys = changedKeys
                if let current = object.snapshot, current.version != recorded?.version {
                    // Saved elsewhere since the deletion: the stored values win where it had no local edit.
                    let entity = object.entity
                    for (i, a) in entity.attributes.enumerated() where !a.isTransient && !changedKeys.contains(a.name) {
                        object.values[i] = current.values[i]
                    }
                    for r in entity.relationships.indices where !changedKeys.contains(entity.relationships[r].name) {
                        object.toOne[r] = current.toOne[r]
                    }
                }
                if !changedKeys.isEmpty { updatedByID[permanent] = object }
                pending.deleted.remove(permanent)
                pending.inserted.insert(permanent)
                pending.objects[permanent] = object
                undoManager?.registerUndo(.insert(permanent), in: self)
            } else {
                // Unsaved insert that was deleted, or a deletion already saved: insert anew.
                let object = insertObject(of: permanent.entity)
                object.values = values
                object.toOne = toOne.map { id in id.map { permanentIDForTemporary[$0] ?? $0 } }
                if id.isTemporary { permanentIDForTemporary[id] = object.objectID }
                if let pk = permanent.primaryKey {
                    permanentIDForTemporary[ObjectID(entity: permanent.entity, rawValue: pk)] = object.objectID
                }
                for (r, target) in object.toOne.enumerated() where target != nil {
                    object.changedKeys.insert(object.entity.relationships[r].name)
                }
            }
        case .change(let id, .membership(let index, let member, let wasMember)):
            revertMembership(id, relationshipIndex: index, member: member, wasMember: wasMember)
        case .change(let id, .order(let index, let oldOrder)):
            revertOrder(id, relationshipIndex: index, order: oldOrder)
        case .change(let id, let change):
            // An object whose row another context or process deleted meanwhile stays deleted.
            guard let object = try? existingObject(with: id), object.managedObjectContext === self else { return }
            switch change {
            case .attribute(let index, let oldValue):
                if object.entity.attributes[index].isDerivedCounter { return }
                object.setAttributeValue(oldValue, at: index)
            case .relationship(let index, let oldValue):
                setForeignKey(object, relationshipIndex: index, to: oldValue.map { permanentIDForTemporary[$0] ?? $0 })
            case .membership, .order:
                break  // handled above
            }
        case .batch(let step):
            revertBatch(step)
        }
    }
}
