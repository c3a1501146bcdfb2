// Inbox: a background actor delivers messages and an archive is imported in batches, while the
// view context, watched with Observation, sees every save merged into it.
import Foundation
import ObjectGraph
import Observation
import Synchronization

/// A box of messages, counting its unread ones.
@ManagedEntity
final class Box: ManagedObject {
    var name: String
    @Attribute(.derivedCount(of: "messages", where: "read == NO")) var unread: Int64
    @Relationship var messages: [Message]
}

@ManagedEntity
final class Message: ManagedObject {
    var subject: String
    var read = false
    @Relationship(inverse: \Box.messages) var box: Box?
}

/// The model: the classes, with a name and a version.
func makeModel() throws -> ManagedObjectModel {
    try ManagedObjectModel(name: "Inbox", version: 1, classes: [Box.self, Message.self])
}

/// Delivers mail off the view context: its methods run on its own context's queue.
actor Mailman: ModelActor {
    nonisolated let modelExecutor: ContextExecutor

    init(container: PersistentContainer) {
        modelExecutor = ContextExecutor(context: container.newBackgroundContext(name: "mailman"))
    }

    func deliver(_ subjects: [String], to boxID: ObjectID) throws {
        let box = try modelContext.existingObject(with: boxID) as! Box
        for subject in subjects {
            let message = modelContext.insert(Message.self)
            message.subject = subject
            message.box = box
        }
        try modelContext.save()
    }
}

/// Counts Observation's change calls, which arrive on the view context's queue.
final class Bell: Sendable {
    private let rings = Mutex(0)
    func ring() { rings.withLock { $0 += 1 } }
    var count: Int { rings.withLock { $0 } }
}

/// Stops with a message when the example did not do what it shows.
func check(_ condition: Bool, _ what: String) {
    if !condition {
        print("unexpected: \(what)")
        exit(1)
    }
}

func run() async throws {
    let container = try PersistentContainer(model: try makeModel(), store: .inMemory)
    let view = container.viewContext
    let inboxID = try await view.perform { () throws in
        let inbox = view.insert(Box.self)
        inbox.name = "Inbox"
        try view.save()
        return inbox.objectID
    }

    // The view context watches the inbox's unread count, as a SwiftUI view would; like a view,
    // this code keeps the object it shows (a context holds its objects weakly).
    let bell = Bell()
    let inbox = try view.performAndWait { try view.existingObject(with: inboxID) as! Box }
    func watchUnread() -> Int64 {
        view.performAndWait {
            withObservationTracking {
                _ = inbox.unread
            } onChange: {
                bell.ring()
            }
            return inbox.unread
        }
    }
    check(watchUnread() == 0, "a new inbox has unread mail")

    // The actor saves in the background; the save is merged into the view context, which tells
    // the observer.
    let mailman = Mailman(container: container)
    try await mailman.deliver(["Lunch?", "Minutes", "Invoice"], to: inboxID)
    await view.perform {}  // the merge runs on the view context's queue
    check(bell.count == 1, "the observer heard \(bell.count) changes, not 1")
    let unreadNow = watchUnread()
    print("after the delivery: \(unreadNow) unread")
    check(unreadNow == 3, "3 delivered, \(unreadNow) unread")

    // An archive of already read mail comes in through the async importer, a batch at a time.
    let archive = (1...250).map { "Archived \($0)" }
    let importer = BatchImporter(container: container, name: "archive", batchSize: 100)
    let running = importer.start(archive) { subject, context in
        let message = context.insert(Message.self)
        message.subject = subject
        message.read = true
    }
    for await saved in running.progress {
        print("archive: \(saved) of \(archive.count) saved")
    }
    let result = try await running.result
    check(result.total == archive.count && result.batches == 3, "import result \(result)")

    // Typed queries on the view context, which has merged every save.
    let (unread, all) = try await view.perform { () throws in
        (try Message.count(where: \.read == false, in: view), try Message.count(where: .true, in: view))
    }
    print("\(all) messages, \(unread) unread")
    check(unread == 3 && all == 253, "\(all) messages, \(unread) unread")
}

try await run()
