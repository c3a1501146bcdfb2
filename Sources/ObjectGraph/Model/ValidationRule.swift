import Foundation
import Synchronization

/// A rule an attribute's value must meet when its object is saved (nil values are left to
/// the attribute's optionality). Rules are not part of the schema: adding one needs no
/// migration.
///
/// ```swift
/// let title = AttributeDescription.string("title", optional: false).validated(.minLength(1), .maxLength(200))
/// ```
public enum ValidationRule: Sendable, Hashable, CustomStringConvertible {
    /// A number (or date, in seconds since 1970) at least this.
    case minimum(Double)
    /// A number (or date, in seconds since 1970) at most this.
    case maximum(Double)
    /// Text of at least this many characters.
    case minLength(Int)
    /// Text of at most this many characters.
    case maxLength(Int)
    /// Text the regular expression matches as a whole.
    case pattern(String)

    public var description: String {
        switch self {
        case .minimum(let n): return "minimum \(Self.number(n))"
        case .maximum(let n): return "maximum \(Self.number(n))"
        case .minLength(let n): return "minLength \(n)"
        case .maxLength(let n): return "maxLength \(n)"
        case .pattern(let p): return "pattern \(p)"
        }
    }

    private static func number(_ n: Double) -> String {
        n.rounded() == n && abs(n) < 1e15 ? String(Int64(n)) : String(n)
    }

    /// What is wrong with `value` under this rule, or nil when it passes.
    func violation(by value: Value) -> String? {
        switch (self, value) {
        case (_, .null):
            return nil
        case (.minimum(let limit), _):
            guard let n = value.numericValue else { return nil }
            return n < limit ? "is \(Self.number(n)), less than \(Self.number(limit))" : nil
        case (.maximum(let limit), _):
            guard let n = value.numericValue else { return nil }
            return n > limit ? "is \(Self.number(n)), more than \(Self.number(limit))" : nil
        case (.minLength(let limit), .string(let s)):
            return s.count < limit ? "has \(s.count) characters, fewer than \(limit)" : nil
        case (.maxLength(let limit), .string(let s)):
            return s.count > limit ? "has \(s.count) characters, more than \(limit)" : nil
        case (.pattern(let pattern), .string(let s)):
            guard let regex = Self.compiled(pattern) else { return "cannot be checked: '\(pattern)' is not a valid pattern" }
            let range = NSRange(s.startIndex..., in: s)
            let match = regex.firstMatch(in: s, options: [.anchored], range: range)
            return match?.range == range ? nil : "\"\(s)\" does not match \(pattern)"
        default:
            return nil
        }
    }

    // Compiled patterns, shared: NSRegularExpression is immutable and documented as safe to
    // use from several threads at once.
    private static let cache = Mutex<[String: NSRegularExpression]>([:])

    private static func compiled(_ pattern: String) -> NSRegularExpression? {
        if let regex = cache.withLock({ $0[pattern] }) { return regex }
        guard let regex = try? NSRegularExpression(pattern: pattern) else { return nil }
        cache.withLock { $0[pattern] = regex }
        return regex
    }
}

extension AttributeDescription {
    /// This attribute with `rules` added, checked when its object is saved.
    ///
    /// ```swift
    /// let rating = AttributeDescription.integer("rating", defaultValue: 0).validated(.minimum(0), .maximum(5))
    /// ```
    public func validated(_ rules: ValidationRule...) -> AttributeDescription {
        var copy = self
        copy.validationRules += rules
        return copy
    }
}

extension ManagedObjectContext {
    /// Every reason the pending changes may not be saved: required values missing, attribute
    /// rules broken, `validateFor…` hooks refusing, deny rules. One error is thrown as it
    /// is; several as ``ObjectGraphError/validationFailed(_:)``.
    func validateForSave() throws(ObjectGraphError) {
        var errors: [ObjectGraphError] = []
        func collect(_ error: any Error, entity: Entity, hook: String) {
            switch error {
            case ObjectGraphError.validationFailed(let list): errors += list
            case let error as ObjectGraphError: errors.append(error)
            default: errors.append(.invalidValue(entity: entity.name, key: "", rule: hook, message: "\(error)"))
            }
        }
        func validate(_ object: ManagedObject, inserted: Bool) {
            let entity = object.entity
            object.fireFaultIfNeeded()
            var missing = false
            for i in entity.requiredAttributeIndexes where object.values[i].isNull {
                errors.append(.missingValue(entity: entity.name, key: entity.attributes[i].name))
                missing = true
            }
            for r in entity.requiredForeignKeyIndexes {
                // Pointing at an object deleted in this save counts as nil.
                if let target = object.toOne[r], deletedByID.isEmpty || deletedByID[target] == nil { continue }
                errors.append(.missingValue(entity: entity.name, key: entity.relationships[r].name))
                missing = true
            }
            for (i, attribute) in entity.attributes.enumerated() where !attribute.validationRules.isEmpty {
                for rule in attribute.validationRules {
                    if let message = rule.violation(by: object.values[i]) {
                        errors.append(
                            .invalidValue(entity: entity.name, key: attribute.name, rule: rule.description, message: message))
                    }
                }
            }
            if missing { return }
            do {
                if inserted { try object.validateForInsert() } else { try object.validateForUpdate() }
            } catch {
                collect(error, entity: entity, hook: inserted ? "validateForInsert" : "validateForUpdate")
            }
        }
        for object in newObjects { validate(object, inserted: true) }
        for object in updatedByID.values { validate(object, inserted: false) }
        for object in deletedByID.values {
            do {
                try object.validateForDelete()
            } catch {
                collect(error, entity: object.entity, hook: "validateForDelete")
            }
            for (r, relationship) in object.entity.relationships.enumerated() where relationship.deleteRule == .deny {
                do {
                    let remaining = try relatedObjects(of: object, relationshipIndex: r).filter {
                        deletedByID[$0.objectID] == nil
                    }
                    if !remaining.isEmpty {
                        errors.append(
                            .deleteDenied(entity: object.entity.name, relationship: relationship.name, count: remaining.count))
                    }
                } catch {
                    errors.append(error)
                }
            }
        }
        if errors.count == 1 { throw errors[0] }
        if !errors.isEmpty { throw .validationFailed(errors) }
    }

    /// Calls `willSave` on every inserted and changed object; the first error stops the save.
    func runWillSave() throws(ObjectGraphError) {
        // willSave may change (or insert) objects: iterate over copies.
        for object in Array(newObjects) + Array(updatedByID.values) {
            do {
                try object.willSave()
            } catch let error as ObjectGraphError {
                throw error
            } catch {
                throw .invalidValue(entity: object.entity.name, key: "", rule: "willSave", message: "\(error)")
            }
        }
    }
}
