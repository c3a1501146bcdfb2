import Foundation

/// Every error ObjectGraph throws. Each case names what a person needs to fix the problem:
/// the entity, the key, the predicate and position, the file.
///
/// ```swift
/// do { try context.save() }
/// catch { print(error) }   // an ObjectGraphError: "FeedItem.guid: uniqueness violated …"
/// ```
public enum ObjectGraphError: Error, Sendable, CustomStringConvertible, Equatable {
    /// No entity of this name (or class) in the model.
    case unknownEntity(String)
    /// The entity has no attribute or relationship of this name.
    case unknownKey(entity: String, key: String)
    /// A value of the wrong type for the attribute.
    case typeMismatch(entity: String, key: String, expected: String, got: String)
    /// A required attribute or to-one relationship is nil at save time.
    case missingValue(entity: String, key: String)
    /// Saving would break a uniqueness constraint.
    case uniquenessViolation(entity: String, keys: [String], values: [String])
    /// A deny rule forbids deleting an object that still has related objects.
    case deleteDenied(entity: String, relationship: String, count: Int)
    /// A predicate format string could not be parsed.
    case predicateSyntax(format: String, position: Int, message: String)
    /// A predicate is well-formed but cannot be applied to this entity.
    case invalidPredicate(entity: String, message: String)
    /// A fetch that must match at most one object matched several.
    case multipleMatches(entity: String, predicate: String, count: Int)
    /// A fetch, count or predicate evaluation ran past its time limit
    /// (``FetchRequest/timeLimit``) and was stopped; `entity` is empty when not known.
    case timeLimitExceeded(entity: String, seconds: Double)
    /// Optimistic-locking conflicts found on save under the `.error` merge policy.
    case mergeConflict([MergeConflict])
    /// The file exists but is not an SQLite database.
    case notADatabase(path: String)
    /// The file is an SQLite database not made by ObjectGraph, or for a different model.
    case incompatibleStore(path: String, reason: String)
    /// The store was written by a newer model version than this program knows.
    case storeTooNew(path: String, storeVersion: Int, modelVersion: Int)
    /// The store needs a migration that could not be performed.
    case migrationFailed(path: String, reason: String)
    /// The object was deleted or belongs to another context.
    case objectInaccessible(String)
    /// A batch update cannot set this key (a transient attribute, a derived count).
    case notBatchUpdatable(entity: String, key: String, reason: String)
    /// A batch insert cannot set this key (a transient attribute, a derived count).
    case notBatchInsertable(entity: String, key: String, reason: String)
    /// A full-text search on an entity that declares no full-text index.
    case noFullTextIndex(entity: String)
    /// A fetch request a ``FetchedResultsController`` cannot keep live (a limit, a
    /// full-text search, a section key path that is not the first sort key).
    case invalidFetchRequest(entity: String, message: String)
    /// A value breaks a validation rule of its attribute (``ValidationRule``) or was refused
    /// by a `validateFor…` hook or `willSave`.
    case invalidValue(entity: String, key: String, rule: String, message: String)
    /// Several validation errors found by one save, every one of them.
    case validationFailed([ObjectGraphError])
    /// The classes' property wrappers do not match the model (each mismatch named).
    case modelMismatch([String])
    /// Pinned read generations need a file store (SQLite WAL snapshots).
    case generationsUnavailable(path: String)
    /// The store's file is damaged (SQLite found a malformed page or header), named with
    /// SQLite's message. Nothing more is written to it.
    case damaged(path: String, detail: String)
    /// The store was opened read-only (or its file may not be written): it can be read, not changed.
    case readOnlyStore(path: String)
    /// An object of an abstract entity (one only its sub-entities have objects of) was to be inserted.
    case abstractEntity(String)
    /// The view context's ``PersistentContainer`` was released while the context was kept
    /// (the other contexts keep their container alive).
    case containerReleased(context: String)
    /// An error reported by SQLite, with its message and the SQL.
    case sqlite(code: Int32, message: String, sql: String?)

