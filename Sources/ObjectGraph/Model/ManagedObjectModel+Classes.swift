extension ManagedObjectModel {
    /// A model of classes declared with ``ManagedEntity(_:renamedFrom:unique:indexes:abstract:)``,
    /// and of explicit `entities` beside them. A relationship that names no inverse gets the
    /// destination's one relationship back to its entity that names no inverse either, or
    /// names this one.
    ///
    /// ```swift
    /// @ManagedEntity final class Song: ManagedObject { var title: String }
    /// let model = try ManagedObjectModel(name: "Songs", version: 2, classes: [Song.self],
    ///     entities: [EntityDescription("Label", attributes: [.string("text")])])
    /// ```
    public convenience init(
        name: String, version: Int, classes: [ManagedObject.Type], entities: [EntityDescription] = []
    ) throws(ModelError) {
        var declared: [EntityDescription] = []
        for type in classes {
            guard let entity = type.entityDescription else {
                throw ModelError(
                    message: "class \(type) is not declared with @ManagedEntity; describe it with an EntityDescription")
            }
            declared.append(entity)
        }
        try self.init(name: name, version: version, entities: try Self.resolvingInverses(declared + entities))
    }

    /// Names each relationship's destination by its entity (the macro writes the class's
    /// name, which differs for `@ManagedEntity("Other")`), and fills in the inverses a
    /// macro-declared relationship leaves unnamed (`inverseName` "").
    static func resolvingInverses(_ entities: [EntityDescription]) throws(ModelError) -> [EntityDescription] {
        var result = entities
        var entityNameOfClass: [String: String] = [:]
        for entity in entities where ObjectIdentifier(entity.managedClass) != ObjectIdentifier(ManagedObject.self) {
            entityNameOfClass["\(entity.managedClass)"] = entity.name
        }
        let names = Set(entities.map(\.name))
        for e in result.indices {
            for r in result[e].relationships.indices {
                let destination = result[e].relationships[r].destinationEntityName
                if !names.contains(destination), let renamed = entityNameOfClass[destination] {
                    result[e].relationships[r].destinationEntityName = renamed
                }
            }
        }
        let named = result
        for (e, entity) in named.enumerated() {
            for (r, relationship) in entity.relationships.enumerated() where relationship.inverseName.isEmpty {
                guard let d = named.firstIndex(where: { $0.name == relationship.destinationEntityName }) else {
                    throw ModelError(
                        message:
                            "\(entity.name).\(relationship.name): destination entity '\(relationship.destinationEntityName)' does not exist"
                    )
                }
                let candidates = named[d].relationships.filter {
                    $0.destinationEntityName == entity.name && !(d == e && $0.name == relationship.name)
                }
                let naming = candidates.filter { $0.inverseName == relationship.name }
                let unnamed = candidates.filter { $0.inverseName.isEmpty }
                guard let inverse = naming.count == 1 ? naming[0] : naming.isEmpty && unnamed.count == 1 ? unnamed[0] : nil
                else {
                    let why =
                        candidates.isEmpty
                        ? "\(relationship.destinationEntityName) has no relationship back to \(entity.name)"
                        : "\(relationship.destinationEntityName) has several relationships back to \(entity.name)"
                    throw ModelError(
                        message:
                            "\(entity.name).\(relationship.name) has no inverse: \(why); name it with @Relationship(inverse:)")
                }
                result[e].relationships[r].inverseName = inverse.name
            }
        }
        return result
    }
}
