import SwiftDiagnostics
import SwiftSyntax

/// Every way `@ManagedEntity` and its companions can be misused, with the wording in one place.
enum MacroDiagnostic: DiagnosticMessage, Equatable {
    case notAClass(kind: String)
    case noSuperclass(className: String)
    case letProperty(name: String)
    case severalBindings
    case noTypeAnnotation(name: String)
    case unsupportedType(name: String, type: String)
    case unsupportedCollection(name: String, type: String)
    case toManyOptional(name: String)
    case toOneNotOptional(name: String, type: String)
    case relationshipToValue(name: String, type: String)
    case encodedNotOptional(name: String)
    case derivedCountNotInteger(name: String)
    case wrapperInsideEntity(name: String, wrapper: String)
    case observers(name: String)
    case inverseRequired(name: String, destination: String, others: [String])

    var message: String {
        switch self {
        case .notAClass(let kind):
            return
                "@ManagedEntity applies to a ManagedObject subclass, not to \(["enum", "actor", "extension"].contains(kind) ? "an" : "a") \(kind)"
        case .noSuperclass(let className):
            return "@ManagedEntity class '\(className)' must be a ManagedObject subclass"
        case .letProperty(let name):
            return "'\(name)' is a 'let': a managed property is a 'var' (or mark it @Ignored)"
        case .severalBindings:
            return "declare one managed property per 'var'"
        case .noTypeAnnotation(let name):
            return "'\(name)' needs a type annotation: only a literal's type can be inferred"
        case .unsupportedType(let name, let type):
            return
                "'\(name)' has unsupported type '\(type)': an attribute is String, Int, Int64, Double, Bool, Date, Data or UUID (or another ValueConvertible marked @Attribute), a relationship is marked @Relationship, a Codable value @Attribute(.encoded)"
        case .unsupportedCollection(let name, let type):
            return
                "'\(name)' has unsupported type '\(type)': a to-many relationship is an array of a ManagedObject class marked @Relationship; store a collection of values as @Attribute(.encoded)"
        case .toManyOptional(let name):
            return "to-many relationship '\(name)' is an array, not an optional (an empty array means no members)"
        case .toOneNotOptional(let name, let type):
            return
                "to-one relationship '\(name)' must be optional ('\(type)?'); @Relationship(required: true) makes saving require it"
        case .relationshipToValue(let name, let type):
            return "'\(name)' is marked @Relationship but '\(type)' is a value type, not a ManagedObject class"
        case .encodedNotOptional(let name):
            return "@Attribute(.encoded) property '\(name)' must be optional: a value that no longer decodes reads as nil"
        case .derivedCountNotInteger(let name):
            return "derived count '\(name)' must be a non-optional Int or Int64"
        case .wrapperInsideEntity(let name, let wrapper):
            return "'\(name)' is declared by @ManagedEntity; remove \(wrapper) (use @Attribute(.named(…)) for another key)"
        case .observers(let name):
            return "'\(name)': willSet/didSet are not supported on a managed property"
        case .inverseRequired(let name, let destination, let others):
            return
                "'\(name)' needs its inverse named: \(([name] + others).map { "'\($0)'" }.joined(separator: " and ")) point to the same class; write @Relationship(inverse: \\\(destination).…)"
        }
    }

    var diagnosticID: MessageID {
        let id: String
        switch self {
        case .notAClass: id = "notAClass"
        case .noSuperclass: id = "noSuperclass"
        case .letProperty: id = "letProperty"
        case .severalBindings: id = "severalBindings"
        case .noTypeAnnotation: id = "noTypeAnnotation"
        case .unsupportedType: id = "unsupportedType"
        case .unsupportedCollection: id = "unsupportedCollection"
        case .toManyOptional: id = "toManyOptional"
        case .toOneNotOptional: id = "toOneNotOptional"
        case .relationshipToValue: id = "relationshipToValue"
        case .encodedNotOptional: id = "encodedNotOptional"
        case .derivedCountNotInteger: id = "derivedCountNotInteger"
        case .wrapperInsideEntity: id = "wrapperInsideEntity"
        case .observers: id = "observers"
        case .inverseRequired: id = "inverseRequired"
        }
        return MessageID(domain: "ObjectGraphMacros", id: id)
    }

    var severity: DiagnosticSeverity { .error }
}

/// The fix-its offered with the diagnostics.
enum MacroFixIt: FixItMessage {
    case makeClass
    case addSuperclass
    case useVar
    case makeOptional
    case removeOptional
    case markRelationship
    case markEncoded
    case removeWrapper(String)
    case nameInverse

    var message: String {
        switch self {
        case .makeClass: return "make it a ManagedObject subclass"
        case .addSuperclass: return "add ': ManagedObject'"
        case .useVar: return "replace 'let' with 'var'"
        case .makeOptional: return "make it optional"
        case .removeOptional: return "remove '?'"
        case .markRelationship: return "mark it @Relationship"
        case .markEncoded: return "store it as @Attribute(.encoded)"
        case .removeWrapper(let wrapper): return "remove \(wrapper)"
        case .nameInverse: return "name the inverse"
        }
    }

    var fixItID: MessageID {
        let id: String
        switch self {
        case .makeClass: id = "makeClass"
        case .addSuperclass: id = "addSuperclass"
        case .useVar: id = "useVar"
        case .makeOptional: id = "makeOptional"
        case .removeOptional: id = "removeOptional"
        case .markRelationship: id = "markRelationship"
        case .markEncoded: id = "markEncoded"
        case .removeWrapper: id = "removeWrapper"
        case .nameInverse: id = "nameInverse"
        }
        return MessageID(domain: "ObjectGraphMacros", id: id)
    }
}