    public var description: String {
        switch self {
        case .unknownEntity(let e): return "unknown entity '\(e)'"
        case .unknownKey(let e, let k): return "\(e) has no attribute or relationship '\(k)'"
        case .typeMismatch(let e, let k, let expected, let got):
            return "\(e).\(k): expected a value of type \(expected), got \(got)"
        case .missingValue(let e, let k): return "\(e).\(k) is required but has no value"
        case .uniquenessViolation(let e, let keys, let values):
            return "\(e).\(keys.joined(separator: ",")): uniqueness violated by \(values.joined(separator: ", "))"
        case .deleteDenied(let e, let r, let n):
            return "\(e).\(r): cannot delete, \(n) related object\(n == 1 ? " remains" : "s remain") (delete rule deny)"
        case .predicateSyntax(let f, let p, let m):
            return "predicate syntax error at position \(p): \(m) \(Self.excerpt(of: f, around: p))"
        case .invalidPredicate(let e, let m): return "invalid predicate for \(e): \(m)"
        case .multipleMatches(let e, let p, let n): return "\(n) \(e) objects match \(p), expected at most one"
        case .timeLimitExceeded(let e, let seconds):
            return
                "the \(e.isEmpty ? "" : e + " ")query took longer than \(seconds == seconds.rounded() && abs(seconds) < 1e15 ? String(Int64(seconds)) : String(seconds)) s and was stopped"
        case .mergeConflict(let c):
            return "merge conflict on save: " + c.map(\.description).joined(separator: "; ")
        case .notADatabase(let p): return "\(p): not an SQLite database"
        case .incompatibleStore(let p, let r): return "\(p): incompatible store: \(r)"
        case .storeTooNew(let p, let s, let m):
            return "\(p): store is version \(s), newer than this program's model version \(m); refusing to open it"
        case .migrationFailed(let p, let r): return "\(p): migration failed: \(r)"
        case .objectInaccessible(let m): return "object inaccessible: \(m)"
        case .notBatchUpdatable(let e, let k, let reason): return "\(e).\(k) cannot be set by a batch update: \(reason)"
        case .notBatchInsertable(let e, let k, let reason): return "\(e).\(k) cannot be set by a batch insert: \(reason)"
        case .invalidFetchRequest(let e, let m): return "invalid fetch request for \(e): \(m)"
        case .invalidValue(let e, let k, let rule, let m):
            return k.isEmpty ? "\(e): \(m) (\(rule))" : "\(e).\(k) \(m) (rule: \(rule))"
        case .validationFailed(let errors):
            return "\(errors.count) validation errors: " + errors.map(\.description).joined(separator: "; ")
        case .modelMismatch(let problems):
            return "the classes do not match the model: " + problems.joined(separator: "; ")
        case .generationsUnavailable(let p):
            return "\(p): read generations can be pinned only in a file store (WAL snapshots), not in memory"
        case .noFullTextIndex(let e): return "\(e) has no full-text index to search; declare one with FullTextIndexDescription"
        case .damaged(let p, let detail):
            return
                "\(p): the store is damaged (\(detail)); restore it from a backup, or export what can still be read and import it into a new store"
        case .readOnlyStore(let p): return "\(p): the store is read-only; it can be read but not changed"
        case .abstractEntity(let e): return "entity \(e) is abstract: insert an object of one of its sub-entities"
        case .containerReleased(let c):
            return
                "the container of \(c) was released: keep the PersistentContainer for as long as its view context is used"
        case .sqlite(let code, let m, let sql):
            return "SQLite error \(code): \(m)" + (sql.map { " — while executing \(Self.abbreviated($0, limit: 300))" } ?? "")
        }
    }

    /// A format in quotes, or for a long one the part around `position`, so that a message
    /// about a 60 KB predicate stays one short line.
    static func excerpt(of format: String, around position: Int) -> String {
        let scalars = Array(format.unicodeScalars)
        if scalars.count <= 120 { return "in \"\(format)\"" }
        let start = max(0, min(position, scalars.count) - 40)
        let end = min(scalars.count, start + 80)
        var text = String.UnicodeScalarView()
        text.append(contentsOf: scalars[start..<end])
        return "near \"\(start > 0 ? "…" : "")\(String(text))\(end < scalars.count ? "…" : "")\""
    }

    static func abbreviated(_ text: String, limit: Int) -> String {
        text.unicodeScalars.count <= limit ? text : String(String.UnicodeScalarView(text.unicodeScalars.prefix(limit))) + "…"
    }
}

/// One conflicting object found when saving: its stored row changed since it was loaded.
public struct MergeConflict: Sendable, Equatable, CustomStringConvertible {
    public var objectID: ObjectID
    /// Keys whose stored value changed since the object was loaded.
    public var storeChangedKeys: [String]
    /// Keys the context changed.
    public var objectChangedKeys: [String]
    /// True when the row was deleted from the store.
    public var deletedInStore: Bool

    public var description: String {
        deletedInStore
            ? "\(objectID) was deleted in the store"
            : "\(objectID): store changed \(storeChangedKeys), context changed \(objectChangedKeys)"
    }
}
