import Foundation

/// Why a context let go of every object it held, kept so that an object used afterwards is
/// refused with a message naming the cause rather than changed to no effect.
enum DetachCause: Sendable, Equatable {
    /// ``ManagedObjectContext/reset()`` was called.
    case reset
    /// ``BatchImporter`` reset its context after saving a batch.
    case importerBatch(name: String, batchSize: Int)

    var description: String {
        switch self {
        case .reset:
            return "its context's reset()"
        case .importerBatch(let name, let size):
            return
                "the reset that BatchImporter '\(name)' makes after each batch of \(size) records (keep object IDs across batches, not objects)"
        }
    }
}

extension ManagedObject {
    /// The message for using this object after its context let it go; nil while it is managed.
    var detachedMessage: String? {
        guard let cause = link?.detachCause else { return nil }
        return "\(objectID) was let go by \(cause.description); fetch it again, or look it up with object(with:)"
    }

    /// The message for relating `other` to this object when it is not of this object's
    /// context, naming the real cause when one of the two was let go by a reset.
    func otherContextMessage(_ other: ManagedObject) -> String {
        other.detachedMessage ?? detachedMessage ?? "\(other.objectID) belongs to another context than \(objectID)"
    }

    /// Stops the program: a property wrapper's setter cannot throw.
    func usedAfterDetach(_ message: String, key: String) -> Never {
        preconditionFailure("\(entity.name).\(key) set on an object no context manages: \(message)")
    }
}
