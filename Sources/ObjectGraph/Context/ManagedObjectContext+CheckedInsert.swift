extension ManagedObjectContext {
    /// Inserts a new object of the entity whose class is `type`, throwing
    /// ``ObjectGraphError/unknownEntity(_:)`` when no entity of the model has that class and
    /// ``ObjectGraphError/abstractEntity(_:)`` when its entity is abstract. ``insert(_:)`` stops
    /// the program instead, as Core Data's `init(context:)` does: use this one when the class
    /// comes from input (a plug-in, a type chosen at run time).
    ///
    /// ```swift
    /// let note = try context.insertObject(Note.self)
    /// ```
    public func insertObject<T: ManagedObject>(_ type: T.Type) throws(ObjectGraphError) -> T {
        let entity = try model.entity(for: type)
        if entity.isAbstract { throw .abstractEntity(entity.name) }
        guard let object = insertObject(of: entity) as? T else { throw .unknownEntity("\(type)") }
        return object
    }
}
