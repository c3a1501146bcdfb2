import Foundation

/// The position of an object in a ``FetchedResultsController``: its section and its
/// place in that section.
///
/// ```swift
/// let first = ResultIndexPath(section: 0, item: 0)
/// let note = controller.object(at: first)
/// ```
public struct ResultIndexPath: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var section: Int
    public var item: Int

    public init(section: Int, item: Int) {
        self.section = section
        self.item = item
    }

    public static func < (a: Self, b: Self) -> Bool { (a.section, a.item) < (b.section, b.item) }

    public var description: String { "[\(section), \(item)]" }
}

/// One change to the contents of a ``FetchedResultsController``.
///
/// Changes are reported **in order**, each against the contents as the changes before
/// it left them (not against the old and new contents as a whole): applying them one
/// after another to a copy of the old sections gives the new sections.
/// - `delete(at:)`: the object was at `at` and is removed.
/// - `insert(at:)`: the object is inserted so that it ends up at `at`.
/// - `move(from:to:)`: removed from `from`, then inserted so that it ends up at `to`
///   (the object may also have changed: redraw it).
/// - `update(at:)`: the object at `at` changed but kept its place.
/// - `deleteSection(at:)`: the now empty section `at` is removed.
/// - `insertSection(at:)`: an empty section is inserted at `at` (its objects follow as inserts).
///
/// ```swift
/// var rows = Set<Int>()
/// for change in batch { if case .insert(_, let path) = change { rows.insert(path.item) } }
/// ```
public enum FetchedResultsChange: Hashable, Sendable, CustomStringConvertible {
    case insert(ObjectID, at: ResultIndexPath)
    case delete(ObjectID, at: ResultIndexPath)
    case move(ObjectID, from: ResultIndexPath, to: ResultIndexPath)
    case update(ObjectID, at: ResultIndexPath)
    case insertSection(name: String, at: Int)
    case deleteSection(name: String, at: Int)

    public var description: String {
        switch self {
        case .insert(let id, let path): return "insert \(id) at \(path)"
        case .delete(let id, let path): return "delete \(id) at \(path)"
        case .move(let id, let from, let to): return "move \(id) from \(from) to \(to)"
        case .update(let id, let path): return "update \(id) at \(path)"
        case .insertSection(let name, let index): return "insert section '\(name)' at \(index)"
        case .deleteSection(let name, let index): return "delete section '\(name)' at \(index)"
        }
    }
}

/// Hears of a ``FetchedResultsController``'s changes, on its context's queue. Every method
/// has an empty default: implement those you need.
///
/// ```swift
/// final class NoteList: FetchedResultsControllerDelegate {
///     func controller(_ controller: FetchedResultsController<Note>, didChange change: FetchedResultsChange) { print(change) }
/// }
/// ```
public protocol FetchedResultsControllerDelegate<Result>: AnyObject {
    associatedtype Result: ManagedObject
    /// Before the first change of a batch.
    func controllerWillChangeContent(_ controller: FetchedResultsController<Result>)
    /// Each change, in order (see ``FetchedResultsChange``).
    func controller(_ controller: FetchedResultsController<Result>, didChange change: FetchedResultsChange)
    /// After the last change of a batch: the controller's contents are now current.
    func controllerDidChangeContent(_ controller: FetchedResultsController<Result>)
}

extension FetchedResultsControllerDelegate {
    public func controllerWillChangeContent(_ controller: FetchedResultsController<Result>) {}
    public func controller(_ controller: FetchedResultsController<Result>, didChange change: FetchedResultsChange) {}
    public func controllerDidChangeContent(_ controller: FetchedResultsController<Result>) {}
}

/// A section of a ``FetchedResultsController``: the objects sharing one value of the
/// section key path, in sort order.
///
/// ```swift
/// for section in controller.sections { print(section.name, section.numberOfObjects) }
/// ```
public struct FetchedResultsSection<Result: ManagedObject> {
    /// The section key path's value, as text ("" for nil, or when there is no section key path).
    public let name: String
    /// The section key path's value.
    public let value: Value
    /// The section's objects, in sort order.
    public let objects: [Result]
    public var numberOfObjects: Int { objects.count }
}
