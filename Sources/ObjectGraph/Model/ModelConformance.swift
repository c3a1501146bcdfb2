import Foundation

/// What a property wrapper of a ``ManagedObject`` subclass declares, for checking it
/// against the model.
enum DeclaredProperty {
    case attribute(key: String, type: AttributeType, isOptional: Bool, swiftType: String)
    case toOne(key: String, destination: ManagedObject.Type)
    case toMany(key: String, destination: ManagedObject.Type)
}

protocol DeclaresManagedProperty {
    var declaredProperty: DeclaredProperty { get }
}

/// Tells `Optional` apart from other value types.
private protocol OptionalValue {}
extension Optional: OptionalValue {}

extension Managed: DeclaresManagedProperty {
    var declaredProperty: DeclaredProperty {
        .attribute(key: key, type: V.attributeType, isOptional: V.self is any OptionalValue.Type, swiftType: "\(V.self)")
    }
}

extension ToOne: DeclaresManagedProperty {
    var declaredProperty: DeclaredProperty { .toOne(key: key, destination: Destination.self) }
}

extension ToMany: DeclaresManagedProperty {
    var declaredProperty: DeclaredProperty { .toMany(key: key, destination: Destination.self) }
}

extension ManagedObjectModel {
    /// Checks that every entity's class declares its properties as the model does: each
    /// `@Managed` key of the entity is an attribute of a matching type, non-optional only
    /// when the attribute is required or has a default (so no value is ever made up); each
    /// `@ToOne` and `@ToMany` key is a relationship of that kind whose destination has that
    /// class. A key the entity lacks altogether is refused with the closest key it has (a
    /// misspelling), except in an older version of a model (one a newer version of the same
    /// name, or a migration plan, supersedes): older versions share the newest classes, and
    /// using a key they lack stops the program with a message naming entity and key.
    /// `allowingMissingKeys` allows such keys whatever the version.
    /// ``PersistentContainer`` calls it when it loads; it throws
    /// ``ObjectGraphError/modelMismatch(_:)`` naming every mismatch.
    ///
    /// ```swift
    /// try model.checkClassesMatch()
    /// ```
    public func checkClassesMatch(allowingMissingKeys: Bool? = nil) throws(ObjectGraphError) {
        let allowsMissingKeys = allowingMissingKeys ?? isSuperseded
        var problems: [String] = []
        for entity in entities where ObjectIdentifier(entity.managedClass) != ObjectIdentifier(ManagedObject.self) {
            let prototype = entity.managedClass.init(
                ManagedObject.Construction(entity: entity, objectID: ObjectID.temporary(for: entity)))
            var mirror: Mirror? = Mirror(reflecting: prototype)
            while let current = mirror {
                for child in current.children {
                    guard let declared = (child.value as? any DeclaresManagedProperty)?.declaredProperty else { continue }
                    let property = child.label.map { $0.hasPrefix("_") ? String($0.dropFirst()) : $0 } ?? "?"
                    if let problem = mismatch(declared, in: entity, allowingMissingKeys: allowsMissingKeys) {
                        problems.append("\(entity.managedClass).\(property): \(problem)")
                    }
                }
                mirror = current.superclassMirror
            }
        }
        problems += subclassMismatches()
        if !problems.isEmpty { throw .modelMismatch(problems) }
    }

    private func mismatch(_ declared: DeclaredProperty, in entity: Entity, allowingMissingKeys: Bool) -> String? {
        switch declared {
        case .attribute(let key, let type, let isOptional, let swiftType):
            guard let i = entity.attributeIndexByName[key] else {
                if entity.relationshipIndexByName[key] != nil {
                    return "@Managed(\"\(key)\") names a relationship of \(entity.name); use @ToOne or @ToMany"
                }
                // Older model versions share the classes of the newest: a key they lack is
                // reported when it is used, not here.
                if allowingMissingKeys { return nil }
                return missingKeyProblem(key, wrapper: "@Managed", in: entity, kinds: entity.attributes.map(\.name))
            }
            let attribute = entity.attributes[i]
            if attribute.type != type && !(attribute.type == .integer && type == .bool)
                && !(attribute.type == .data && swiftType.hasSuffix(Encoded<Int>.declaredSuffix))
            {
                return "\(entity.name).\(key) is \(attribute.type.rawValue) in the model, declared as \(swiftType)"
            }
            if !isOptional && attribute.isOptional && attribute.defaultValue.isNull && !attribute.isTransient {
                return
                    "\(entity.name).\(key) is optional in the model with no default, declared as non-optional \(swiftType) (declare \(swiftType)? or give it a default)"
            }
            return nil
        case .toOne(let key, let destination), .toMany(let key, let destination):
            let wantsToMany: Bool
            if case .toMany = declared { wantsToMany = true } else { wantsToMany = false }
            let wrapper = wantsToMany ? "@ToMany" : "@ToOne"
            guard let r = entity.relationshipIndexByName[key] else {
                if entity.attributeIndexByName[key] != nil {
                    return "\(wrapper)(\"\(key)\") names an attribute of \(entity.name); use @Managed"
                }
                if allowingMissingKeys { return nil }  // see above: older model versions
                return missingKeyProblem(key, wrapper: wrapper, in: entity, kinds: entity.relationships.map(\.name))
            }
            if entity.relationships[r].isToMany != wantsToMany {
                return "\(entity.name).\(key) is a \(wantsToMany ? "to-one" : "to-many") relationship, declared with \(wrapper)"
            }
            let target = self.destination(of: entity, relationshipIndex: r)
            let generic = ObjectIdentifier(ManagedObject.self)
            let modelClass = ObjectIdentifier(target.managedClass)
            if modelClass != generic, ObjectIdentifier(destination) != generic, modelClass != ObjectIdentifier(destination) {
                return "\(entity.name).\(key) leads to \(target.name) (class \(target.managedClass)), declared as \(destination)"
            }
            return nil
        }
    }
}
