import Foundation
import GRDB
import Testing

@testable import ObjectGraph

private final class Doc: ManagedObject {
    @Managed("uid") var uid: UUID
    @Managed("parent") var parent: UUID?
}

@Suite struct UUIDAttributeTests {
    static let model = try! ManagedObjectModel(
        name: "Docs", version: 1,
        entities: [
            EntityDescription("Doc", managedClass: Doc.self, attributes: [.string("uid", optional: false), .string("parent")])
        ])

    @Test func uuidsAreStoredAsTextAndFoundByValue() throws {
        let tmp = TemporaryDirectory()
        let url = tmp.file("docs.sqlite")
        let first = UUID()
        let second = UUID()
        do {
            let container = try PersistentContainer(model: Self.model, store: .file(url))
            let ctx = container.newBackgroundContext()
            try ctx.performAndWait { () throws in
                let a = ctx.insert(Doc.self)
                a.uid = first
                let b = ctx.insert(Doc.self)
                b.uid = second
                b.parent = first
                #expect(a.parent == nil)
                try ctx.save()
            }
            let stored = try container.store.database.read { db in
                try String.fetchAll(db, sql: "SELECT uid FROM Doc ORDER BY Z_PK")
            }
            #expect(stored == [first.uuidString, second.uuidString])
        }
        // Reopened: read back as UUIDs, found by a plain UUID value and in a format.
        let container = try PersistentContainer(model: Self.model, store: .file(url))
        let ctx = container.newBackgroundContext()
        try ctx.performAndWait { () throws in
            let b = try #require(try Doc.findFirst(byAttribute: "uid", value: second, in: ctx))
            #expect(b.uid == second && b.parent == first)
            #expect(try Doc.findSingle(where: "parent == %@", first, in: ctx)?.uid == second)
            #expect(try Doc.count(where: "uid IN %@", [first, second, UUID()], in: ctx) == 2)
            #expect(try Doc.count(where: "parent == %@", Optional<UUID>.none, in: ctx) == 1)
        }
        // Text that is not a UUID, written behind ObjectGraph's back, reads as the zero UUID, not a crash.
        try container.store.database.write { db in
            try db.execute(sql: "UPDATE Doc SET uid = 'not a uuid' WHERE uid = ?", arguments: [first.uuidString])
        }
        let fresh = container.newBackgroundContext()
        let read = try fresh.performAndWait { () throws in
            try #require(try Doc.findFirst(byAttribute: "uid", value: "not a uuid", in: fresh)).uid
        }
        #expect(read == UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
        #expect(UUID(fromValue: .string(first.uuidString.lowercased())) == first)
        #expect(UUID(fromValue: .integer(1)) == nil)
    }
}
