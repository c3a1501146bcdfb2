import Foundation
import ObjectGraph

final class Folder: ManagedObject {
    @Managed("name") var name: String
    @Managed("position") var position: Int64
    @Managed("unreadCount") var unreadCount: Int64
    @ToMany("notes") var notes: [Note]
}

final class Note: ManagedObject {
    @Managed("title") var title: String?
    @Managed("body") var body: String?
    @Managed("read") var read: Bool
    @Managed("rating") var rating: Double
    @Managed("created") var created: Date?
    @Managed("blob") var blob: Data?
    @Managed("scratch") var scratch: String?
    @ToOne("folder") var folder: Folder?
}

final class Person: ManagedObject {
    @Managed("name") var name: String
    @ToMany("pets") var pets: [Pet]
    @ToOne("profile") var profile: Profile?
}

final class Pet: ManagedObject {
    @Managed("name") var name: String
    @ToOne("owner") var owner: Person?
}

final class Profile: ManagedObject {
    @Managed("bio") var bio: String?
    @ToOne("person") var person: Person?
}

enum TestModel {
    static func entities() -> [EntityDescription] {
        [
            EntityDescription(
                "Folder", managedClass: Folder.self,
                attributes: [
                    .string("name", optional: false), .integer("position", defaultValue: 0),
                    .derivedCount("unreadCount", of: "notes", where: "read == NO"),
                ],
                relationships: [.toMany("notes", destination: "Note", inverse: "folder", deleteRule: .cascade)],
                indexes: [["position"]], uniquenessConstraints: [["name"]]),
            EntityDescription(
                "Note", managedClass: Note.self,
                attributes: [
                    .string("title"), .string("body"), .bool("read", defaultValue: false),
                    .double("rating", defaultValue: 0), .date("created"), .data("blob"),
                    .string("scratch", transient: true),
                ],
                relationships: [.toOne("folder", destination: "Folder", inverse: "notes")]),
            EntityDescription(
                "Person", managedClass: Person.self, attributes: [.string("name", optional: false)],
                relationships: [
                    .toMany("pets", destination: "Pet", inverse: "owner", deleteRule: .deny),
                    .toOne("profile", destination: "Profile", inverse: "person", deleteRule: .cascade),
                ]),
            EntityDescription(
                "Pet", managedClass: Pet.self, attributes: [.string("name", optional: false)],
                relationships: [.toOne("owner", destination: "Person", inverse: "pets")]),
            EntityDescription(
                "Profile", managedClass: Profile.self, attributes: [.string("bio")],
                relationships: [.toOne("person", destination: "Person", inverse: "profile")]),
        ]
    }

    static let model: ManagedObjectModel = try! ManagedObjectModel(name: "Test", version: 1, entities: entities())

    static func container(_ location: StoreLocation = .inMemory) throws -> PersistentContainer {
        try PersistentContainer(model: model, store: location)
    }

    /// A container holding folders A and B and `notes` saved notes titled "note i": the first
    /// `inA` in folder A, the rest in B, rated `i % ratings`, and read for even i when `readEven`.
    static func twoFolders(
        _ location: StoreLocation = .inMemory, notes: Int, inA: Int, ratings: Int, readEven: Bool = true
    ) throws -> PersistentContainer {
        let container = try container(location)
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            let a = ctx.insert(Folder.self)
            a.name = "A"
            let b = ctx.insert(Folder.self)
            b.name = "B"
            for i in 0..<notes {
                let n = ctx.insert(Note.self)
                n.title = "note \(i)"
                n.rating = Double(i % ratings)
                if readEven { n.read = i % 2 == 0 }
                n.folder = i < inA ? a : b
            }
            try ctx.save()
        }
        return container
    }
}

/// A temporary directory removed when the value is dropped.
final class TemporaryDirectory {
    let url: URL
    init() {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("og-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    func file(_ name: String) -> URL { url.appendingPathComponent(name) }
    deinit { try? FileManager.default.removeItem(at: url) }
}
