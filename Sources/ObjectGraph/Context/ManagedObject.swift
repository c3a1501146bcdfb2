import Foundation

/// The base class of every object an ObjectGraph context manages.
/// Subclass it per entity and declare properties with ``Managed``.
open class ManagedObject {
    public let entity: Entity
    public internal(set) var objectID: ObjectID

    /// Opaque token: only a context creates managed objects.
    public struct Construction {
        let entity: Entity
        let objectID: ObjectID
    }

    public required init(_ construction: Construction) {
        entity = construction.entity
        objectID = construction.objectID
    }
}
