extension ManagedObject {
    /// The object's ID, so that in-memory evaluation compares relationships with object
    /// references (`server == %@`) as SQL compares their keys.
    ///
    /// ```swift
    /// let p = try ObjectPredicate(format: "server == %@", server.objectID)
    /// let mine = try items.filter { try p.evaluate(with: $0) }
    /// ```
    public var predicateObjectID: ObjectID? { objectID }
}
