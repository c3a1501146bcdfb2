/// Migrates a store file written by an older version of a model. Implemented by the
/// migration layer; ``PersistentStore`` calls it when it opens an older store.
public protocol StoreMigrator: Sendable {
    /// Brings the store at `path` from `version` to `model`'s version, or throws and leaves
    /// the file untouched.
    func migrate(storeAt path: String, from version: Int, to model: ManagedObjectModel) throws
}
