import Foundation

// MARK: - Appending many members at once

extension ManagedObject {
    /// Adds `members` to to-many relationship `key`, in the order given: after the current
    /// members of an ordered relationship (members already there keep their place). Every
    /// member is checked first, so a wrong one changes nothing. Costs one read of the current
    /// members at most, then O(1) per member (Core Data's `addToTasks(_: NSOrderedSet)`).
    ///
    /// ```swift
    /// try playlist.add(contentsOf: [song], toRelationship: "songs")
    /// ```
    public func add(contentsOf members: some Sequence<ManagedObject>, toRelationship key: String) throws(ObjectGraphError) {
        guard let r = entity.relationshipIndexByName[key], entity.relationships[r].isToMany else {
            throw .unknownKey(entity: entity.name, key: key)
        }
        let members = Array(members)
        let relationship = entity.relationships[r]
        for member in members {
            guard member.entity.isKind(ofEntityAt: entity.destinationIndex[r]) else {
                throw .typeMismatch(
                    entity: entity.name, key: key, expected: relationship.destinationEntityName, got: member.entity.name)
            }
            guard member.managedObjectContext === managedObjectContext else {
                throw .objectInaccessible(otherContextMessage(member))
            }
        }
        if let message = detachedMessage { throw .objectInaccessible(message) }
        guard let context = managedObjectContext else { return }
        if let join = entity.joinTables[r], join.isOrdered {
            // One new order for all of them, instead of one per member.
            let current = try context.membersOfToMany(self, relationshipIndex: r)
            var seen = Set(current.map(\.objectID))
            let added = members.filter { seen.insert($0.objectID).inserted }
            if added.isEmpty { return }
            try context.setOrderedMembers(self, relationshipIndex: r, join: join, to: current + added)
            return
        }
        for member in members { try add(member, toRelationship: key) }
    }
}
