import Foundation

/// Object IDs as URLs that survive a relaunch: `x-objectgraph://<store identifier>/<Entity>/<primary key>`,
/// for keeping a reference to an object outside the store (a preference, a bookmark, a
/// command-line argument) and turning it back into an ``ObjectID`` later.
///
/// An ``ObjectID`` is the entity and the row's key, and does not know which store it came
/// from, so the URL is asked of the store (or its container or context), which names
/// itself by ``PersistentStore/identifier``.
///
/// ```swift
/// let url = note.objectID.uriRepresentation(in: container)!   // after a save
/// // … next launch:
/// if let id = container.managedObjectID(forURIRepresentation: url) {
///     print(try context.existingObject(with: id))
/// }
/// ```
extension ObjectID {
    /// The URL scheme of object-ID URIs.
    public static let uriScheme = "x-objectgraph"

    /// This ID as a URL naming `store`, or nil while the ID is temporary (before the object's
    /// first save: its row, and so its key, does not exist yet).
    ///
    /// ```swift
    /// let url = item.objectID.uriRepresentation(in: container.store)
    /// ```
    public func uriRepresentation(in store: PersistentStore) -> URL? {
        guard let primaryKey else { return nil }
        return URL(string: "\(Self.uriScheme)://\(store.identifier)/\(entity.name)/\(primaryKey)")
    }

    /// This ID as a URL naming `container`'s store (see ``uriRepresentation(in:)-(PersistentStore)``).
    ///
    /// ```swift
    /// let url = item.objectID.uriRepresentation(in: container)
    /// ```
    public func uriRepresentation(in container: PersistentContainer) -> URL? {
        uriRepresentation(in: container.store)
    }
}

extension PersistentStore {
    /// The ID a URL from ``ObjectID/uriRepresentation(in:)-(PersistentStore)`` names, or nil
    /// when it is not such a URL, names another store, or an entity this store's model does
    /// not have. Whether the object still exists is for
    /// ``ManagedObjectContext/existingObject(with:)`` to say.
    ///
    /// ```swift
    /// let id = store.managedObjectID(forURIRepresentation: url)
    /// ```
    public func managedObjectID(forURIRepresentation url: URL) -> ObjectID? {
        guard url.scheme == ObjectID.uriScheme, url.host == identifier, url.query == nil, url.fragment == nil else {
            return nil
        }
        let parts = url.path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].isEmpty, let entity = model.entityIfPresent(named: String(parts[1])),
            parts[2].allSatisfy({ $0.isASCII && $0.isNumber }), let key = Int64(parts[2]), key > 0
        else { return nil }
        return ObjectID(entity: entity, primaryKey: key)
    }
}

extension PersistentContainer {
    /// The ID a URL from ``ObjectID/uriRepresentation(in:)-(PersistentContainer)`` names, or nil
    /// (see ``PersistentStore/managedObjectID(forURIRepresentation:)``).
    ///
    /// ```swift
    /// if let id = container.managedObjectID(forURIRepresentation: url) { print(id) }
    /// ```
    public func managedObjectID(forURIRepresentation url: URL) -> ObjectID? {
        store.managedObjectID(forURIRepresentation: url)
    }
}

extension ManagedObjectContext {
    /// The URL of `object`'s ID in this context's store, or nil before its first save.
    ///
    /// ```swift
    /// let url = context.uriRepresentation(for: note.objectID)
    /// ```
    public func uriRepresentation(for objectID: ObjectID) -> URL? {
        objectID.uriRepresentation(in: store)
    }

    /// The ID a URL names in this context's store, or nil
    /// (see ``PersistentStore/managedObjectID(forURIRepresentation:)``).
    ///
    /// ```swift
    /// let id = context.managedObjectID(forURIRepresentation: url)
    /// ```
    public func managedObjectID(forURIRepresentation url: URL) -> ObjectID? {
        store.managedObjectID(forURIRepresentation: url)
    }
}
