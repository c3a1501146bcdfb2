/// A custom migration step that moves attributes out of an entity into a new entity
/// reached through a new one-to-one relationship — to split a wide row, so that changing
/// the narrow part no longer rewrites the wide one.
///
/// In the destination version, `entity` no longer has `attributes`; `destination` is a new
/// entity with attributes of the same names and types, and `relationship` is a new to-one
/// of `entity` whose inverse is a to-one of `destination`. For each old row of `entity` in
/// which any of the attributes has a value, the step inserts one `destination` row holding
/// those values, with the old row's primary key as its own, and links the two; rows
/// without any of the values get no destination row.
///
/// ```swift
/// let plan = try MigrationPlan(versions: [v1, v2], moves: [
///     AttributeMove(entity: "Note", attributes: ["body"], to: "NoteBody", through: "bodyRecord", toVersion: 2)
/// ])
/// ```
public struct AttributeMove: Sendable, Equatable {
    /// The entity the attributes leave (present in both versions, same name).
    public let entityName: String
    /// The moved attributes' names (the same in both entities).
    public let attributes: [String]
    /// The new entity that receives them.
    public let destinationName: String
    /// `entityName`'s new to-one relationship to `destinationName`.
    public let relationship: String
    /// The version this step migrates to.
    public let toVersion: Int

    /// A move of `attributes` from `entity` to the new entity `destination`, linked by
    /// `entity`'s relationship `relationship`, on the step that leads to `toVersion`.
    public init(entity: String, attributes: [String], to destination: String, through relationship: String, toVersion: Int) {
        self.entityName = entity
        self.attributes = attributes
        self.destinationName = destination
        self.relationship = relationship
        self.toVersion = toVersion
    }

    /// Checks the move against the two versions it connects (see the type's description).
    func validate(from old: ManagedObjectModel, to new: ManagedObjectModel) throws(ModelError) {
        let label = "move of \(attributes.joined(separator: ", ")) from \(entityName)"
        guard !attributes.isEmpty else { throw ModelError(message: "\(label): no attributes") }
        guard let oldEntity = old.entityIfPresent(named: entityName), let newEntity = new.entityIfPresent(named: entityName)
        else {
            throw ModelError(message: "\(label): \(entityName) must exist in versions \(old.version) and \(new.version)")
        }
        guard old.entityIfPresent(named: destinationName) == nil, let destination = new.entityIfPresent(named: destinationName)
        else {
            throw ModelError(message: "\(label): \(destinationName) must be new in version \(new.version)")
        }
        guard let r = newEntity.relationshipIndexByName[relationship], !newEntity.relationships[r].isToMany,
            newEntity.relationships[r].destinationEntityName == destinationName,
            let inverse = destination.relationship(named: newEntity.relationships[r].inverseName), !inverse.isToMany,
            oldEntity.relationshipIndexByName[relationship] == nil
        else {
            throw ModelError(
                message: "\(label): \(entityName).\(relationship) must be a new one-to-one relationship to \(destinationName)")
        }
        for name in attributes {
            guard let a = oldEntity.attribute(named: name), !a.isTransient, newEntity.attribute(named: name) == nil,
                let b = destination.attribute(named: name), !b.isTransient, b.type == a.type
            else {
                throw ModelError(
                    message:
                        "\(label): '\(name)' must be a stored attribute of \(entityName) in version \(old.version) only, and of \(destinationName) with the same type"
                )
            }
        }
    }
}
