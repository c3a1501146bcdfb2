import Foundation
import Synchronization
import Testing

@testable import ObjectGraph

private let deletionLog = Mutex<[String]>([])

private final class Shelf: ManagedObject {
    @Managed("name") var name: String
    @Managed("removed") var removed: Int64
    @ToMany("books") var books: [Book]
    override func prepareForDeletion() {
        deletionLog.withLock { $0.append("shelf \(name) with \(books.count) books") }
    }
}

private final class Book: ManagedObject {
    @Managed("title") var title: String
    @ToOne("shelf") var shelf: Shelf?
    override func prepareForDeletion() {
        // The relationship still holds, and a change made here is saved with the delete.
        deletionLog.withLock { $0.append("book \(title) on \(shelf?.name ?? "none")") }
        if let shelf, !shelf.isDeleted { shelf.removed += 1 }
    }
}

@Suite(.serialized) struct PrepareForDeletionTests {
    static let model = try! ManagedObjectModel(
        name: "Shelves", version: 1,
        entities: [
            EntityDescription(
                "Shelf", managedClass: Shelf.self,
                attributes: [.string("name", optional: false), .integer("removed", defaultValue: 0)],
                relationships: [.toMany("books", destination: "Book", inverse: "shelf", deleteRule: .cascade)]),
            EntityDescription(
                "Book", managedClass: Book.self, attributes: [.string("title", optional: false)],
                relationships: [.toOne("shelf", destination: "Shelf", inverse: "books")]),
        ])

    @Test func calledBeforeDeleteAndForEveryCascadedObject() throws {
        deletionLog.withLock { $0 = [] }
        let container = try PersistentContainer(model: Self.model, store: .inMemory)
        let context = container.newBackgroundContext()
        try context.performAndWait { () throws in
            let shelf = context.insert(Shelf.self)
            shelf.name = "fiction"
            for title in ["Emma", "Ulysses", "Dracula"] {
                let book = context.insert(Book.self)
                book.title = title
                book.shelf = shelf
            }
            try context.save()

            let emma = try #require(try Book.findFirst(byAttribute: "title", value: .string("Emma"), in: context))
            context.delete(emma)
            #expect(deletionLog.withLock { $0 } == ["book Emma on fiction"])
            try context.save()
            // Stored: a fresh context reads the hook's change.
            let check = container.newBackgroundContext()
            let stored = try check.performAndWait { () throws in try Shelf.findFirst(in: check)?.removed }
            #expect(stored == 1)
            #expect(try Book.count(in: context) == 2)

            deletionLog.withLock { $0 = [] }
            context.delete(shelf)
            // The shelf's hook runs first, while its books are still there; then each cascaded book's.
            let log = deletionLog.withLock { $0 }
            #expect(log.first == "shelf fiction with 2 books")
            #expect(log.dropFirst().sorted() == ["book Dracula on fiction", "book Ulysses on fiction"])
            try context.save()
            #expect(try Book.count(in: context) == 0)

            // An inserted object deleted before any save gets the hook too.
            deletionLog.withLock { $0 = [] }
            let draft = context.insert(Book.self)
            draft.title = "Draft"
            context.delete(draft)
            #expect(deletionLog.withLock { $0 } == ["book Draft on none"])
        }
    }
}
