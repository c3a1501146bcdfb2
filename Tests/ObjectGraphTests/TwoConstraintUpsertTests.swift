import Foundation
import ObjectGraph
import Testing

/// Uniqueness conflicts looked up among many inserts that conflict with nothing, by an
/// entity with two constraints: the look-up of each constraint, a nil key skipping one.
@Suite struct TwoConstraintUpsertTests {
    final class Entry: ManagedObject {
        @Managed("code") var code: Int64?
        @Managed("slug") var slug: String
        @Managed("title") var title: String?
    }

    static let model = try! ManagedObjectModel(
        name: "Entries", version: 1,
        entities: [
            EntityDescription(
                "Entry", managedClass: Entry.self,
                attributes: [.integer("code", optional: true), .string("slug", optional: false), .string("title")],
                uniquenessConstraints: [["code"], ["slug"]])
        ])

    /// Inserts `entries` (code, slug, title) in a new context under `.objectTrumps` and saves.
    private func save(_ container: PersistentContainer, _ entries: [(Int64?, String, String)]) throws {
        let ctx = container.newBackgroundContext()
        try ctx.performAndWait { () throws in
            ctx.mergePolicy = .objectTrumps
            for (code, slug, title) in entries {
                let entry = ctx.insert(Entry.self)
                if let code { entry.code = code }  // nil: never set, so a merge keeps the stored code
                entry.slug = slug
                entry.title = title
            }
            try ctx.save()
        }
    }

    private func contents(_ container: PersistentContainer) throws -> [String] {
        let ctx = container.newBackgroundContext()
        return try ctx.performAndWait { () throws in
            try ctx.fetch(FetchRequest<Entry>()).map { "\($0.code.map(String.init) ?? "-") \($0.slug) \($0.title ?? "-")" }
                .sorted()
        }
    }

    @Test func eachConstraintFindsItsStoredRowAmongManyNewOnes() throws {
        let container = try PersistentContainer(model: Self.model, store: .inMemory)
        try save(container, [(1, "a", "stored a"), (2, "b", "stored b")])
        var entries: [(Int64?, String, String)] = (0..<200).map { (1_000 + Int64($0), "new\($0)", "new") }
        entries.insert((nil, "b", "b by its slug"), at: 50)  // no code: only the slug is looked up
        entries.insert((1, "z", "a by its code"), at: 150)
        try save(container, entries)
        let stored = try contents(container)
        #expect(stored.count == 202)
        #expect(stored.contains("1 z a by its code"))
        #expect(stored.contains("2 b b by its slug"))
        #expect(!stored.contains { $0.hasSuffix(" a") || $0.hasPrefix("- ") })
    }

    @Test func aFileStoreFindsTheRowAnotherContainerWrote() throws {
        let tmp = TemporaryDirectory()
        let url = tmp.file("entries.sqlite")
        try save(try PersistentContainer(model: Self.model, store: .file(url)), [(7, "seven", "old")])
        let container = try PersistentContainer(model: Self.model, store: .file(url))
        try save(container, [(8, "eight", "new"), (nil, "seven", "seven again"), (9, "nine", "new")])
        try save(container, [(7, "seven", "by code")])
        #expect(try contents(container) == ["7 seven by code", "8 eight new", "9 nine new"])
    }
}
