import Foundation
import Testing

@testable import ObjectGraph

@Suite struct FetchTests {
    /// 20 notes in two folders; rating = i % 5, title "note i".
    func populated() throws -> PersistentContainer {
        try TestModel.twoFolders(notes: 20, inA: 10, ratings: 5)
    }

    @Test func predicateSortLimitOffset() throws {
        let container = try populated()
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            var r = FetchRequest<Note>(
                predicate: try ObjectPredicate(format: "rating >= 3"),
                sortDescriptors: [ObjectSortDescriptor("rating", ascending: false), ObjectSortDescriptor("title")])
            let all = try ctx.fetch(r)
            #expect(all.map(\.title) == ["note 14", "note 19", "note 4", "note 9", "note 13", "note 18", "note 3", "note 8"])
            r.fetchLimit = 3
            r.fetchOffset = 2
            #expect(try ctx.fetch(r).map(\.title) == ["note 4", "note 9", "note 13"])
            #expect(try ctx.count(for: r) == 3)
            let byFolder = try ctx.fetch(
                FetchRequest<Note>(
                    predicate: try ObjectPredicate(format: "folder.name == %@ AND read == NO", "B"),
                    sortDescriptors: [ObjectSortDescriptor("folder.name"), ObjectSortDescriptor("title")]))
            #expect(byFolder.map(\.title) == ["note 11", "note 13", "note 15", "note 17", "note 19"])
            let ids = try ctx.fetchObjectIDs(FetchRequest<Note>(predicate: try ObjectPredicate(format: "rating == 0")))
            #expect(ids.count == 4)
        }
    }

    @Test func resultsIncludeUnsavedChanges() throws {
        let container = try populated()
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            let request = FetchRequest<Note>(
                predicate: try ObjectPredicate(format: "title BEGINSWITH 'note 1'"),
                sortDescriptors: [ObjectSortDescriptor("title")],
                fetchLimit: 4)
            let before = try ctx.fetch(request).map(\.title)
            #expect(before == ["note 1", "note 10", "note 11", "note 12"])
            let inserted = ctx.insert(Note.self)
            inserted.title = "note 100"
            let moved = try ctx.fetch(FetchRequest<Note>(predicate: try ObjectPredicate(format: "title == 'note 11'")))[0]
            moved.title = "zzz"
            let gone = try ctx.fetch(FetchRequest<Note>(predicate: try ObjectPredicate(format: "title == 'note 1'")))[0]
            ctx.delete(gone)
            #expect(try ctx.fetch(request).map(\.title) == ["note 10", "note 100", "note 12", "note 13"])
            #expect(
                try ctx.count(for: FetchRequest<Note>(predicate: try ObjectPredicate(format: "title BEGINSWITH 'note 1'"))) == 10)
            var excluding = request
            excluding.includesPendingChanges = false
            #expect(try ctx.fetch(excluding).count == 4)
        }
    }

    @Test func aggregates() throws {
        let container = try populated()
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            let all = FetchRequest<Note>()
            #expect(try ctx.aggregate(.sum, of: "rating", for: all) == .double(40))
            #expect(try ctx.aggregate(.avg, of: "rating", for: all) == .double(2))
            #expect(try ctx.aggregate(.min, of: "title", for: all) == .string("note 0"))
            #expect(try ctx.aggregate(.max, of: "rating", for: all) == .double(4))
            #expect(
                try ctx.aggregate(
                    .count, of: "title", for: FetchRequest<Note>(predicate: try ObjectPredicate(format: "read == YES")))
                    == .integer(10))
            let n = ctx.insert(Note.self)
            n.rating = 100
            #expect(try ctx.aggregate(.max, of: "rating", for: all) == .double(100))
            #expect(try ctx.aggregate(.sum, of: "position", for: FetchRequest<Folder>()) == .integer(0))
            #expect(try ctx.aggregate(.avg, of: "rating", for: FetchRequest<Note>(predicate: .false)) == .null)
            #expect(throws: ObjectGraphError.unknownKey(entity: "Note", key: "nope")) {
                try ctx.aggregate(.sum, of: "nope", for: all)
            }
        }
    }

    @Test func invalidPredicatesAreReported() throws {
        let container = try populated()
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            #expect(throws: ObjectGraphError.unknownKey(entity: "Note", key: "nope")) {
                try ctx.fetch(FetchRequest<Note>(predicate: try ObjectPredicate(format: "nope == 1")))
            }
            #expect(throws: ObjectGraphError.self) { try ObjectPredicate(format: "title == ") }
        }
    }

    @Test func batchedFetchKeepsMemoryBounded() throws {
        let container = try TestModel.container()
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            for i in 0..<5000 {
                let n = ctx.insert(Note.self)
                n.title = "n\(i)"
                n.rating = Double(i)
            }
            try ctx.save()
            ctx.reset()
            let results = try ctx.fetchBatched(
                FetchRequest<Note>(sortDescriptors: [ObjectSortDescriptor("rating", ascending: false)], fetchBatchSize: 100))
            #expect(results.count == 5000)
            var maxLive = 0
            var sum = 0.0
            for (i, note) in results.enumerated() {
                sum += note.rating
                if i % 250 == 0 { maxLive = max(maxLive, ctx.registeredObjects.count) }
            }
            #expect(sum == Double(4999 * 5000 / 2))
            #expect(results[0].rating == 4999)
            #expect(maxLive <= 300)  // one or two batches alive, not 5000 objects
        }
    }
}
